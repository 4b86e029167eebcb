// One client's connection to the HTTP server, driven by the server's I/O thread: reads a
// request within the limits (common/http_request_reader.hpp), screens its head before the body,
// answers probes on the spot, hands the rest to a worker and writes what the worker answers.
// Every wait has a deadline: the next request's first byte (timeout_s), the whole request from
// that byte (request_deadline_ms), each write (timeout_s). On an HTTPS server the TLS handshake
// comes first, under the same deadlines as a request: its first byte within timeout_s of the
// connection, the whole handshake within request_deadline_ms of that byte. Internal to common/.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/beast/core/flat_buffer.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "common/http_byte_stream.hpp"
#include "common/http_request_reader.hpp"
#include "common/http_server.hpp"
#include "common/http_wire.hpp"

namespace vf::http {

class Connection;
class LateAnswerGate;

// What a connection needs of its server (HttpServer's Impl).
class ConnectionHost {
public:
    virtual const HttpServerOptions& options() const = 0;
    virtual const HttpHandler& handler() const = 0;
    virtual bool stopping() const = 0;
    virtual boost::asio::any_io_executor executor() = 0;
    // The server's TLS context: every connection speaks HTTPS only. Null: plain HTTP.
    virtual boost::asio::ssl::context* tls() = 0;
    // Runs `task` on a worker; false when the workers and their wait list are full.
    virtual bool run_on_worker(std::function<void()> task) = 0;
    // The way a deferred answer comes back to the I/O thread (any thread).
    virtual std::shared_ptr<LateAnswerGate> late_answers() = 0;
    // The connection has closed: the server lets go of it (I/O thread).
    virtual void forget(Connection* connection) = 0;

protected:
    ~ConnectionHost() = default;
};

class Connection : public std::enable_shared_from_this<Connection> {
public:
    Connection(boost::asio::ip::tcp::socket socket, ConnectionHost& host);
    void start();
    // Ends the connection now; a write under way fails (I/O thread, as every call here).
    void close();

    // A worker's answer, not streamed (chunked_head: a HEAD request's answer that would stream).
    void deliver(HttpResponse answer, bool chunked_head);
    // A deferred answer: written, or its body streamed by a worker.
    void deliver_late(HttpResponse answer);
    // Writes bytes of a streamed answer for its worker, then calls done(whether they were
    // written); empty bytes only check that the client is still there.
    void write_for_stream(std::string bytes, std::function<void(bool)> done);
    // The streamed answer has ended (ok: completely written): the next request, or close.
    void stream_ended(bool ok);

private:
    using Then = void (Connection::*)();
    void next_request();
    void read_more();
    void handshake();  // the client's first bytes are here: TLS, or a refusal of plain HTTP
    void advance();  // feeds what was read to the request reader and acts on its step
    bool on_head();  // false: answered or refused already, or waiting to say 100 Continue
    void on_complete();
    void answer_made(HttpResponse response);  // made on this thread, or deferred: written, streamed or started
    void answer(const HttpResponse& response, bool chunked_head = false);
    void refuse(const HttpResponse& response);  // answers, then closes without reading the rest
    void send(std::string bytes, Then then);
    void finish();  // closes after an answer
    void linger();
    void linger_read();
    bool peer_still_there();

    ConnectionHost& host_;
    const HttpServerOptions& options_;
    ByteStream stream_;
    std::string peer_;
    boost::beast::flat_buffer in_;
    std::optional<RequestReader> reader_;
    AnswerShape shape_;  // of the request being answered
    std::string out_;    // the bytes being written
    size_t lingered_ = 0;
    bool handshake_due_ = false;  // an HTTPS connection before its handshake
    bool started_ = false;  // a byte of the current request (or handshake) arrived (its deadline runs)
    std::chrono::steady_clock::time_point deadline_;  // for the next read: idle, or the request's
    bool closed_ = false;
};

}  // namespace vf::http
