#include "app/serve/fleet/peer_auth.hpp"

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include <algorithm>
#include <random>
#include <string_view>
#include <vector>

#include "common/hmac.hpp"

namespace vf {
namespace {

constexpr std::string_view kScheme = "VfilterPeer ";
constexpr size_t kNonceBytes = 16;
constexpr size_t kMaxTsDigits = 12;  // beyond the year 33000: no real clock, and no overflow

// The nonces are kept while a call bearing one could still pass the clock check: the window's
// two sides, and a second each for rounding to whole seconds.
constexpr std::chrono::seconds kNonceKept = 2 * kPeerClockSkew + std::chrono::seconds(2);

int lower_hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

// `text` as `n` bytes: exactly 2n lowercase hex digits (one spelling for each value).
bool bytes_of_hex(std::string_view text, unsigned char* out, size_t n) {
    if (text.size() != 2 * n) return false;
    for (size_t i = 0; i < n; ++i) {
        const int hi = lower_hex_value(text[2 * i]), lo = lower_hex_value(text[2 * i + 1]);
        if (hi < 0 || lo < 0) return false;
        out[i] = static_cast<unsigned char>(hi << 4 | lo);
    }
    return true;
}

// The nonce only has to be new, not secret: when OpenSSL has no random bytes (it takes them from
// the kernel), the standard library's source serves.
std::string random_nonce() {
    unsigned char bytes[kNonceBytes];
    if (RAND_bytes(bytes, static_cast<int>(sizeof bytes)) != 1) {
        std::random_device rd;
        for (unsigned char& b : bytes) b = static_cast<unsigned char>(rd());
    }
    return hex_of(bytes, sizeof bytes);
}

std::string signed_text(const std::string& method, const std::string& target, const std::string& host, const std::string& ts_text,
                        const std::string& nonce_hex) {
    return method + "\n" + target + "\n" + host + "\n" + ts_text + "\n" + nonce_hex;
}

// The value after `name` in `field` ("ts=123" -> "123"), or nullopt when it is another field.
std::optional<std::string_view> value_of(std::string_view field, std::string_view name) {
    if (field.size() <= name.size() || field.substr(0, name.size()) != name) return std::nullopt;
    return field.substr(name.size());
}

}  // namespace

std::string peer_authorization(const std::string& method, const std::string& target, const std::string& host, int64_t ts,
                               const std::string& nonce_hex, const std::string& token) {
    const std::string ts_text = std::to_string(ts);
    const std::array<unsigned char, 32> mac = hmac_sha256(token, signed_text(method, target, host, ts_text, nonce_hex));
    return std::string(kScheme) + "ts=" + ts_text + ",nonce=" + nonce_hex + ",sig=" + hex_of(mac.data(), mac.size());
}

void sign_peer_call(HttpCall& call, const std::string& token) {
    if (token.empty()) return;
    const int64_t now = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
    call.headers.erase(std::remove_if(call.headers.begin(), call.headers.end(),
                                      [](const auto& h) { return h.first == "Authorization"; }),
                       call.headers.end());
    call.headers.push_back({"Authorization", peer_authorization(call.method, call.target, call.to.authority(), now, random_nonce(), token)});
}

std::optional<PeerSignature> parse_peer_authorization(const std::string& authorization) {
    if (authorization.size() > kMaxPeerAuthorization || authorization.compare(0, kScheme.size(), kScheme) != 0) return std::nullopt;
    std::vector<std::string_view> fields;
    std::string_view rest = std::string_view(authorization).substr(kScheme.size());
    for (size_t comma; fields.size() < 4; rest.remove_prefix(comma + 1)) {
        comma = rest.find(',');
        fields.push_back(rest.substr(0, comma));
        if (comma == std::string_view::npos) break;
    }
    if (fields.size() != 3) return std::nullopt;  // a field missing, or one more (a duplicate)
    const auto ts = value_of(fields[0], "ts="), nonce = value_of(fields[1], "nonce="), sig = value_of(fields[2], "sig=");
    if (!ts || !nonce || !sig || ts->size() > kMaxTsDigits || ((*ts)[0] == '0' && ts->size() > 1)) return std::nullopt;
    PeerSignature s;
    for (const char c : *ts) {
        if (c < '0' || c > '9') return std::nullopt;
        s.ts = s.ts * 10 + (c - '0');
    }
    unsigned char nonce_bytes[kNonceBytes];
    if (!bytes_of_hex(*nonce, nonce_bytes, sizeof nonce_bytes) || !bytes_of_hex(*sig, s.sig.data(), s.sig.size())) return std::nullopt;
    s.ts_text = std::string(*ts);
    s.nonce_hex = std::string(*nonce);
    return s;
}

bool peer_signature_matches(const PeerSignature& s, const HttpRequest& r, const std::string& token) {
    if (token.empty() || r.target.empty()) return false;
    const std::array<unsigned char, 32> mac = hmac_sha256(token, signed_text(r.method, r.target, r.host, s.ts_text, s.nonce_hex));
    const std::array<unsigned char, 32> zero{};
    if (CRYPTO_memcmp(mac.data(), zero.data(), mac.size()) == 0) return false;  // HMAC failed
    return CRYPTO_memcmp(mac.data(), s.sig.data(), mac.size()) == 0;
}

PeerNonces::PeerNonces(size_t capacity) : capacity_(std::max<size_t>(capacity, 1)) {}

PeerNonces::Key PeerNonces::key_of(const std::string& nonce_hex) {
    unsigned char b[kNonceBytes] = {};
    bytes_of_hex(nonce_hex, b, sizeof b);  // parsed already: always 32 hex digits
    Key k;
    for (size_t i = 0; i < 8; ++i) {
        k.hi = k.hi << 8 | b[i];
        k.lo = k.lo << 8 | b[8 + i];
    }
    return k;
}

void PeerNonces::forget_old(Clock::time_point now) {
    while (!order_.empty() && now - order_.front().first >= kNonceKept) {
        keys_.erase(order_.front().second);
        order_.pop_front();
    }
}

bool PeerNonces::seen(const std::string& nonce_hex) {
    std::lock_guard<std::mutex> lock(mutex_);
    forget_old(Clock::now());
    return keys_.count(key_of(nonce_hex)) > 0;
}

bool PeerNonces::spend(const std::string& nonce_hex) {
    const Key key = key_of(nonce_hex);
    std::lock_guard<std::mutex> lock(mutex_);
    const Clock::time_point now = Clock::now();
    forget_old(now);
    if (keys_.count(key)) return false;
    if (order_.size() >= capacity_) {
        keys_.erase(order_.front().second);
        order_.pop_front();
    }
    order_.push_back({now, key});
    keys_.insert(key);
    return true;
}

}  // namespace vf
