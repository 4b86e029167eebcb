// The fleet's coordination store: etcd (v3.4 or later), reached through its JSON gateway
// (POST /v3/kv/..., /v3/lease/...) with the fleet's HTTP client (common/http_client.hpp), so
// that serve needs no gRPC. Only what shard ownership needs: leases (grant, keep alive, revoke),
// keys (put, read by prefix, delete). Every call has its time bound; an etcd that does not answer
// in time makes the call fail, it never holds the caller longer. With several members, a call
// goes to the one that answered last and tries the others in turn when it does not answer. A call
// that failed for want of an answer may still take effect later (its request reached etcd late):
// callers write only what is right to write again.
#pragma once

#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/http_client.hpp"

namespace vf {

// No member of the store answered (status 0 or a 5xx), or one answered with an error of its own.
// `reached` tells the two apart: false when no member could be reached at all.
class StoreError : public std::runtime_error {
public:
    StoreError(const std::string& what, bool reached) : std::runtime_error(what), reached_(reached) {}
    bool reached() const { return reached_; }

private:
    bool reached_;
};

struct StoreEntry {
    std::string key;
    std::string value;
    int64_t lease = 0;  // 0: none
};

class EtcdStore {
public:
    // "http://HOST:PORT[,http://HOST:PORT...]" (a member's client URL each, as etcd's own
    // --endpoints). Throws Error(Usage) naming `option` for anything else (https is not taken: the
    // gateway's TLS client certificates are not supported by this client).
    static std::vector<HttpAddress> parse_endpoints(const std::string& text, const std::string& option = "--store");

    // `call_timeout_ms`: each call's whole time, connect included, per member tried.
    explicit EtcdStore(std::vector<HttpAddress> members, int call_timeout_ms = 1000);

    // A new lease of `ttl_s` seconds: its ID.
    int64_t grant_lease(int ttl_s);
    // Renews `lease`: the seconds it has left now, 0 when it has expired or was revoked.
    int64_t keep_alive(int64_t lease);
    // Ends `lease` at once: its keys go.
    void revoke_lease(int64_t lease);
    // Writes key = value, bound to `lease` when not 0 (the key goes when the lease ends).
    void put(const std::string& key, const std::string& value, int64_t lease = 0);
    // Every key that starts with `prefix`, with its value and lease, in key order (at most `limit`).
    std::vector<StoreEntry> read_prefix(const std::string& prefix, int64_t limit = 10000);
    void remove(const std::string& key);
    // Writes key = value (bound to `lease`) only where the key does not exist: false when it does.
    bool create(const std::string& key, const std::string& value, int64_t lease = 0);
    // Deletes the key only while it holds `value`: false when it holds another or none.
    bool remove_if(const std::string& key, const std::string& value);
    // Writes key = value (bound to `lease`) only while it holds `expected`: false when it holds another or none.
    bool replace_if(const std::string& key, const std::string& expected, const std::string& value, int64_t lease = 0);

    const std::vector<HttpAddress>& members() const { return members_; }

private:
    std::string call(const std::string& path, const std::string& json_body);

    std::vector<HttpAddress> members_;
    int call_timeout_ms_;
    std::mutex mutex_;
    size_t preferred_ = 0;  // the member that answered last
};

}  // namespace vf
