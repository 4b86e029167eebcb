// Calls from one vfilter serve to another (app/serve/fleet/fleet.hpp) on Boost.Asio and Beast's parser, so
// no other header includes Boost: http://, or https:// where the server proves a certificate
// that the call's HttpsTrust trusts and that names the server (nothing is sent before), no
// redirects followed (a pod never talks to an address it was not given). A peer is read within
// bounds it cannot stretch: the whole call's time (the TLS handshake's included), the answer's
// header bytes and body bytes.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace vf {

class HttpCallStop;  // common/http_call_stop.hpp: ends calls under way from another thread

// Where a call goes: an IPv4 or IPv6 address or a host name, and a port; over HTTPS or not.
struct HttpAddress {
    std::string host;
    int port = 80;
    bool https = false;
    // HTTPS: the name the server's certificate must carry when it is not `host` (a DNS name whose
    // address `host` is); the server is also told it (SNI). Empty: `host` itself.
    std::string server_name = {};
    std::string url() const;        // http://host:port or https://host:port (IPv6 in brackets)
    std::string authority() const;  // host:port as a call's Host header names it (IPv6 in brackets)
    const std::string& certificate_name() const { return server_name.empty() ? host : server_name; }
    bool operator==(const HttpAddress& o) const { return host == o.host && port == o.port && https == o.https && server_name == o.server_name; }
    bool operator<(const HttpAddress& o) const {
        if (host != o.host) return host < o.host;
        if (port != o.port) return port < o.port;
        return https != o.https ? https < o.https : server_name < o.server_name;
    }
};

// "http://HOST[:PORT][/]" (port 80 by default) or "https://HOST[:PORT][/]" (443); false with
// *why for anything else (another scheme, a path, credentials, a bad port).
bool parse_http_address(const std::string& url, HttpAddress* address, std::string* why);

// Whom calls to https:// addresses trust: the system's certificate authorities, or only those of
// one PEM file (a fleet's private CA). Made once by its owner and shared by the calls, from any
// thread; a certificate that none of them signed, or that does not name the server, ends the
// call before its request is sent.
class HttpsTrust {
public:
    // Throws Error(Usage) naming `option` when `ca_file` cannot be read or holds no certificate.
    explicit HttpsTrust(const std::string& ca_file = "", const std::string& option = "--tls-ca");
    ~HttpsTrust();
    HttpsTrust(const HttpsTrust&) = delete;
    HttpsTrust& operator=(const HttpsTrust&) = delete;
    struct Context;  // OpenSSL's (common/http_client_connection.hpp)
    Context& context() const { return *context_; }

private:
    std::unique_ptr<Context> context_;
};

struct HttpCall {
    HttpAddress to;
    std::string method = "GET";
    std::string target = "/";  // path and query, as sent
    std::string body;
    std::string content_type;  // of the body, when there is one
    std::vector<std::pair<std::string, std::string>> headers;
    std::shared_ptr<const HttpsTrust> trust;  // an https:// address: whom its certificate must come from (none: refused)
    int connect_timeout_ms = 1000;  // TCP's connect, and then TLS's handshake, each within this
    int read_timeout_ms = 5000;    // between two reads of the answer
    int total_timeout_ms = 8000;   // connect, TLS, send, and the answer's head and body (a streamed call: up to its head)
    size_t max_body_bytes = 16 << 20;  // a whole answer's body; more: status 0 (a streamed call's body is not bounded)
};

struct HttpReply {
    int status = 0;      // 0: no answer (error says why)
    std::string error;   // "connection refused", "timed out", ...
    std::string content_type;
    std::string body;
    std::vector<std::pair<std::string, std::string>> headers;  // Retry-After and others worth passing on
};

// The whole answer. A call made with `stop` ends at once (status 0) when it is stopped.
HttpReply http_call(const HttpCall& call, HttpCallStop* stop = nullptr);

// An answer read while it comes (an MJPEG preview, live video): open() waits for the status and
// headers (within total_timeout_ms), next() hands over the body's pieces (a reader thread reads
// them; it gives up once read_timeout_ms pass without a byte). Destroying it leaves the
// connection.
class HttpStreamedCall {
public:
    // The head of the answer (body empty), or status 0 and the error when it did not come within
    // the call's timeouts; `stop` can end the wait for the head.
    static std::pair<std::unique_ptr<HttpStreamedCall>, HttpReply> open(const HttpCall& call, HttpCallStop* stop = nullptr);
    ~HttpStreamedCall();
    HttpStreamedCall(const HttpStreamedCall&) = delete;
    HttpStreamedCall& operator=(const HttpStreamedCall&) = delete;
    enum class Next { Piece, Nothing, Ended };
    // The next piece of the body; Nothing when `timeout_ms` passed without one, Ended once the
    // body is complete or the connection broke.
    Next next(std::string* piece, int timeout_ms);

private:
    struct State;
    explicit HttpStreamedCall(std::shared_ptr<State> state);
    std::shared_ptr<State> state_;
};

}  // namespace vf
