#include "common/tls_context.hpp"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/error.hpp"

namespace vf::http {
namespace {

namespace ssl = boost::asio::ssl;

// For TLS 1.2: ECDHE key exchange (forward secrecy) and AEAD ciphers only, as Mozilla's
// "intermediate" profile without its finite-field DHE (which needs parameters of our own).
constexpr const char* kTls12Ciphers =
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:"
    "ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305";

struct BioCloser {
    void operator()(BIO* b) const { BIO_free(b); }
};
struct KeyCloser {
    void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};

// An encrypted key would make OpenSSL ask for its passphrase on the terminal: never.
int no_passphrase(char*, int, int, void*) { return 0; }

// Throws unless `path` can be opened for reading, with the system's reason.
void require_readable(const std::string& path, const std::string& option) {
    if (path.empty()) fail(ErrorCategory::Usage, option + ": no file given");
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) fail(ErrorCategory::Usage, option + " '" + path + "': cannot be read (" + std::strerror(errno) + ")");
    std::fclose(f);
}

void restrict_protocol(ssl::context& context) {
    SSL_CTX* ctx = context.native_handle();
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    SSL_CTX_set_options(ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION);
    SSL_CTX_set_cipher_list(ctx, kTls12Ciphers);
    SSL_CTX_set_default_passwd_cb(ctx, no_passphrase);
}

void load_private_key(SSL_CTX* ctx, const std::string& key_file, const std::string& cert_file) {
    require_readable(key_file, kTlsKeyOption);
    std::unique_ptr<BIO, BioCloser> bio(BIO_new_file(key_file.c_str(), "rb"));
    std::unique_ptr<EVP_PKEY, KeyCloser> key(bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, no_passphrase, nullptr) : nullptr);
    if (!key) {
        ERR_clear_error();
        fail(ErrorCategory::Usage, std::string(kTlsKeyOption) + " '" + key_file +
                                       "': no PEM private key in it that opens without a passphrase");
    }
    if (SSL_CTX_use_PrivateKey(ctx, key.get()) != 1 || SSL_CTX_check_private_key(ctx) != 1) {
        ERR_clear_error();
        fail(ErrorCategory::Usage, std::string(kTlsKeyOption) + " '" + key_file + "' is not the key of the certificate in " +
                                       kTlsCertOption + " '" + cert_file + "'");
    }
}

}  // namespace

std::unique_ptr<ssl::context> server_tls_context(const std::string& cert_file, const std::string& key_file) {
    auto context = std::make_unique<ssl::context>(ssl::context::tls_server);
    restrict_protocol(*context);
    SSL_CTX* ctx = context->native_handle();
    require_readable(cert_file, kTlsCertOption);
    if (SSL_CTX_use_certificate_chain_file(ctx, cert_file.c_str()) != 1) {
        ERR_clear_error();
        fail(ErrorCategory::Usage, std::string(kTlsCertOption) + " '" + cert_file + "': no PEM certificate in it");
    }
    load_private_key(ctx, key_file, cert_file);
    return context;
}

std::unique_ptr<ssl::context> client_tls_context(const std::string& ca_file, const std::string& option) {
    auto context = std::make_unique<ssl::context>(ssl::context::tls_client);
    restrict_protocol(*context);
    SSL_CTX* ctx = context->native_handle();
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
    if (ca_file.empty()) {
        if (SSL_CTX_set_default_verify_paths(ctx) != 1) ERR_clear_error();  // no store: every server is refused
        return context;
    }
    require_readable(ca_file, option);
    if (SSL_CTX_load_verify_locations(ctx, ca_file.c_str(), nullptr) != 1) {
        ERR_clear_error();
        fail(ErrorCategory::Usage, option + " '" + ca_file + "': no PEM certificate in it");
    }
    return context;
}

}  // namespace vf::http
