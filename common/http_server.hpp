// vfilter's HTTP endpoints (/metrics, /healthz, /readyz, the serve command's control API) on
// cpp-httplib: one handler sees every request as plain strings, so no other header includes
// httplib. Limits are set for a service left running: request bodies, read and write timeouts,
// keep-alive requests, and a fixed number of worker threads with a bounded wait list (further
// connections stay in the kernel's backlog). Binds 127.0.0.1 unless told otherwise.
#pragma once

#include <functional>
#include <memory>
#include <string>

namespace vf {

struct HttpRequest {
    std::string method;         // GET, POST, PUT, DELETE, HEAD, ...
    std::string path;           // without the query
    std::string body;
    std::string authorization;  // the Authorization header, as sent
};

struct HttpResponse {
    int status = 200;
    std::string content_type = "text/plain; charset=utf-8";
    std::string body;
};

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
