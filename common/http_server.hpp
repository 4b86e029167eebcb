// vfilter's HTTP endpoints (/metrics, /healthz, /readyz, the serve command's control API) on
// cpp-httplib: one handler sees every request as plain strings, so no other header includes
// httplib. Limits are set for a service left running: request bodies, read and write timeouts,
// keep-alive requests, and a fixed number of worker threads with a bounded wait list (further
// connections stay in the kernel's backlog). Binds 127.0.0.1 unless told otherwise. Every answer
// carries a content security policy that allows scripts, styles and pictures from this server
// only (no inline script), and is never cached or framed.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace vf {

struct HttpRequest {
    std::string method;         // GET, POST, PUT, DELETE, HEAD, ...
    std::string path;           // without the query
    std::string query;          // after '?', as sent (still percent-encoded)
    std::string body;
    std::string authorization;  // the Authorization header, as sent
    std::string content_type;   // of the body
    std::string host;           // the Host header, as sent
    std::string origin;         // the Origin header ("" when absent)
    std::string forwarded_by;   // X-Vfilter-Forwarded-By: the serve process that passed this on (app/fleet.hpp)
};

// Writes one piece of a body that is sent while it is made; false once the client has gone or
// the server is stopping, and the body should then end.
using HttpBodyWriter = std::function<bool(const std::string& bytes)>;

struct HttpResponse {
    int status = 200;
    std::string content_type = "text/plain; charset=utf-8";
    std::string body;
    std::vector<std::pair<std::string, std::string>> headers = {};  // beside those every answer gets
    // Set: the body is this function's writes instead of `body` (chunked), made on the worker
    // thread that answers (a multipart MJPEG stream). It returns when the body is complete.
    std::function<void(const HttpBodyWriter&)> stream = nullptr;
};

// The headers every answer carries (the content security policy and its companions).
const std::vector<std::pair<std::string, std::string>>& http_security_headers();

using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;

struct HttpServerOptions {
    std::string bind = "127.0.0.1";  // an IPv4 address
    int port = 0;                    // 0: a free port (see HttpServer::port())
    std::string option = "--metrics-port";  // the option that asked for it, for error messages
    size_t max_body_bytes = 64 * 1024;
    int timeout_s = 5;       // a client that sends or reads nothing this long is dropped
    int workers = 4;         // requests answered at once
    int waiting = 16;        // accepted connections waiting for a worker
};

class HttpServer {
public:
    // Binds and listens at once (throws Error(Usage) naming options.option when the address or
    // port cannot be used).
    HttpServer(const HttpServerOptions& options, HttpHandler handler);
    ~HttpServer();
    HttpServer(const HttpServer&) = delete;
    HttpServer& operator=(const HttpServer&) = delete;

    int port() const { return port_; }

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
    int port_ = 0;
};

// The bytes the server would send back for `request` (raw bytes as a client sent them), through
// the same parser, limits and routing as a connection: the fuzz target's entry
// (tests/fuzz/fuzz_http_request.cpp).
std::string http_answer_bytes(const std::string& request, const HttpHandler& handler, size_t max_body_bytes = 64 * 1024);

// Whether `authorization` is "Bearer TOKEN" for this token, compared in constant time.
bool bearer_token_matches(const std::string& authorization, const std::string& token);

}  // namespace vf
