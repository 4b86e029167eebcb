#include "common/http_client_connection.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/beast/core/buffers_to_string.hpp>

#include <algorithm>
#include <limits>
#include <type_traits>

namespace vf::http {
namespace {

namespace net = boost::asio;
namespace bh = boost::beast::http;
using tcp = net::ip::tcp;

constexpr size_t kAnswerHeadLimit = 8 * 1024;
constexpr size_t kAnswerReadChunk = 16 * 1024;

bool breaks_framing(const std::string& s) { return s.find_first_of("\r\n") != std::string::npos; }

}  // namespace

std::string request_bytes(const HttpCall& call, std::string* error) {
    bool bad = call.method.empty() || call.method.find(' ') != std::string::npos || breaks_framing(call.method) ||
               call.target.empty() || call.target.front() != '/' || call.target.find(' ') != std::string::npos ||
               breaks_framing(call.target) || breaks_framing(call.content_type);
    for (const auto& [name, value] : call.headers) bad = bad || name.empty() || breaks_framing(name) || breaks_framing(value);
    if (bad) {
        *error = "the request has a field with a space or line break where it cannot be";
        return "";
    }
    // The Host header is the address's authority(): a peer call's signature covers exactly it.
    std::string out = call.method + " " + call.target + " HTTP/1.1\r\nHost: " + call.to.authority() + "\r\nConnection: close\r\n";
    for (const auto& [name, value] : call.headers) out += name + ": " + value + "\r\n";
    if (!call.body.empty() || call.method == "POST" || call.method == "PUT") {
        out += "Content-Type: " + (call.content_type.empty() ? std::string("application/octet-stream") : call.content_type) + "\r\n";
        out += "Content-Length: " + std::to_string(call.body.size()) + "\r\n";
    }
    return out + "\r\n" + call.body;
}

ClientConnection::ClientConnection(const HttpCall& call, bool whole)
    : call_(call), deadline_(Clock::now() + std::chrono::milliseconds(std::max(call.total_timeout_ms, 1))),
      max_body_(whole ? call.max_body_bytes : std::numeric_limits<size_t>::max()) {
    parser_.header_limit(kAnswerHeadLimit);
    // The body is counted here (next()), not with Beast's body_limit: Beast 1.74 loses the error
    // of a Content-Length over that limit when it parses eagerly, and an empty limit counts as
    // exceeded.
    parser_.body_limit(std::numeric_limits<std::uint64_t>::max());
    parser_.eager(true);
    if (call.method == "HEAD") parser_.skip(true);
}

template <class Start>
boost::beast::error_code ClientConnection::run(Clock::time_point until, Start start, size_t* transferred) {
    boost::beast::error_code result = net::error::timed_out;
    stream_.tcp().expires_at(until);
    start([&](boost::beast::error_code ec, auto n) {
        result = ec;
        if constexpr (std::is_integral_v<decltype(n)>) {
            if (transferred) *transferred = n;
        }
    });
    io_.restart();
    io_.run();
    return result;
}

bool ClientConnection::send_request(std::string* error) {
    const std::string bytes = request_bytes(call_, error);
    if (bytes.empty() || !connect(error) || !secure(error)) return false;
    const boost::beast::error_code ec = run(deadline_, [&](auto done) { stream_.async_write(net::buffer(bytes), done); });
    if (ec) {
        *error = ec == boost::beast::error::timeout ? "sending the request timed out" : "the request could not be sent";
        return false;
    }
    return true;
}

bool ClientConnection::connect(std::string* error) {
    if (call_.to.https && !call_.trust) {
        *error = "an https:// address, and nothing said whom its certificate must come from";
        return false;
    }
    boost::beast::error_code ec;
    tcp::resolver resolver(io_);
    // Addresses come as they are; a name is looked up by the system (outside the deadline).
    const auto found = resolver.resolve(call_.to.host, std::to_string(call_.to.port), ec);
    if (ec) {
        *error = "the name '" + call_.to.host + "' was not found";
        return false;
    }
    const Clock::time_point connect_by = std::min(deadline_, Clock::now() + std::chrono::milliseconds(call_.connect_timeout_ms));
    ec = run(connect_by, [&](auto done) { stream_.tcp().async_connect(found, done); });
    if (ec) {
        *error = ec == boost::beast::error::timeout ? "connecting timed out" : "connection refused or unreachable";
        return false;
    }
    stream_.socket().set_option(tcp::no_delay(true), ec);
    return true;
}

bool ClientConnection::secure(std::string* error) {
    if (!call_.to.https) return true;
    const std::string& name = call_.to.certificate_name();
    const Clock::time_point done_by = std::min(deadline_, Clock::now() + std::chrono::milliseconds(call_.connect_timeout_ms));
    const boost::beast::error_code ec = run(done_by, [&](auto done) {
        stream_.connect_tls(*call_.trust->context().ssl, name, [done](boost::beast::error_code e) mutable { done(e, size_t{0}); });
    });
    if (!ec) return true;
    const std::string refused = stream_.refused_certificate();
    if (!refused.empty())
        *error = "its certificate is not trusted for '" + name + "' (" + refused + "): nothing was sent";
    else if (ec == boost::beast::error::timeout)
        *error = "the TLS handshake timed out";
    else
        *error = "the TLS handshake failed (" + ec.message() + ")";
    return false;
}

void ClientConnection::collect() {
    auto& body = parser_.get().body();
    if (body.size() == 0) return;
    body_bytes_ += body.size();
    pending_ += boost::beast::buffers_to_string(body.data());
    body.consume(body.size());
}

bool ClientConnection::over_limit() const {
    if (body_bytes_ > max_body_) return true;
    if (!parser_.is_header_done()) return false;
    const boost::optional<std::uint64_t> length = parser_.content_length();
    return length && *length > max_body_;
}

ClientConnection::Got ClientConnection::next(Clock::time_point until, std::string* piece, std::string* error) {
    for (;;) {
        collect();
        if (over_limit()) {
            *error = "the answer was too large (over " + std::to_string(max_body_) + " bytes)";
            return Got::Failed;
        }
        if (parser_.is_header_done() && !head_told_) {
            head_told_ = true;
            return Got::Head;
        }
        if (!pending_.empty()) {
            *piece = std::move(pending_);
            pending_.clear();
            return Got::Piece;
        }
        if (parser_.is_done() || ended_) return Got::Done;
        size_t n = 0;
        const Clock::time_point read_by = std::min(until, Clock::now() + std::chrono::milliseconds(call_.read_timeout_ms));
        boost::beast::error_code ec =
            run(read_by, [&](auto done) { stream_.async_read_some(in_.prepare(kAnswerReadChunk), done); }, &n);
        in_.commit(n);
        // Over TLS a close without close_notify is its own error: an answer cut there is not whole.
        if ((ec == net::error::eof || ec == net::ssl::error::stream_truncated) && !parser_.got_some()) {
            *error = "the connection closed without an answer";
            return Got::Failed;
        }
        if (ec == net::error::eof) {
            parser_.put_eof(ec);  // an answer without a length ends with the connection
            ended_ = !ec;
        } else if (!ec) {
            while (in_.size() > 0 && !parser_.is_done() && !ec) {
                const size_t used = parser_.put(in_.data(), ec);
                in_.consume(used);
                if (ec == bh::error::need_more) {
                    ec = {};
                    if (in_.size() >= kAnswerHeadLimit) ec = bh::error::header_limit;  // a line that never ends
                    break;
                }
            }
        }
        if (!ec) continue;
        if (ec == bh::error::header_limit)
            *error = "the answer's headers were too large (over " + std::to_string(kAnswerHeadLimit) + " bytes)";
        else if (ec == boost::beast::error::timeout)
            *error = Clock::now() >= deadline_ && until >= deadline_
                         ? "no whole answer within " + std::to_string(call_.total_timeout_ms) + " ms"
                         : "the answer stopped or timed out";
        else if (ec == net::error::operation_aborted)
            *error = "cancelled";
        else
            *error = "the answer stopped or was malformed (" + ec.message() + ")";
        return Got::Failed;
    }
}

void ClientConnection::interrupt() {
    net::post(io_, [this] { stream_.close(); });
}

}  // namespace vf::http
