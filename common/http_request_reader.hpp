// One request read from a connection's bytes with Boost.Beast's parser, within the server's
// limits: the head (request line and headers) first, then, once the screen let it through, the
// body. Connections (common/http_connection.cpp) and http_answer_bytes feed it the same way,
// so the fuzz target reads requests exactly as a connection does. Internal to common/.
#pragma once

#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

#include <optional>
#include <string>

#include "common/http_server.hpp"

namespace vf::http {

class RequestReader {
public:
    explicit RequestReader(const HttpServerOptions& options);

    enum class Step {
        NeedMore,  // every byte given was used or kept for later: read more
        Head,      // the line and headers are in: call admit() before feeding the body
        Complete,  // the body is in too: request() holds it
        Refused,   // not a request this server reads: answer refusal() and close
    };
    // Reads what it can of [data, data + size) and says in *used how much it took; the bytes not
    // used must be given again, with more after them. A head, a chunk's size line or the trailers
    // must fit in max_header_bytes whole.
    Step put(const char* data, size_t size, size_t* used);
    int refusal() const { return refusal_; }

    // After Head: the screen's answer, 413 when the announced body is over the limit, or nothing
    // when the body may be read (the body limit holds for chunked bodies as they come).
    std::optional<HttpResponse> admit(const HttpRequest& head);

    // The request's fields; the body once Complete (moved out).
    HttpRequest request(const std::string& peer);
    bool started() const { return parser_.got_some(); }
    bool body_announced() const;  // a Content-Length over 0, or chunked
    bool keep_alive() const { return parser_.get().keep_alive(); }
    bool http10() const { return parser_.get().version() < 11; }
    bool head_method() const { return parser_.get().method() == boost::beast::http::verb::head; }
    bool expects_continue() const;

private:
    Step refuse(int status);
    bool head_is_readable() const;  // a target in origin form, a knowable body length, no NUL in the path

    const HttpServerOptions& options_;
    boost::beast::http::request_parser<boost::beast::http::string_body> parser_;
    bool admitted_ = false;
    int refusal_ = 0;
};

// The path of a request target, percent-decoded ("%2F" becomes '/'); a '%' not followed by two
// hex digits stays as it is.
std::string decode_path(const std::string& path);

}  // namespace vf::http
