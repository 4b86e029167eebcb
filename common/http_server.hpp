// vfilter's HTTP endpoints (/metrics, /healthz, /readyz, the serve command's control API) on
// Boost.Beast's parser and Boost.Asio: one handler sees every request as plain strings, so no
// other header includes Boost. Every reader from outside is bounded before anything is
// authorised: the head's bytes, the whole request's time from its first byte, the body's bytes
// (chunked or not), the connections open at once, and the requests waiting for a worker (more
// get 503 at once). One I/O thread reads, screens and writes for every connection; a fixed pool
// of workers runs the handler, whose answer may also come later from another thread without
// holding a worker (HttpResponse::deferred). With a certificate and its key the port speaks HTTPS
// only (TLS 1.2 and later, common/tls_context.hpp), its handshake bounded as a request is and
// counted among the connections. Binds 127.0.0.1 unless told otherwise. Every answer carries a
// content security policy that allows scripts, styles and pictures from this server only (no
// inline script), and is never cached or framed.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace vf {

struct HttpRequest {
    std::string method;         // GET, POST, PUT, DELETE, HEAD, ...
    std::string path;           // without the query, percent-decoded
    std::string query;          // after '?', as sent (still percent-encoded)
    std::string target;         // the request target as sent: path and query, still percent-encoded
    std::string body;
    std::string authorization;  // the Authorization header, as sent
    std::string content_type;   // of the body
    std::string forwarded_by;   // X-Vfilter-Forwarded-By: the serve process that passed this on (app/serve/fleet/fleet.hpp)
    std::string host;           // the Host header, as sent
    std::string origin;         // the Origin header ("" when absent)
    std::string last_event_id;  // Last-Event-ID: where a Server-Sent Events reader that reconnects was ("" when absent)
    std::string peer;           // the client's IP address, as text
};

// Writes one piece of a body that is sent while it is made; false once the client has gone or
// the server is stopping, and the body should then end. An empty piece sends nothing and says
// whether the client is still there.
using HttpBodyWriter = std::function<bool(const std::string& bytes)>;

class HttpCompletion;

struct HttpResponse {
    int status = 200;
    std::string content_type = "text/plain; charset=utf-8";
    std::string body;
    std::vector<std::pair<std::string, std::string>> headers = {};  // beside those every answer gets
    // Set: the body is this function's writes instead of `body` (chunked), made on the worker
    // thread that answers (a multipart MJPEG stream). It returns when the body is complete.
    std::function<void(const HttpBodyWriter&)> stream = nullptr;
    // Set: the answer comes later, and no worker waits for it (a request passed to another
    // server). Called once the handler has returned, instead of sending this answer, it starts
    // the work elsewhere and returns at once; the work ends by calling the completion with the
    // answer, which may stream (its body then takes a worker while it lasts).
    std::function<void(HttpCompletion)> deferred = nullptr;
};

// Ends a deferred answer (HttpResponse::deferred): call it once, from any thread; later calls do
// nothing. Always harmless: the answer is dropped when its client has left or the server is
// stopping or gone. When every copy has gone uncalled, the client gets 503, so a deferred answer
// always ends.
class HttpCompletion {
public:
    // deliver: where the answer goes; called once, from the thread that completes.
    explicit HttpCompletion(std::function<void(HttpResponse)> deliver);
    void operator()(HttpResponse answer) const;

private:
    struct State;
    std::shared_ptr<State> state_;
};

// The headers every answer carries (the content security policy and its companions).
const std::vector<std::pair<std::string, std::string>>& http_security_headers();

using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;

struct HttpServerOptions {
    std::string bind = "127.0.0.1";  // an IPv4 address
    int port = 0;                    // 0: a free port (see HttpServer::port())
    std::string option = "--metrics-port";  // the option that asked for it, for error messages
    size_t max_body_bytes = 64 * 1024;      // Content-Length or chunked; more: 413 and the connection closed
    size_t max_header_bytes = 8 * 1024;     // request line and headers; more: 431 (414 for the line alone)
    int request_deadline_ms = 10000;  // the whole request (line, headers, body) arrives within this of its first byte
    int timeout_s = 5;                // an idle keep-alive connection is closed, and an answer's write given up, after this
    int workers = 4;                  // handler calls at once (a streamed answer holds one while it lasts)
    int waiting = 16;                 // requests waiting for a worker; more get 503 with Retry-After
    int max_connections = 256;        // open connections from all clients; more are closed at once
    // Called on the I/O thread once a request's line and headers arrived, before its body is read
    // (head.body is empty): a response returned refuses the request, whose body is then never
    // read. Must not block.
    std::function<std::optional<HttpResponse>(const HttpRequest& head)> screen = nullptr;
    // Paths (exact) answered by the handler on the I/O thread, never waiting for a worker: probes
    // such as /healthz answer while every worker is busy. Their handler must not block.
    std::vector<std::string> inline_paths = {};
    // PEM files, both or neither: the port then speaks HTTPS only. The certificate file holds
    // the server's certificate and, after it, any intermediate CA's. Errors name them as
    // --tls-cert and --tls-key and never quote the key file.
    std::string tls_cert_file, tls_key_file;
};

class HttpServer {
public:
    // Reads the TLS files, binds and listens at once (throws Error(Usage) naming options.option
    // when the address or port cannot be used, or the TLS file that cannot be used).
    HttpServer(const HttpServerOptions& options, HttpHandler handler);
    // Closes every connection; streamed answers end at their next write; returns once every
    // thread has finished.
    ~HttpServer();
    HttpServer(const HttpServer&) = delete;
    HttpServer& operator=(const HttpServer&) = delete;

    int port() const { return port_; }
    bool https() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
    int port_ = 0;
};

// The bytes the server would send back for `request` (raw bytes as a client sent them), through
// the same parser, limits, screen and routing as a connection: "" (no whole request) or one
// HTTP/1.1 answer. The fuzz target's entry (tests/fuzz/fuzz_http_request.cpp).
std::string http_answer_bytes(const std::string& request, const HttpHandler& handler, size_t max_body_bytes = 64 * 1024);
std::string http_answer_bytes(const std::string& request, const HttpHandler& handler, const HttpServerOptions& options);

// Whether `authorization` is "Bearer TOKEN" for this token, compared in constant time.
bool bearer_token_matches(const std::string& authorization, const std::string& token);

}  // namespace vf
