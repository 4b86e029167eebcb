// Who may do what through serve's HTTP server, decided from a request's head alone (before its body
// is read): the Host it names, the page it came from, its content type and its token.
// - Host: the bound address, a name given in the serve: block's api-hosts, or (bound to loopback) localhost; any
//   other name is a DNS-rebinding page's and is refused (403).
// - Writes (POST, PUT, DELETE, PATCH): an Origin, when sent, is this server's own, and a body is
//   application/json, so a page of another site cannot drive the service from the operator's
//   browser (a form or a text/plain fetch needs neither a preflight nor a token).
// - Tokens: the admin token may change streams; the viewer token may only look (the page's lists,
//   live video, snapshots, the fleet's list, the events). Without tokens (loopback only) every local client is
//   the admin. Another shard of the fleet signs its calls with the admin token instead of sending
//   it (app/serve/fleet/peer_auth.hpp): a valid signature is the admin; one made with the viewer token is
//   nothing.
// The probes (/healthz, /readyz) pass everything: they must answer a load balancer by any name.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "app/serve/fleet/peer_auth.hpp"
#include "common/http_server.hpp"

namespace vf {

enum class ApiRole { None, Viewer, Admin };

// What a check does with a signed peer call's nonce. A request is screened twice: its head by the
// server before the body is read (Check: refused when the nonce was taken already), then whole
// by ControlApi::answer, which every door of the API passes exactly once (Spend: taken now,
// refused when taken already). Taking it on the second check only lets the head's screen run
// without making the same request's answer look like its own replay.
enum class PeerNonce { Check, Spend };

struct ApiGuardOptions {
    std::string admin_token;           // empty: no tokens at all (loopback only: serve_command.cpp)
    std::string viewer_token;          // empty: the admin token is the only one
    std::string bind = "127.0.0.1";    // the address the server listens on
    std::vector<std::string> hosts;    // serve: api-hosts: further names of this server
};

class ApiGuard {
public:
    explicit ApiGuard(ApiGuardOptions options);
    // A refusal (403, 415, 401) for a request whose head shows it may not go on; nullopt when it may.
    std::optional<HttpResponse> screen(const HttpRequest& request, PeerNonce nonce) const;
    ApiRole role(const HttpRequest& request, PeerNonce nonce) const;
    bool needs_tokens() const { return !o_.admin_token.empty(); }

private:
    bool host_is_ours(const std::string& host) const;
    bool signed_by_peer(const HttpRequest& request, PeerNonce nonce) const;
    ApiGuardOptions o_;
    mutable PeerNonces nonces_;  // what a check has seen, not what the guard allows: const checks record
};

// A token as serve takes it: at least 16 characters, none of them blank or a control character.
// Throws Error(Usage) naming `option` otherwise.
void check_token(const std::string& token, const std::string& option);

// The token held by `path` (its first line; at most 4 KiB read), for --api-token-file: a systemd
// credential or a Kubernetes Secret's file. Throws Error(Usage) naming `option`.
std::string read_token_file(const std::string& path, const std::string& option);

// Whether a path is one of the API's probes, answered to anyone.
bool is_probe_path(const std::string& path);

}  // namespace vf
