// The server's answers as bytes on the wire (common/http_server.cpp's connections and
// http_answer_bytes write the same bytes): the status line, the headers every answer carries,
// Content-Length or chunked framing, and the one-line error answers. Internal to common/.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "common/http_server.hpp"

namespace vf::http {

// How an answer goes out besides what the handler said.
struct AnswerShape {
    bool head_only = false;   // a HEAD request: the headers as for GET, no body
    bool close = false;       // the connection closes after it ("Connection: close")
    bool keep_alive_10 = false;  // an HTTP/1.0 client that asked to keep the connection
};

const char* reason_of(int status);

// An error answer: "<status> <reason>\n" as plain text.
HttpResponse error_answer(int status);
// 503 with Retry-After: every worker is busy and the wait list is full.
HttpResponse busy_answer();

// The handler's answer, or 500 with what it threw.
HttpResponse call_handler(const HttpHandler& handler, const HttpRequest& request);

// The screen's refusal, nothing when it lets the request through, or 500 with what it threw.
std::optional<HttpResponse> call_screen(const std::function<std::optional<HttpResponse>(const HttpRequest&)>& screen,
                                        const HttpRequest& head);

// The status line and headers, through the blank line; `chunked`: Transfer-Encoding instead of
// Content-Length.
std::string answer_head(const HttpResponse& answer, const AnswerShape& shape, bool chunked);
// A whole answer that is not streamed: the head and, unless HEAD, the body.
std::string answer_bytes(const HttpResponse& answer, const AnswerShape& shape);
// One piece of a chunked body ("" for an empty piece: an empty chunk would end the body).
std::string chunk_bytes(const std::string& piece);
inline constexpr const char* kLastChunk = "0\r\n\r\n";
// "HTTP/1.1 100 Continue": the client may send the body it announced.
inline constexpr const char* kContinue = "HTTP/1.1 100 Continue\r\n\r\n";

}  // namespace vf::http
