#include "common/http_worker_answer.hpp"

#include <boost/asio/post.hpp>

#include <condition_variable>
#include <mutex>

namespace vf::http {
namespace {

// One write made by the I/O thread, waited for on the worker.
class WriteWait {
public:
    void finish(bool ok) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            done_ = true;
            ok_ = ok;
        }
        changed_.notify_all();
    }
    bool result() {
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [&] { return done_; });
        return ok_;
    }

private:
    std::mutex mutex_;
    std::condition_variable changed_;
    bool done_ = false, ok_ = false;
};

// A streamed answer's writes from its worker. The wait always ends: the I/O thread runs until
// every worker has returned (HttpServer's destructor), and a write it starts ends in its
// deadline or when the connection closes.
class StreamWriter {
public:
    StreamWriter(std::weak_ptr<Connection> connection, ConnectionHost& host) : connection_(std::move(connection)), host_(host) {}

    bool write(std::string bytes) {
        if (failed_ || host_.stopping()) return !(failed_ = true);
        auto wait = std::make_shared<WriteWait>();
        boost::asio::post(host_.executor(), [c = connection_, bytes = std::move(bytes), wait]() mutable {
            const std::shared_ptr<Connection> self = c.lock();
            if (!self) return wait->finish(false);
            self->write_for_stream(std::move(bytes), [wait](bool ok) { wait->finish(ok); });
        });
        failed_ = !wait->result();
        return !failed_;
    }

private:
    std::weak_ptr<Connection> connection_;
    ConnectionHost& host_;
    bool failed_ = false;
};

void stream_answer(const std::weak_ptr<Connection>& connection, ConnectionHost& host, HttpResponse answer, const AnswerShape& shape) {
    std::function<void(const HttpBodyWriter&)> body = std::move(answer.stream);
    answer.stream = nullptr;
    StreamWriter writer(connection, host);
    bool ok = writer.write(answer_head(answer, shape, true));
    if (ok) {
        try {
            body([&writer](const std::string& piece) { return writer.write(chunk_bytes(piece)); });
            ok = writer.write(kLastChunk);
        } catch (...) {
            ok = false;  // the body is cut short: the client sees the connection close mid-body
        }
    }
    body = nullptr;  // what it holds (a preview's place) is given back before the next request
    boost::asio::post(host.executor(), [connection, ok] {
        if (const std::shared_ptr<Connection> self = connection.lock()) self->stream_ended(ok);
    });
}

}  // namespace

void LateAnswerGate::post(std::function<void()> task) {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (io_) return boost::asio::post(*io_, std::move(task));
    }
    task = nullptr;  // dropped outside the lock: what it holds may take time to let go
}

void LateAnswerGate::close() {
    std::lock_guard<std::mutex> lock(mutex_);
    io_.reset();
}

void start_deferred(std::weak_ptr<Connection> connection, ConnectionHost& host, std::function<void(HttpCompletion)> deferred) {
    const HttpCompletion done([connection = std::move(connection), gate = host.late_answers()](HttpResponse answer) {
        gate->post([connection, answer = std::move(answer)]() mutable {
            if (const std::shared_ptr<Connection> self = connection.lock()) self->deliver_late(std::move(answer));
        });
    });
    try {
        deferred(done);
    } catch (const std::exception& e) {
        done(HttpResponse{500, "text/plain; charset=utf-8", std::string(e.what()) + "\n"});
    } catch (...) {
        done(HttpResponse{500, "text/plain; charset=utf-8", "internal error\n"});
    }
}

std::function<void()> answer_on_worker(std::weak_ptr<Connection> connection, ConnectionHost& host, HttpRequest request,
                                       AnswerShape shape) {
    return [connection = std::move(connection), &host, request = std::move(request), shape] {
        HttpResponse answer = call_handler(host.handler(), request);
        if (answer.deferred) return start_deferred(connection, host, std::move(answer.deferred));
        if (answer.stream && !shape.head_only) return stream_answer(connection, host, std::move(answer), shape);
        const bool chunked_head = answer.stream != nullptr;
        answer.stream = nullptr;  // a HEAD request's: never called
        boost::asio::post(host.executor(), [connection, answer = std::move(answer), chunked_head]() mutable {
            if (const std::shared_ptr<Connection> self = connection.lock()) self->deliver(std::move(answer), chunked_head);
        });
    };
}

std::function<void()> stream_on_worker(std::weak_ptr<Connection> connection, ConnectionHost& host, HttpResponse answer,
                                       AnswerShape shape) {
    auto held = std::make_shared<HttpResponse>(std::move(answer));
    return [connection = std::move(connection), &host, held, shape] { stream_answer(connection, host, std::move(*held), shape); };
}

}  // namespace vf::http
