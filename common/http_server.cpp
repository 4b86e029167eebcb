#include "common/http_server.hpp"

#include <arpa/inet.h>

#include <httplib.h>

#include <atomic>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "common/error.hpp"
#include "common/thread_name.hpp"

namespace vf {
namespace {

// httplib's own ThreadPool queues without limit; this one makes the accepting thread wait once
// `waiting` connections are queued, so the rest stay in the listen backlog.
class BoundedPool : public httplib::TaskQueue {
public:
    BoundedPool(int workers, int waiting) : limit_(static_cast<size_t>(waiting)) {
        for (int i = 0; i < workers; ++i) threads_.emplace_back([this] {
            name_this_thread("vf-http");
            work();
        });
    }
    ~BoundedPool() override { shutdown(); }

    void enqueue(std::function<void()> fn) override {
        std::unique_lock<std::mutex> lock(mutex_);
        room_.wait(lock, [&] { return queue_.size() < limit_ || stopping_; });
        if (stopping_) return;  // httplib stops accepting before it shuts the pool down
        queue_.push_back(std::move(fn));
        ready_.notify_one();
    }
    void shutdown() override {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (stopping_ && threads_.empty()) return;
            stopping_ = true;
        }
        ready_.notify_all();
        room_.notify_all();
        for (std::thread& t : threads_) t.join();
        threads_.clear();
    }

private:
    void work() {
        for (;;) {
            std::function<void()> fn;
            {
                std::unique_lock<std::mutex> lock(mutex_);
                ready_.wait(lock, [&] { return !queue_.empty() || stopping_; });
                if (queue_.empty()) return;  // stopping, and everything queued was answered
                fn = std::move(queue_.front());
                queue_.pop_front();
            }
            room_.notify_one();
            fn();
        }
    }
    size_t limit_;
    std::mutex mutex_;
    std::condition_variable ready_, room_;
    std::deque<std::function<void()>> queue_;
    std::vector<std::thread> threads_;
    bool stopping_ = false;
};

const char* reason_of(int status) {
    switch (status) {
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 413: return "Payload Too Large";
    case 414: return "URI Too Long";
    case 416: return "Range Not Satisfiable";
    case 500: return "Internal Server Error";
    default: return "Error";
    }
}

// The server with our handler on every path and method; process_bytes() is the fuzz entry.
class RoutedServer : public httplib::Server {
public:
    RoutedServer(HttpHandler handler, size_t max_body) : handler_(std::move(handler)) {
        const auto route = [this](const httplib::Request& req, httplib::Response& res) {
            HttpRequest r;
            r.method = req.method;
            r.path = req.path;
            const size_t q = req.target.find('?');
            if (q != std::string::npos) r.query = req.target.substr(q + 1);
            r.body = req.body;
            r.authorization = req.get_header_value("Authorization");
            r.content_type = req.get_header_value("Content-Type");
            r.forwarded_by = req.get_header_value("X-Vfilter-Forwarded-By");
            r.host = req.get_header_value("Host");
            r.origin = req.get_header_value("Origin");
            HttpResponse answer = handler_(r);
            res.status = answer.status;
            for (const auto& [name, value] : answer.headers) res.set_header(name, value);
            if (!answer.stream) {
                res.set_content(answer.body, answer.content_type.c_str());
                return;
            }
            auto stream = std::move(answer.stream);
            res.set_chunked_content_provider(answer.content_type, [this, stream](size_t, httplib::DataSink& sink) {
                stream([this, &sink](const std::string& bytes) {
                    return !stopping_.load() && sink.is_writable() && sink.write(bytes.data(), bytes.size());
                });
                sink.done();
                return true;
            });
        };
        set_post_routing_handler([](const httplib::Request&, httplib::Response& res) {
            for (const auto& [name, value] : http_security_headers())
                if (!res.has_header(name.c_str())) res.set_header(name, value);
        });
        const std::string any = "/.*";
        Get(any, route);
        Post(any, route);
        Put(any, route);
        Delete(any, route);
        Patch(any, route);
        set_payload_max_length(max_body);
        // httplib's default error pages are empty: say what went wrong, in one line.
        set_error_handler([](const httplib::Request&, httplib::Response& res) {
            if (!res.body.empty()) return;
            res.set_content(std::to_string(res.status) + " " + reason_of(res.status) + "\n",
                            "text/plain; charset=utf-8");
        });
        set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
            std::string what = "internal error";
            try {
                std::rethrow_exception(ep);
            } catch (const std::exception& e) {
                what = e.what();
            } catch (...) {
            }
            res.status = 500;
            res.set_content(what + "\n", "text/plain; charset=utf-8");
        });
    }

    // Streams under way end at their next write (HttpServer's destructor, before stop()).
    void stop_streams() { stopping_ = true; }

    std::string process_bytes(const std::string& bytes) {
        class MemoryStream : public httplib::Stream {
        public:
            explicit MemoryStream(const std::string& in) : in_(in) {}
            bool is_readable() const override { return true; }
            bool is_writable() const override { return true; }
            ssize_t read(char* ptr, size_t size) override {
                const size_t n = std::min(size, in_.size() - at_);
                std::memcpy(ptr, in_.data() + at_, n);
                at_ += n;
                return static_cast<ssize_t>(n);
            }
            ssize_t write(const char* ptr, size_t size) override {
                out.append(ptr, size);
                return static_cast<ssize_t>(size);
            }
            void get_remote_ip_and_port(std::string& ip, int& port) const override { ip = "127.0.0.1", port = 1; }
            void get_local_ip_and_port(std::string& ip, int& port) const override { ip = "127.0.0.1", port = 2; }
            socket_t socket() const override { return 0; }
            std::string out;

        private:
            const std::string& in_;
            size_t at_ = 0;
        } stream(bytes);
        bool closed = false;
        process_request(stream, true, closed, nullptr);
        return stream.out;
    }

private:
    HttpHandler handler_;
    std::atomic<bool> stopping_{false};
};

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

struct HttpServer::Impl {
    std::unique_ptr<RoutedServer> server;
    std::thread thread;
};

HttpServer::HttpServer(const HttpServerOptions& o, HttpHandler handler) : impl_(std::make_unique<Impl>()) {
    in_addr probe{};
    if (inet_pton(AF_INET, o.bind.c_str(), &probe) != 1)
        fail(ErrorCategory::Usage, "address '" + o.bind + "' for " + o.option + ": expected an IPv4 address such as 127.0.0.1 or 0.0.0.0");
    if (o.port < 0 || o.port > 65535) fail(ErrorCategory::Usage, o.option + " must be in 0..65535");
    impl_->server = std::make_unique<RoutedServer>(std::move(handler), o.max_body_bytes);
    RoutedServer& s = *impl_->server;
    s.set_read_timeout(o.timeout_s, 0);
    s.set_write_timeout(o.timeout_s, 0);
    s.set_keep_alive_timeout(o.timeout_s);
    s.set_keep_alive_max_count(100);
    // An answer's headers and body go out as two writes: without this, Nagle holds the body back
    // until the client acknowledges the headers, which a client's delayed ACK makes 40 ms.
    s.set_tcp_nodelay(true);
    const int workers = o.workers, waiting = o.waiting;
    s.new_task_queue = [workers, waiting] { return new BoundedPool(workers, waiting); };
    // SO_REUSEADDR only (httplib's default adds SO_REUSEPORT, which lets a second process share
    // the port silently instead of failing).
    s.set_socket_options([](socket_t sock) {
        const int one = 1;
        setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    });
    const bool bound = o.port == 0 ? (port_ = s.bind_to_any_port(o.bind)) > 0 : s.bind_to_port(o.bind, o.port);
    if (!bound)
        fail(ErrorCategory::Usage, "cannot serve on " + o.bind + ":" + std::to_string(o.port) + " (" + o.option +
                                       "): the port is in use or not allowed");
    if (o.port != 0) port_ = o.port;
    impl_->thread = std::thread([&s] { s.listen_after_bind(); });
    // stop() only reaches a server that is already running: wait for it, so a server destroyed
    // at once still stops.
    for (int i = 0; i < 5000 && !s.is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

HttpServer::~HttpServer() {
    impl_->server->stop_streams();
    impl_->server->stop();
    if (impl_->thread.joinable()) impl_->thread.join();
}

std::string http_answer_bytes(const std::string& request, const HttpHandler& handler, size_t max_body_bytes) {
    RoutedServer server(handler, max_body_bytes);
    return server.process_bytes(request);
}

bool bearer_token_matches(const std::string& authorization, const std::string& token) {
    const std::string prefix = "Bearer ";
    if (token.empty() || authorization.size() != prefix.size() + token.size() || authorization.compare(0, prefix.size(), prefix) != 0)
        return false;
    unsigned char diff = 0;
    for (size_t i = 0; i < token.size(); ++i) diff |= static_cast<unsigned char>(authorization[prefix.size() + i] ^ token[i]);
    return diff == 0;
}

}  // namespace vf
