// What a worker thread does for a request the I/O thread handed over: calls the handler and
// posts the answer back to the connection, or, for a streamed answer, writes it from the worker
// one piece at a time through the I/O thread, each piece waiting for its write (with the
// connection's write deadline). A deferred answer is started there and finished from any thread
// through the server's LateAnswerGate. Internal to common/.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <optional>

#include "common/http_connection.hpp"

namespace vf::http {

// The way from threads the server does not own (a deferred answer's completion) to its I/O
// thread. The server closes it as it stops: what comes later is dropped on the caller's thread.
// Every completion shares it, so one that comes after the server is gone finds it closed.
class LateAnswerGate {
public:
    explicit LateAnswerGate(boost::asio::any_io_executor io) : io_(std::move(io)) {}
    void post(std::function<void()> task);  // any thread
    void close();

private:
    std::mutex mutex_;
    std::optional<boost::asio::any_io_executor> io_;  // empty once closed
};

// Starts a deferred answer on the calling thread (a worker, or the I/O thread for a path answered
// there); its completion posts the answer to the connection, which writes it or streams it.
void start_deferred(std::weak_ptr<Connection> connection, ConnectionHost& host, std::function<void(HttpCompletion)> deferred);

// The task for a request: the handler's answer, written by the connection (or streamed).
std::function<void()> answer_on_worker(std::weak_ptr<Connection> connection, ConnectionHost& host, HttpRequest request,
                                       AnswerShape shape);
// The task for an answer already made whose body streams.
std::function<void()> stream_on_worker(std::weak_ptr<Connection> connection, ConnectionHost& host, HttpResponse answer,
                                       AnswerShape shape);

}  // namespace vf::http
