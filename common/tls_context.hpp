// OpenSSL contexts for HTTPS (common/http_server.cpp serves it, common/http_client.cpp calls it):
// TLS 1.2 and later, no compression, no renegotiation, forward-secret AEAD ciphers for TLS 1.2
// (TLS 1.3's own suites are all of that kind). Each context is made once by its owner (the
// server, an HttpsTrust) and read by every connection it makes. A file is named in errors,
// its content never (a key file's bytes must not reach a log). Internal to common/.
#pragma once

#include <boost/asio/ssl/context.hpp>

#include <memory>
#include <string>

namespace vf::http {

// The option names the errors use (serve's command line).
inline constexpr const char* kTlsCertOption = "--tls-cert";
inline constexpr const char* kTlsKeyOption = "--tls-key";

// A server's context from a PEM certificate chain (the server's certificate first) and its PEM
// private key, checked to match. Throws Error(Usage) with a one-line reason.
std::unique_ptr<boost::asio::ssl::context> server_tls_context(const std::string& cert_file, const std::string& key_file);

// A client's context that verifies every server: against the certificates of `ca_file` (PEM)
// alone, or the system's trust store when it is empty. Throws Error(Usage) naming `option`.
std::unique_ptr<boost::asio::ssl::context> client_tls_context(const std::string& ca_file, const std::string& option);

}  // namespace vf::http
