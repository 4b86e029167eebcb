// A connection's bytes, over plain TCP or over TLS on that TCP connection: the server's
// connections (common/http_connection.hpp) and the client's (common/http_client_connection.hpp)
// read and write through it without knowing which. It starts plain; a handshake turns TLS on for
// the rest of the connection. The TCP stream's deadline (tcp().expires_at) bounds every read and
// write either way, the handshake's included, since TLS reads and writes through it. Owns the
// TCP stream and the TLS state; the contexts belong to the server or the client's trust. Not
// movable: the TLS state refers to the TCP stream. Internal to common/.
#pragma once

#include <boost/asio/buffer.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>

#include <functional>
#include <memory>
#include <string>

namespace vf::http {

class ByteStream {
public:
    using Done = std::function<void(boost::beast::error_code)>;
    using Moved = std::function<void(boost::beast::error_code, size_t)>;  // bytes read, written or used

    explicit ByteStream(boost::asio::ip::tcp::socket accepted);
    explicit ByteStream(boost::asio::io_context& io);  // to be connected through tcp()
    ByteStream(const ByteStream&) = delete;
    ByteStream& operator=(const ByteStream&) = delete;

    // The TCP stream beneath: its deadline, connecting, socket options, shutting down.
    boost::beast::tcp_stream& tcp() { return tcp_; }
    boost::asio::ip::tcp::socket& socket() { return tcp_.socket(); }
    bool encrypted() const { return tls_ != nullptr; }

    // The server's side of a handshake: TLS from here on. `received` holds the bytes read from
    // TCP before (the client's hello, or its start); `done` gets how many of them it used.
    void accept_tls(boost::asio::ssl::context& context, boost::asio::const_buffer received, Moved done);
    // The client's side: TLS from here on, once the server proved a certificate that `context`
    // trusts and that names `server_name` (a host name, or an IP address in its IP field).
    void connect_tls(boost::asio::ssl::context& context, const std::string& server_name, Done done);
    // Why the server's certificate was refused ("" when it was not): after connect_tls failed.
    std::string refused_certificate() const;

    void async_read_some(boost::asio::mutable_buffer into, Moved done);
    void async_write(boost::asio::const_buffer bytes, Moved done);  // every byte, or an error
    // TLS: says close_notify and waits for the other side's (within the deadline). Plain TCP:
    // nothing to say. Then the TCP connection's sending side is shut.
    void async_shutdown(Done done);
    void close();

private:
    boost::beast::tcp_stream tcp_;
    std::unique_ptr<boost::beast::ssl_stream<boost::beast::tcp_stream&>> tls_;
};

}  // namespace vf::http
