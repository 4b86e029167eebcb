#include "common/http_wire.hpp"

#include <strings.h>

#include <cstdio>
#include <exception>

namespace vf::http {
namespace {

// A header the handler set that would break the framing or split the answer is left out: the
// server writes the framing itself, and CR or LF in a name or value would start a new header.
bool header_allowed(const std::string& name, const std::string& value) {
    if (name.empty() || name.find_first_of("\r\n: ") != std::string::npos || value.find_first_of("\r\n") != std::string::npos)
        return false;
    for (const char* framing : {"Content-Length", "Transfer-Encoding", "Connection", "Content-Type"})
        if (strcasecmp(name.c_str(), framing) == 0) return false;
    return true;
}

bool has_header(const HttpResponse& answer, const std::string& name) {
    for (const auto& [n, v] : answer.headers)
        if (strcasecmp(n.c_str(), name.c_str()) == 0) return true;
    return false;
}

}  // namespace

const char* reason_of(int status) {
    switch (status) {
    case 100: return "Continue";
    case 200: return "OK";
    case 201: return "Created";
    case 202: return "Accepted";
    case 204: return "No Content";
    case 206: return "Partial Content";
    case 301: return "Moved Permanently";
    case 302: return "Found";
    case 304: return "Not Modified";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 410: return "Gone";
    case 411: return "Length Required";
    case 413: return "Payload Too Large";
    case 414: return "URI Too Long";
    case 415: return "Unsupported Media Type";
    case 416: return "Range Not Satisfiable";
    case 422: return "Unprocessable Entity";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    default: return "Error";
    }
}

HttpResponse error_answer(int status) {
    return HttpResponse{status, "text/plain; charset=utf-8", std::to_string(status) + " " + reason_of(status) + "\n"};
}

HttpResponse busy_answer() {
    HttpResponse answer = error_answer(503);
    answer.headers.push_back({"Retry-After", "1"});
    return answer;
}

HttpResponse call_handler(const HttpHandler& handler, const HttpRequest& request) {
    try {
        return handler(request);
    } catch (const std::exception& e) {
        return HttpResponse{500, "text/plain; charset=utf-8", std::string(e.what()) + "\n"};
    } catch (...) {
        return HttpResponse{500, "text/plain; charset=utf-8", "internal error\n"};
    }
}

std::optional<HttpResponse> call_screen(const std::function<std::optional<HttpResponse>(const HttpRequest&)>& screen,
                                        const HttpRequest& head) {
    try {
        return screen(head);
    } catch (const std::exception& e) {
        return HttpResponse{500, "text/plain; charset=utf-8", std::string(e.what()) + "\n"};
    } catch (...) {
        return HttpResponse{500, "text/plain; charset=utf-8", "internal error\n"};
    }
}

std::string answer_head(const HttpResponse& answer, const AnswerShape& shape, bool chunked) {
    const int status = answer.status >= 100 && answer.status <= 999 ? answer.status : 500;
    std::string out = "HTTP/1.1 " + std::to_string(status) + " " + reason_of(status) + "\r\n";
    out.reserve(1024);
    const auto add = [&out](const std::string& name, const std::string& value) { out += name + ": " + value + "\r\n"; };
    if (answer.content_type.find_first_of("\r\n") == std::string::npos) add("Content-Type", answer.content_type);
    if (chunked)
        add("Transfer-Encoding", "chunked");
    else
        add("Content-Length", std::to_string(answer.body.size()));
    for (const auto& [name, value] : answer.headers)
        if (header_allowed(name, value)) add(name, value);
    for (const auto& [name, value] : http_security_headers())
        if (!has_header(answer, name)) add(name, value);
    if (shape.close)
        add("Connection", "close");
    else if (shape.keep_alive_10)
        add("Connection", "keep-alive");
    out += "\r\n";
    return out;
}

std::string answer_bytes(const HttpResponse& answer, const AnswerShape& shape) {
    std::string out = answer_head(answer, shape, false);
    if (!shape.head_only) out += answer.body;
    return out;
}

std::string chunk_bytes(const std::string& piece) {
    if (piece.empty()) return "";
    char size[24];
    std::snprintf(size, sizeof size, "%zx\r\n", piece.size());
    std::string out;
    out.reserve(piece.size() + 32);
    out += size;
    out += piece;
    out += "\r\n";
    return out;
}

}  // namespace vf::http
