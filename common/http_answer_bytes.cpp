// http_answer_bytes: a connection's steps (common/http_connection.cpp) on bytes in memory, for
// the fuzz target: the same reader and limits, the screen before the body, the handler, the
// same bytes written. One request is answered; what follows it is left unread.
#include <algorithm>
#include <future>
#include <memory>

#include "common/http_request_reader.hpp"
#include "common/http_server.hpp"
#include "common/http_wire.hpp"

namespace vf {
namespace {

constexpr size_t kMaxStreamedBytes = 1 << 20;  // a streamed body is cut here: the answer must end
constexpr const char* kPeer = "127.0.0.1";

// Feeds the reader from `at` until it needs bytes that are not there or reaches another step.
http::RequestReader::Step feed(http::RequestReader& reader, const std::string& bytes, size_t* at) {
    for (;;) {
        size_t used = 0;
        const http::RequestReader::Step step = reader.put(bytes.data() + *at, bytes.size() - *at, &used);
        *at += used;
        if (step != http::RequestReader::Step::NeedMore || used == 0) return step;
    }
}

std::string streamed(const HttpResponse& answer, const http::AnswerShape& shape) {
    std::string out = http::answer_head(answer, shape, true);
    if (shape.head_only) return out;
    const size_t head = out.size();
    try {
        answer.stream([&](const std::string& piece) {
            if (out.size() - head > kMaxStreamedBytes) return false;
            out += http::chunk_bytes(piece);
            return true;
        });
    } catch (...) {
        return out;  // cut short, as a connection would be
    }
    return out + http::kLastChunk;
}

// A deferred answer, waited for here: its completion is called, or its last copy goes, in the end.
HttpResponse completed(std::function<void(HttpCompletion)> deferred) {
    auto answer = std::make_shared<std::promise<HttpResponse>>();
    std::future<HttpResponse> later = answer->get_future();
    try {
        deferred(HttpCompletion([answer](HttpResponse a) { answer->set_value(std::move(a)); }));
    } catch (...) {
        // The completion's last copy has gone with the exception: it answered 503.
    }
    return later.get();
}

}  // namespace

std::string http_answer_bytes(const std::string& request, const HttpHandler& handler, const HttpServerOptions& options) {
    using Step = http::RequestReader::Step;
    http::RequestReader reader(options);
    size_t at = 0;
    Step step = feed(reader, request, &at);
    http::AnswerShape shape;
    shape.close = true;
    if (step == Step::NeedMore) return "";  // the client left before its head was complete
    if (step == Step::Refused) return http::answer_bytes(http::error_answer(reader.refusal()), shape);
    shape = http::AnswerShape{reader.head_method(), !reader.keep_alive(), reader.http10() && reader.keep_alive()};
    if (std::optional<HttpResponse> refused = reader.admit(reader.request(kPeer))) {
        shape.close = shape.close || reader.body_announced();
        return http::answer_bytes(*refused, shape);
    }
    step = feed(reader, request, &at);
    if (step == Step::NeedMore) return "";  // the body did not all come
    if (step == Step::Refused) {
        shape.close = true;
        return http::answer_bytes(http::error_answer(reader.refusal()), shape);
    }
    HttpResponse answer = http::call_handler(handler, reader.request(kPeer));
    while (answer.deferred) answer = completed(std::move(answer.deferred));
    return answer.stream ? streamed(answer, shape) : http::answer_bytes(answer, shape);
}

std::string http_answer_bytes(const std::string& request, const HttpHandler& handler, size_t max_body_bytes) {
    HttpServerOptions options;
    options.max_body_bytes = max_body_bytes;
    return http_answer_bytes(request, handler, options);
}

}  // namespace vf
