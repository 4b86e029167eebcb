#include "common/http_connection.hpp"

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <chrono>

#include "common/http_worker_answer.hpp"

namespace vf::http {
namespace {

namespace net = boost::asio;
using tcp = net::ip::tcp;

constexpr size_t kReadChunk = 16 * 1024;
// After a refusal the client may still be sending what it announced. Closing with unread bytes
// makes the kernel send a reset, which can destroy the answer before the client reads it; so
// the server stops sending, reads and drops a little more, then closes.
constexpr size_t kLingerBytes = 256 * 1024;
constexpr std::chrono::milliseconds kLingerTime{1000};
// The longest a closing HTTPS connection waits for the client's close_notify after its own.
constexpr std::chrono::milliseconds kCloseNotifyTime{1000};

// A TLS connection's first byte is a record's type, 22 for a handshake; a letter starts a
// plain HTTP request (GET, POST, ...), answered in plain text since it cannot read TLS.
bool looks_like_plain_http(unsigned char first) { return first >= 'A' && first <= 'Z'; }

HttpResponse plain_http_refusal() {
    return {400, "text/plain; charset=utf-8", "400 Bad Request: this port speaks HTTPS only\n"};
}

}  // namespace

Connection::Connection(tcp::socket socket, ConnectionHost& host)
    : host_(host), options_(host.options()), stream_(std::move(socket)) {}

void Connection::start() {
    boost::beast::error_code ec;
    const tcp::endpoint remote = stream_.socket().remote_endpoint(ec);
    if (!ec) peer_ = remote.address().to_string();
    // An answer's head and body may go out as two writes (a streamed body always does): without
    // this, Nagle holds the second back until the client acknowledges the first, which a
    // client's delayed ACK makes 40 ms.
    stream_.socket().set_option(tcp::no_delay(true), ec);
    if (!host_.tls()) return next_request();
    // The handshake is read as a request's first bytes are (read_more), then handed to TLS.
    handshake_due_ = true;
    deadline_ = std::chrono::steady_clock::now() + std::chrono::seconds(options_.timeout_s);
    read_more();
}

void Connection::handshake() {
    handshake_due_ = false;
    if (looks_like_plain_http(static_cast<const unsigned char*>(in_.data().data())[0])) return refuse(plain_http_refusal());
    // The whole handshake within the deadline that started with its first byte (read_more).
    stream_.tcp().expires_at(deadline_);
    stream_.accept_tls(*host_.tls(), in_.data(), [self = shared_from_this()](boost::beast::error_code ec, size_t used) {
        if (ec || self->closed_) return self->close();
        self->in_.consume(used);
        // A client sends nothing between its hello and the server's answer to it: bytes that
        // TLS did not take are not a client's.
        if (self->in_.size() > 0) return self->close();
        self->next_request();
    });
}

void Connection::close() {
    if (closed_) return;
    closed_ = true;
    stream_.close();
    host_.forget(this);  // the last owner may be the handler that called this: it still holds one
}

void Connection::next_request() {
    if (closed_) return;
    if (host_.stopping()) return close();
    reader_.emplace(options_);
    started_ = in_.size() > 0;  // a pipelined request's first bytes are here already
    const auto now = std::chrono::steady_clock::now();
    deadline_ = started_ ? now + std::chrono::milliseconds(options_.request_deadline_ms) : now + std::chrono::seconds(options_.timeout_s);
    if (started_) return advance();
    read_more();
}

void Connection::read_more() {
    // Every read of one request shares its deadline (a write in between, such as 100 Continue,
    // has its own).
    stream_.tcp().expires_at(deadline_);
    // What waits in in_ is less than max_header_bytes (the reader refuses a head, a chunk's line or
    // trailers that long), so in_ never holds more than that and one read.
    stream_.async_read_some(in_.prepare(kReadChunk), [self = shared_from_this()](boost::beast::error_code ec, size_t n) {
        if (ec || self->closed_) return self->close();  // gone, broken, or past its deadline
        self->in_.commit(n);
        if (!self->started_) {
            // The whole request must arrive within the deadline from its first byte, however
            // slowly each byte comes.
            self->started_ = true;
            self->deadline_ = std::chrono::steady_clock::now() + std::chrono::milliseconds(self->options_.request_deadline_ms);
        }
        if (self->handshake_due_) return self->handshake();
        self->advance();
    });
}

void Connection::advance() {
    for (;;) {
        size_t used = 0;
        const RequestReader::Step step = reader_->put(static_cast<const char*>(in_.data().data()), in_.size(), &used);
        in_.consume(used);
        switch (step) {
        case RequestReader::Step::NeedMore: return read_more();
        case RequestReader::Step::Head:
            if (!on_head()) return;
            break;
        case RequestReader::Step::Complete: return on_complete();
        case RequestReader::Step::Refused: return refuse(error_answer(reader_->refusal()));
        }
    }
}

bool Connection::on_head() {
    shape_ = AnswerShape{reader_->head_method(), !reader_->keep_alive(), reader_->http10() && reader_->keep_alive()};
    std::optional<HttpResponse> refused = reader_->admit(reader_->request(peer_));
    if (refused) {
        // A body announced and not read cannot be told apart from the next request: close.
        if (reader_->body_announced()) refuse(*refused);
        else answer(*refused);
        return false;
    }
    if (reader_->body_announced() && reader_->expects_continue()) {
        send(kContinue, &Connection::advance);
        return false;
    }
    return true;
}

void Connection::on_complete() {
    HttpRequest request = reader_->request(peer_);
    const auto& inline_paths = options_.inline_paths;
    if (std::find(inline_paths.begin(), inline_paths.end(), request.path) != inline_paths.end())
        return answer_made(call_handler(host_.handler(), request));
    if (!host_.run_on_worker(answer_on_worker(weak_from_this(), host_, std::move(request), shape_))) answer(busy_answer());
}

void Connection::answer_made(HttpResponse response) {
    if (response.deferred) return start_deferred(weak_from_this(), host_, std::move(response.deferred));
    if (!response.stream || shape_.head_only) return answer(response, response.stream != nullptr);
    // A streamed answer holds a worker while it lasts, even for a path answered here.
    if (!host_.run_on_worker(stream_on_worker(weak_from_this(), host_, std::move(response), shape_))) answer(busy_answer());
}

void Connection::deliver(HttpResponse response, bool chunked_head) {
    if (!closed_) answer(response, chunked_head);
}

void Connection::deliver_late(HttpResponse response) {
    if (!closed_) answer_made(std::move(response));
}

void Connection::answer(const HttpResponse& response, bool chunked_head) {
    AnswerShape shape = shape_;
    shape.close = shape.close || host_.stopping();
    std::string bytes = chunked_head ? answer_head(response, shape, true) : answer_bytes(response, shape);
    send(std::move(bytes), shape.close ? &Connection::finish : &Connection::next_request);
}

void Connection::refuse(const HttpResponse& response) {
    AnswerShape shape = shape_;
    shape.close = true;
    send(answer_bytes(response, shape), &Connection::linger);
}

void Connection::send(std::string bytes, Then then) {
    if (closed_) return;
    out_ = std::move(bytes);
    stream_.tcp().expires_after(std::chrono::seconds(options_.timeout_s));
    stream_.async_write(net::buffer(out_), [self = shared_from_this(), then](boost::beast::error_code ec, size_t) {
        if (ec || self->closed_) return self->close();
        ((*self).*then)();
    });
}

void Connection::finish() {
    if (closed_) return;
    // HTTPS says close_notify, so that the client can tell the end from a cut; a client that
    // does not answer it holds its place no longer than this.
    stream_.tcp().expires_after(std::min<std::chrono::milliseconds>(kCloseNotifyTime, std::chrono::seconds(options_.timeout_s)));
    stream_.async_shutdown([self = shared_from_this()](boost::beast::error_code) { self->close(); });
}

void Connection::linger() {
    boost::beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
    in_.consume(in_.size());
    lingered_ = 0;
    stream_.tcp().expires_after(std::min<std::chrono::milliseconds>(kLingerTime, std::chrono::seconds(options_.timeout_s)));
    linger_read();
}

void Connection::linger_read() {
    stream_.async_read_some(in_.prepare(kReadChunk), [self = shared_from_this()](boost::beast::error_code ec, size_t n) {
        self->lingered_ += n;
        if (ec || self->closed_ || self->lingered_ >= kLingerBytes) return self->close();
        self->in_.commit(n);
        self->in_.consume(self->in_.size());
        self->linger_read();
    });
}

void Connection::write_for_stream(std::string bytes, std::function<void(bool)> done) {
    if (closed_ || host_.stopping() || !peer_still_there()) {
        close();
        return done(false);
    }
    if (bytes.empty()) return done(true);
    out_ = std::move(bytes);
    stream_.tcp().expires_after(std::chrono::seconds(options_.timeout_s));
    stream_.async_write(net::buffer(out_), [self = shared_from_this(), done = std::move(done)](boost::beast::error_code ec, size_t) {
        if (ec) self->close();
        done(!ec && !self->closed_);
    });
}

void Connection::stream_ended(bool ok) {
    if (closed_) return;
    if (!ok || shape_.close || host_.stopping()) return finish();
    next_request();
}

bool Connection::peer_still_there() {
    // No read waits while an answer streams: a peek tells whether the client closed its side
    // (as nginx does, a client that stops sending is taken to have left).
    char byte;
    const ssize_t n = ::recv(stream_.socket().native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    return n > 0 || (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR));
}

}  // namespace vf::http
