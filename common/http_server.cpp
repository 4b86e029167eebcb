#include "common/http_server.hpp"

#include <arpa/inet.h>
#include <sys/socket.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <algorithm>
#include <atomic>
#include <future>
#include <thread>
#include <unordered_map>

#include <spdlog/spdlog.h>

#include "common/error.hpp"
#include "common/http_connection.hpp"
#include "common/http_worker_answer.hpp"
#include "common/http_worker_pool.hpp"
#include "common/thread_name.hpp"
#include "common/tls_context.hpp"

namespace vf {
namespace {

namespace net = boost::asio;
using tcp = net::ip::tcp;

// The answer to a connection over max_connections, written without waiting (it may be lost:
// the connection is closed at once either way).
std::string over_capacity_bytes() {
    http::AnswerShape shape;
    shape.close = true;
    return http::answer_bytes(http::busy_answer(), shape);
}

// The options as the server uses them: a limit that would refuse everything, or a time that
// would expire at once, is raised to the least that works.
HttpServerOptions usable(HttpServerOptions o) {
    o.timeout_s = std::max(o.timeout_s, 1);
    o.request_deadline_ms = std::max(o.request_deadline_ms, 1);
    o.workers = std::max(o.workers, 1);
    o.waiting = std::max(o.waiting, 0);
    o.max_connections = std::max(o.max_connections, 1);
    o.max_header_bytes = std::max<size_t>(o.max_header_bytes, 256);
    return o;
}

// The server's TLS context, or null for plain HTTP.
std::unique_ptr<net::ssl::context> tls_of(const HttpServerOptions& o) {
    if (o.tls_cert_file.empty() && o.tls_key_file.empty()) return nullptr;
    if (o.tls_cert_file.empty() || o.tls_key_file.empty())
        fail(ErrorCategory::Usage, std::string(http::kTlsCertOption) + " and " + http::kTlsKeyOption + " go together: give both, or neither");
    return http::server_tls_context(o.tls_cert_file, o.tls_key_file);
}

}  // namespace

const std::vector<std::pair<std::string, std::string>>& http_security_headers() {
    static const std::vector<std::pair<std::string, std::string>> headers = {
        {"Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob:; media-src blob:; "
                                    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"},
        {"X-Content-Type-Options", "nosniff"},
        {"Referrer-Policy", "no-referrer"},
        {"X-Frame-Options", "DENY"},
        {"Cache-Control", "no-store"},
    };
    return headers;
}

// The I/O thread's io_context with the listening socket and every open connection (touched on
// the I/O thread only), and the workers.
struct HttpServer::Impl final : http::ConnectionHost {
    Impl(const HttpServerOptions& o, HttpHandler h)
        : options_(usable(o)), handler_(std::move(h)), tls_(tls_of(options_)), pool_(options_.workers, options_.waiting) {}

    const HttpServerOptions& options() const override { return options_; }
    const HttpHandler& handler() const override { return handler_; }
    bool stopping() const override { return stopping_.load(); }
    net::any_io_executor executor() override { return io_.get_executor(); }
    net::ssl::context* tls() override { return tls_.get(); }
    bool run_on_worker(std::function<void()> task) override { return pool_.try_run(std::move(task)); }
    std::shared_ptr<http::LateAnswerGate> late_answers() override { return late_answers_; }
    void forget(http::Connection* c) override { connections_.erase(c); }

    int bind_and_listen();
    void start();
    void accept();
    void take(tcp::socket socket);
    void stop();

    const HttpServerOptions options_;
    const HttpHandler handler_;
    // Made before any thread starts; every connection's TLS state is made from it.
    const std::unique_ptr<net::ssl::context> tls_;
    const std::string over_capacity_ = over_capacity_bytes();
    std::atomic<bool> stopping_{false};
    net::io_context io_{1};
    // Keeps run() going until the workers are gone: their last posts must still run.
    net::executor_work_guard<net::io_context::executor_type> work_ = net::make_work_guard(io_);
    // Shared with every deferred answer's completion, which may come after the server is gone.
    const std::shared_ptr<http::LateAnswerGate> late_answers_ = std::make_shared<http::LateAnswerGate>(io_.get_executor());
    tcp::acceptor acceptor_{io_};
    net::steady_timer retry_{io_};
    std::unordered_map<http::Connection*, std::shared_ptr<http::Connection>> connections_;
    http::WorkerPool pool_;
    std::thread thread_;
};

int HttpServer::Impl::bind_and_listen() {
    const HttpServerOptions& o = options_;
    boost::system::error_code ec;
    const net::ip::address_v4 address = net::ip::make_address_v4(o.bind, ec);
    in_addr probe{};
    if (ec || inet_pton(AF_INET, o.bind.c_str(), &probe) != 1)
        fail(ErrorCategory::Usage, "address '" + o.bind + "' for " + o.option + ": expected an IPv4 address such as 127.0.0.1 or 0.0.0.0");
    if (o.port < 0 || o.port > 65535) fail(ErrorCategory::Usage, o.option + " must be in 0..65535");
    const tcp::endpoint at(address, static_cast<unsigned short>(o.port));
    acceptor_.open(at.protocol(), ec);
    // SO_REUSEADDR only: SO_REUSEPORT would let a second process share the port silently
    // instead of failing.
    if (!ec) acceptor_.set_option(tcp::acceptor::reuse_address(true), ec);
    if (!ec) acceptor_.bind(at, ec);
    if (!ec) acceptor_.listen(net::socket_base::max_listen_connections, ec);
    if (ec)
        fail(ErrorCategory::Usage, "cannot serve on " + o.bind + ":" + std::to_string(o.port) + " (" + o.option +
                                       "): the port is in use or not allowed");
    return acceptor_.local_endpoint().port();
}

void HttpServer::Impl::start() {
    accept();
    thread_ = std::thread([this] {
        name_this_thread("vf-http-io");
        for (;;) {
            try {
                io_.run();
                return;
            } catch (const std::exception& e) {
                spdlog::error("HTTP server ({}): {}", options_.option, e.what());
            }
        }
    });
}

void HttpServer::Impl::accept() {
    acceptor_.async_accept(io_, [this](boost::system::error_code ec, tcp::socket socket) {
        if (stopping() || ec == net::error::operation_aborted) return;
        if (!ec) {
            take(std::move(socket));
            return accept();
        }
        // Out of file descriptors and the like: try again shortly rather than spin.
        retry_.expires_after(std::chrono::milliseconds(50));
        retry_.async_wait([this](boost::system::error_code wait_ec) {
            if (!wait_ec && !stopping()) accept();
        });
    });
}

void HttpServer::Impl::take(tcp::socket socket) {
    if (connections_.size() >= static_cast<size_t>(options_.max_connections)) {
        // An HTTPS client could not read a plain answer: it sees the connection closed.
        if (!tls_) ::send(socket.native_handle(), over_capacity_.data(), over_capacity_.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
        boost::system::error_code ec;
        socket.close(ec);
        return;
    }
    auto connection = std::make_shared<http::Connection>(std::move(socket), *this);
    connections_.emplace(connection.get(), connection);
    connection->start();
}

void HttpServer::Impl::stop() {
    stopping_ = true;
    late_answers_->close();  // a deferred answer that completes from now on is dropped: its connection closes here
    std::promise<void> closed;
    net::post(io_, [this, &closed] {
        boost::system::error_code ec;
        acceptor_.close(ec);
        retry_.cancel();
        auto open = std::move(connections_);
        connections_.clear();
        for (auto& [raw, connection] : open) connection->close();  // writes under way fail: their streams end
        closed.set_value();
    });
    closed.get_future().wait();
    pool_.stop();
    work_.reset();
    io_.stop();  // what is left (posts of the workers' last answers) is dropped with the io_context
    if (thread_.joinable()) thread_.join();
}

HttpServer::HttpServer(const HttpServerOptions& options, HttpHandler handler)
    : impl_(std::make_unique<Impl>(options, std::move(handler))) {
    port_ = impl_->bind_and_listen();
    impl_->start();
}

HttpServer::~HttpServer() { impl_->stop(); }

bool HttpServer::https() const { return impl_->tls_ != nullptr; }

bool bearer_token_matches(const std::string& authorization, const std::string& token) {
    const std::string prefix = "Bearer ";
    if (token.empty() || authorization.size() != prefix.size() + token.size() || authorization.compare(0, prefix.size(), prefix) != 0)
        return false;
    unsigned char diff = 0;
    for (size_t i = 0; i < token.size(); ++i) diff |= static_cast<unsigned char>(authorization[prefix.size() + i] ^ token[i]);
    return diff == 0;
}

}  // namespace vf
