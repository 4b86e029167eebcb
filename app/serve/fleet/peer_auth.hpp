// Calls between serve processes (app/serve/fleet/fleet.hpp) prove that their sender holds the admin token
// without sending it: an address of --peers (a reused IP, a stale DNS entry) that is not a shard
// of this fleet learns nothing it could use elsewhere. Each call carries
//   Authorization: VfilterPeer ts=UNIX_SECONDS,nonce=32 HEX,sig=64 HEX
// where sig = HMAC-SHA256(key: the admin token,
//                         message: METHOD "\n" TARGET "\n" HOST "\n" ts "\n" nonce),
// TARGET the request target and HOST the Host header, both exactly as sent. The receiver
// (app/serve/http/api_guard.cpp) takes it for the admin token when the signature matches its own admin
// token, ts is within kPeerClockSkew of its clock, and the nonce is new (PeerNonces). Over plain
// HTTP (serve without --tls-cert) a man in the middle can neither make a call nor learn the token,
// but can read calls, change a call's body (not signed), hold a call back to deliver it (or a
// copy) later within the window, and send it again to a receiver that restarted since (the nonces
// live in memory only); over HTTPS the peer proves its certificate before a call is sent.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_set>

#include "common/http_client.hpp"
#include "common/http_server.hpp"

namespace vf {

inline constexpr std::chrono::seconds kPeerClockSkew{30};  // the most a peer's ts may differ from now
inline constexpr size_t kMaxPeerAuthorization = 512;       // a longer header is not a peer's

// Signs `call` as it will be sent (its method, target and address are final): sets its
// Authorization header. An empty token (serve without tokens, loopback only) signs nothing.
void sign_peer_call(HttpCall& call, const std::string& token);

// The Authorization value for one call with a given time and nonce (32 hex characters).
std::string peer_authorization(const std::string& method, const std::string& target, const std::string& host, int64_t ts,
                               const std::string& nonce_hex, const std::string& token);

struct PeerSignature {
    int64_t ts = 0;
    std::string ts_text, nonce_hex;
    std::array<unsigned char, 32> sig{};
};

// An Authorization header of exactly the form above (fields in that order, each once, digits and
// lowercase hex only, at most kMaxPeerAuthorization bytes); nullopt for anything else.
std::optional<PeerSignature> parse_peer_authorization(const std::string& authorization);

// Whether `s` was made with `token` for this request (method, target, host as received),
// compared in constant time. The time and the nonce are not looked at here.
bool peer_signature_matches(const PeerSignature& s, const HttpRequest& request, const std::string& token);

// The nonces of signed calls accepted lately, so that a call is taken once: kept for as long as
// their ts can pass the clock check, and at most `capacity` (the oldest forgotten first: only
// calls signed with the admin token are recorded, so only a token holder could crowd it).
// Thread-safe.
class PeerNonces {
public:
    explicit PeerNonces(size_t capacity = 65536);
    bool seen(const std::string& nonce_hex);   // recorded and not yet forgotten
    bool spend(const std::string& nonce_hex);  // records it; false when it was recorded already

private:
    struct Key {
        uint64_t hi = 0, lo = 0;
        bool operator==(const Key& o) const { return hi == o.hi && lo == o.lo; }
    };
    struct KeyHash {
        size_t operator()(const Key& k) const { return static_cast<size_t>(k.hi ^ (k.lo * 0x9e3779b97f4a7c15ULL)); }
    };
    using Clock = std::chrono::steady_clock;
    static Key key_of(const std::string& nonce_hex);
    void forget_old(Clock::time_point now);

    size_t capacity_;
    std::mutex mutex_;
    std::deque<std::pair<Clock::time_point, Key>> order_;  // oldest first
    std::unordered_set<Key, KeyHash> keys_;
};

}  // namespace vf
