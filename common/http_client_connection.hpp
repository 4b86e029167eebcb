// One connection of an HTTP call (common/http_client.cpp): every step runs the connection's own
// io_context until the step ends or its time is up, so a peer cannot hold a call longer than the
// time it was given, and the answer is read with Beast's parser within byte limits. An https://
// call's request goes out only after the TLS handshake verified the server. Internal to common/.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/dynamic_body.hpp>
#include <boost/beast/http/parser.hpp>

#include <chrono>
#include <string>

#include "common/http_byte_stream.hpp"
#include "common/http_client.hpp"

namespace vf {

struct HttpsTrust::Context {
    std::unique_ptr<boost::asio::ssl::context> ssl;
};

}  // namespace vf

namespace vf::http {

using Clock = std::chrono::steady_clock;

class ClientConnection {
public:
    // whole: the answer is read whole (its body bounded by call.max_body_bytes).
    ClientConnection(const HttpCall& call, bool whole);
    ClientConnection(const ClientConnection&) = delete;
    ClientConnection& operator=(const ClientConnection&) = delete;

    // Connects and sends the request, before the call's connect timeout and total deadline.
    bool send_request(std::string* error);

    enum class Got { Head, Piece, Done, Failed };
    // Reads until the answer's head has come (Head, once), a piece of its body (Piece, in
    // *piece), its end (Done) or an error (Failed, *error says why). Waits at most until
    // `until` and read_timeout_ms for each read.
    Got next(Clock::time_point until, std::string* piece, std::string* error);
    const boost::beast::http::response_parser<boost::beast::http::dynamic_body>::value_type& head() const { return parser_.get(); }
    Clock::time_point deadline() const { return deadline_; }  // the call's total deadline

    // From another thread: ends a read under way (HttpStreamedCall's destructor).
    void interrupt();

private:
    template <class Start>
    boost::beast::error_code run(Clock::time_point until, Start start, size_t* transferred = nullptr);
    bool connect(std::string* error);
    bool secure(std::string* error);  // the TLS handshake of an https:// call
    void collect();  // the body's bytes parsed so far, into pending_
    bool over_limit() const;

    const HttpCall call_;
    const Clock::time_point deadline_;
    boost::asio::io_context io_{1};
    ByteStream stream_{io_};
    boost::beast::flat_buffer in_;
    boost::beast::http::response_parser<boost::beast::http::dynamic_body> parser_;
    const size_t max_body_;
    std::string pending_;  // body bytes not handed over yet
    size_t body_bytes_ = 0;
    bool head_told_ = false, ended_ = false;
};

// The request's bytes ("" with *error when a field would break the request's framing).
std::string request_bytes(const HttpCall& call, std::string* error);

}  // namespace vf::http
