#include "common/http_request_reader.hpp"

#include <strings.h>

#include <cstring>
#include <limits>

#include "common/http_wire.hpp"

namespace vf::http {
namespace {

namespace bh = boost::beast::http;

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// A head over the limit: 414 when the request line alone did not end within it, 431 otherwise.
int too_long_status(const char* data, size_t size, size_t limit) {
    const size_t seen = std::min(size, limit);
    for (size_t i = 0; i + 1 < seen; ++i)
        if (data[i] == '\r' && data[i + 1] == '\n') return 431;
    return 414;
}

}  // namespace

RequestReader::RequestReader(const HttpServerOptions& options) : options_(options) {
    parser_.header_limit(static_cast<std::uint32_t>(std::min<size_t>(options.max_header_bytes, UINT32_MAX)));
    // The body's limit is set once the screen has seen the head (admit()): a refused request is
    // answered with the screen's reason, not 413. (Not boost::none: Beast 1.74 compares a
    // Content-Length with an empty limit as over it.)
    parser_.body_limit(std::numeric_limits<std::uint64_t>::max());
    parser_.eager(false);  // stop after the head
}

RequestReader::Step RequestReader::refuse(int status) {
    refusal_ = status;
    return Step::Refused;
}

RequestReader::Step RequestReader::put(const char* data, size_t size, size_t* used) {
    *used = 0;
    if (refusal_) return Step::Refused;
    if (admitted_ && parser_.is_done()) return Step::Complete;
    if (size == 0) return Step::NeedMore;
    boost::beast::error_code ec;
    *used = parser_.put(boost::asio::buffer(data, size), ec);
    if (ec == bh::error::need_more) {
        // What the parser needs whole (a head, a chunk's line, trailers) did not fit.
        if (size - *used >= options_.max_header_bytes)
            return refuse(parser_.is_header_done() ? 400 : too_long_status(data, size, options_.max_header_bytes));
        return Step::NeedMore;
    }
    if (ec == bh::error::header_limit) return refuse(too_long_status(data, size, options_.max_header_bytes));
    if (ec == bh::error::body_limit) return refuse(413);
    if (ec) return refuse(400);
    if (!parser_.is_header_done()) return Step::NeedMore;
    if (!admitted_) return head_is_readable() ? Step::Head : refuse(400);
    return parser_.is_done() ? Step::Complete : Step::NeedMore;
}

bool RequestReader::head_is_readable() const {
    const auto& message = parser_.get();
    const auto target = message.target();
    if (target.empty() || target.front() != '/') return false;  // origin form only
    // A body whose last coding is not chunked has no length that can be known: whatever the
    // server took as its end, the client's next request could begin elsewhere (RFC 9112, 6.3).
    if (message.find(bh::field::transfer_encoding) != message.end() && !parser_.chunked()) return false;
    // A decoded NUL would end the path early for any C string that carries it.
    const std::string path(target.substr(0, target.find('?')));
    return decode_path(path).find('\0') == std::string::npos;
}

std::optional<HttpResponse> RequestReader::admit(const HttpRequest& head) {
    admitted_ = true;
    if (options_.screen) {
        std::optional<HttpResponse> refused = call_screen(options_.screen, head);
        if (refused) return refused;
    }
    const boost::optional<std::uint64_t> length = parser_.content_length();
    if (length && *length > options_.max_body_bytes) return error_answer(413);
    parser_.body_limit(static_cast<std::uint64_t>(options_.max_body_bytes));
    parser_.eager(true);
    return std::nullopt;
}

bool RequestReader::body_announced() const {
    if (parser_.chunked()) return true;
    const boost::optional<std::uint64_t> length = parser_.content_length();
    return length && *length > 0;
}

bool RequestReader::expects_continue() const {
    const auto expect = parser_.get()[bh::field::expect];
    return expect.size() == 12 && strncasecmp(expect.data(), "100-continue", 12) == 0;
}

HttpRequest RequestReader::request(const std::string& peer) {
    auto& message = parser_.get();
    HttpRequest r;
    r.method = std::string(message.method_string());
    const std::string target(message.target());
    r.target = target;
    const size_t q = target.find('?');
    r.path = decode_path(target.substr(0, q));
    if (q != std::string::npos) r.query = target.substr(q + 1);
    const auto header = [&message](bh::field f) { return std::string(message[f]); };
    r.authorization = header(bh::field::authorization);
    r.content_type = header(bh::field::content_type);
    r.forwarded_by = std::string(message["X-Vfilter-Forwarded-By"]);
    r.host = header(bh::field::host);
    r.origin = header(bh::field::origin);
    r.last_event_id = std::string(message["Last-Event-ID"]);
    r.peer = peer;
    if (parser_.is_done()) r.body = std::move(message.body());
    return r;
}

std::string decode_path(const std::string& path) {
    std::string out;
    out.reserve(path.size());
    for (size_t i = 0; i < path.size(); ++i) {
        const int hi = path[i] == '%' && i + 2 < path.size() ? hex_value(path[i + 1]) : -1;
        const int lo = hi >= 0 ? hex_value(path[i + 2]) : -1;
        if (lo >= 0) {
            out += static_cast<char>(hi * 16 + lo);
            i += 2;
        } else {
            out += path[i];
        }
    }
    return out;
}

}  // namespace vf::http
