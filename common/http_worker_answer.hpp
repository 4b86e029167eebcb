// What a worker thread does for a request the I/O thread handed over: calls the handler and
// posts the answer back to the connection, or, for a streamed answer, writes it from the worker
// one piece at a time through the I/O thread, each piece waiting for its write (with the
// connection's write deadline). Internal to common/.
#pragma once

#include <functional>
#include <memory>

#include "common/http_connection.hpp"

namespace vf::http {

// The task for a request: the handler's answer, written by the connection (or streamed).
std::function<void()> answer_on_worker(std::weak_ptr<Connection> connection, ConnectionHost& host, HttpRequest request,
                                       AnswerShape shape);
// The task for an answer already made whose body streams.
std::function<void()> stream_on_worker(std::weak_ptr<Connection> connection, ConnectionHost& host, HttpResponse answer,
                                       AnswerShape shape);

}  // namespace vf::http
