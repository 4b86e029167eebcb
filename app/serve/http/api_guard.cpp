#include "app/serve/http/api_guard.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <nlohmann/json.hpp>

#include "common/ascii.hpp"
#include "common/error.hpp"

namespace vf {
namespace {

HttpResponse refusal(int status, const std::string& why) {
    return {status, "application/json", nlohmann::json{{"error", why}}.dump(2) + "\n"};
}

// The name in a Host header, without its port ("[::1]:8080" -> "::1").
std::string host_name_of(const std::string& host) {
    if (!host.empty() && host[0] == '[') return ascii_lower(host.substr(1, host.find(']') - 1));
    return ascii_lower(host.substr(0, host.find(':')));
}

bool ipv4_literal(const std::string& name, in_addr* a) { return inet_pton(AF_INET, name.c_str(), a) == 1; }

bool is_write(const std::string& method) { return method == "POST" || method == "PUT" || method == "DELETE" || method == "PATCH"; }

// Paths that need a token when serve has one: everything that shows or changes streams.
bool guarded_path(const std::string& path) {
    return path == "/streams" || path.rfind("/streams/", 0) == 0 || path == "/live" || path == "/fleet/shard" || path == "/events" ||
           path.rfind("/events/", 0) == 0;
}

}  // namespace

bool is_probe_path(const std::string& path) { return path == "/healthz" || path == "/readyz"; }

ApiGuard::ApiGuard(ApiGuardOptions options) : o_(std::move(options)) {
    for (std::string& h : o_.hosts) h = ascii_lower(h);
}

bool ApiGuard::host_is_ours(const std::string& host) const {
    if (host.empty()) return true;  // HTTP/1.0 without Host: no browser sends that
    const std::string name = host_name_of(host);
    if (std::find(o_.hosts.begin(), o_.hosts.end(), name) != o_.hosts.end()) return true;
    in_addr bound{}, asked{};
    const bool bound_loopback = ipv4_literal(o_.bind, &bound) && (ntohl(bound.s_addr) >> 24) == 127;
    if (bound_loopback && (name == "localhost" || name == "::1")) return true;
    if (!ipv4_literal(name, &asked)) return false;  // a name nobody gave: a rebinding page's
    if (bound.s_addr == htonl(INADDR_ANY)) return true;  // any address of this machine
    if (bound_loopback) return (ntohl(asked.s_addr) >> 24) == 127;
    return asked.s_addr == bound.s_addr;
}

ApiRole ApiGuard::role(const HttpRequest& r, PeerNonce nonce) const {
    if (o_.admin_token.empty()) return ApiRole::Admin;
    if (bearer_token_matches(r.authorization, o_.admin_token)) return ApiRole::Admin;
    if (!o_.viewer_token.empty() && bearer_token_matches(r.authorization, o_.viewer_token)) return ApiRole::Viewer;
    if (signed_by_peer(r, nonce)) return ApiRole::Admin;
    return ApiRole::None;
}

// Only the admin token signs: a shard holding the viewer token alone is no shard of this fleet.
bool ApiGuard::signed_by_peer(const HttpRequest& r, PeerNonce nonce) const {
    const std::optional<PeerSignature> s = parse_peer_authorization(r.authorization);
    if (!s) return false;
    const int64_t now = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
    if (s->ts < now - kPeerClockSkew.count() || s->ts > now + kPeerClockSkew.count()) return false;
    // The signature before the nonce: only calls signed with the admin token are recorded.
    if (!peer_signature_matches(*s, r, o_.admin_token)) return false;
    return nonce == PeerNonce::Spend ? nonces_.spend(s->nonce_hex) : !nonces_.seen(s->nonce_hex);
}

std::optional<HttpResponse> ApiGuard::screen(const HttpRequest& r, PeerNonce nonce) const {
    if (is_probe_path(r.path)) return std::nullopt;
    if (!host_is_ours(r.host))
        return refusal(403, "Host '" + host_name_of(r.host) + "' is not a name of this server (the serve: block's api-hosts adds one)");
    // A browser names the page's origin on every write; this server's page is "http://" + Host.
    if (is_write(r.method) && !r.origin.empty() && ascii_lower(r.origin) != "http://" + ascii_lower(r.host) &&
        ascii_lower(r.origin) != "https://" + ascii_lower(r.host))
        return refusal(403, "a page of another site (Origin " + r.origin.substr(0, 200) + ") may not change this service");
    if (guarded_path(r.path)) {
        const ApiRole who = role(r, nonce);
        if (who == ApiRole::None)
            return refusal(401, "this API needs \"Authorization: Bearer TOKEN\" (the admin or viewer token of vfilter serve)");
        if (is_write(r.method) && who != ApiRole::Admin) return refusal(403, "the viewer token may look, not change: use the admin token");
    }
    // A form or a text/plain fetch needs no preflight: only a JSON body is taken.
    const std::string type = ascii_lower(r.content_type.substr(0, r.content_type.find(';')));
    if ((r.method == "POST" || r.method == "PUT" || r.method == "PATCH") && type != "application/json")
        return refusal(415, r.method + " takes a JSON body with Content-Type: application/json");
    return std::nullopt;
}

void check_token(const std::string& token, const std::string& option) {
    if (token.size() < 16) fail(ErrorCategory::Usage, option + ": a token needs at least 16 characters");
    if (token.size() > 1024) fail(ErrorCategory::Usage, option + ": a token of at most 1024 characters");
    for (const char c : token)
        if (std::isspace(static_cast<unsigned char>(c)) || std::iscntrl(static_cast<unsigned char>(c)))
            fail(ErrorCategory::Usage, option + ": a token holds no blanks or control characters");
}

std::string read_token_file(const std::string& path, const std::string& option) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) fail(ErrorCategory::Usage, option + " '" + path + "': cannot be read");
    std::string text(4097, '\0');
    const ssize_t n = ::read(fd, text.data(), text.size());
    ::close(fd);
    if (n < 0 || n > 4096) fail(ErrorCategory::Usage, option + " '" + path + "': not a token file (at most 4 KiB)");
    text.resize(static_cast<size_t>(n));
    text = text.substr(0, text.find('\n'));
    if (!text.empty() && text.back() == '\r') text.pop_back();
    check_token(text, option + " '" + path + "'");
    return text;
}

}  // namespace vf
