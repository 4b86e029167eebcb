#include "common/http_byte_stream.hpp"

#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <boost/asio/post.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/write.hpp>

namespace vf::http {
namespace {

namespace net = boost::asio;
using tcp = net::ip::tcp;

bool is_ip_address(const std::string& name) {
    boost::system::error_code ec;
    net::ip::make_address(name, ec);
    return !ec;
}

}  // namespace

ByteStream::ByteStream(tcp::socket accepted) : tcp_(std::move(accepted)) {}

ByteStream::ByteStream(net::io_context& io) : tcp_(io) {}

void ByteStream::accept_tls(net::ssl::context& context, net::const_buffer received, Moved done) {
    tls_ = std::make_unique<boost::beast::ssl_stream<boost::beast::tcp_stream&>>(tcp_, context);
    tls_->async_handshake(net::ssl::stream_base::server, received, std::move(done));
}

void ByteStream::connect_tls(net::ssl::context& context, const std::string& server_name, Done done) {
    tls_ = std::make_unique<boost::beast::ssl_stream<boost::beast::tcp_stream&>>(tcp_, context);
    SSL* ssl = tls_->native_handle();
    // Verification must name what is checked: without a name set, any trusted certificate
    // would do. A name that cannot be set ends the call before anything is sent.
    bool named;
    if (is_ip_address(server_name)) {
        named = X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), server_name.c_str()) == 1;
    } else {
        SSL_set_hostflags(ssl, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
        named = !server_name.empty() && SSL_set1_host(ssl, server_name.c_str()) == 1 &&
                SSL_set_tlsext_host_name(ssl, server_name.c_str()) == 1;
    }
    if (!named) {
        net::post(tcp_.get_executor(), [done = std::move(done)] { done(net::error::invalid_argument); });
        return;
    }
    SSL_set_verify(ssl, SSL_VERIFY_PEER, nullptr);
    tls_->async_handshake(net::ssl::stream_base::client, std::move(done));
}

std::string ByteStream::refused_certificate() const {
    if (!tls_) return "";
    const long result = SSL_get_verify_result(tls_->native_handle());
    return result == X509_V_OK ? "" : X509_verify_cert_error_string(result);
}

void ByteStream::async_read_some(net::mutable_buffer into, Moved done) {
    if (tls_) tls_->async_read_some(into, std::move(done));
    else tcp_.async_read_some(into, std::move(done));
}

void ByteStream::async_write(net::const_buffer bytes, Moved done) {
    if (tls_) net::async_write(*tls_, bytes, std::move(done));
    else net::async_write(tcp_, bytes, std::move(done));
}

void ByteStream::async_shutdown(Done done) {
    const auto end_sending = [this, done = std::move(done)](boost::beast::error_code ec) {
        boost::beast::error_code ignored;
        tcp_.socket().shutdown(tcp::socket::shutdown_send, ignored);
        done(ec);
    };
    if (tls_) tls_->async_shutdown(end_sending);
    else net::post(tcp_.get_executor(), [end_sending] { end_sending({}); });
}

void ByteStream::close() {
    boost::beast::error_code ec;
    tcp_.socket().shutdown(tcp::socket::shutdown_both, ec);
    tcp_.close();
}

}  // namespace vf::http
