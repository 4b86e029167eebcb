// Calls to https:// addresses (common/http_client.cpp) against vfilter's own server with a
// certificate made for the test: a call sends its request only to a server whose certificate a
// trusted CA signed for the name called (an IP address, or the name a dns: peer was found by);
// a whole and a streamed answer come over TLS as over TCP, and leaving a streamed one ends the
// server's side; a server that never finishes its handshake cannot hold a call past its connect
// timeout; a CA file that cannot be used is a usage error.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "common/error.hpp"
#include "common/http_client.hpp"
#include "common/http_server.hpp"
#include "support/test_certificates.hpp"

namespace vf {
namespace {

using namespace std::chrono_literals;

class HttpClientTls : public ::testing::Test {
protected:
    static void SetUpTestSuite() { certs_ = new test::TestCertificates(test::make_test_certificates()); }
    static void TearDownTestSuite() { delete certs_; }
    static const test::TestCertificates& certs() { return *certs_; }

    // An HTTPS server with `cert`, counting the requests it was sent.
    std::unique_ptr<HttpServer> server(const std::string& cert, const std::string& key) {
        HttpServerOptions o;
        o.tls_cert_file = cert;
        o.tls_key_file = key;
        return std::make_unique<HttpServer>(o, [this](const HttpRequest& r) {
            ++requests;
            return HttpResponse{200, "text/plain", "seen " + r.method + " " + r.path + " " + r.body + "\n"};
        });
    }
    static HttpCall call_to(int port, const std::string& ca, const std::string& server_name = "") {
        HttpCall call;
        call.to = {"127.0.0.1", port, true, server_name};
        call.trust = std::make_shared<const HttpsTrust>(ca);
        return call;
    }

    std::atomic<int> requests{0};

private:
    static test::TestCertificates* certs_;
};

test::TestCertificates* HttpClientTls::certs_ = nullptr;

TEST_F(HttpClientTls, ARequestGoesOnlyToAServerWhoseCertificateIsTrustedForItsName) {
    const auto good = server(certs().cert, certs().key);
    HttpCall call = call_to(good->port(), certs().ca);
    call.method = "POST";
    call.target = "/streams";
    call.body = "{}";
    HttpReply r = http_call(call);
    EXPECT_EQ(r.status, 200) << r.error;
    EXPECT_EQ(r.body, "seen POST /streams {}\n");
    EXPECT_EQ(http_call(call_to(good->port(), certs().ca, "localhost")).status, 200) << "a name its certificate carries";
    EXPECT_EQ(requests.load(), 2);

    struct Refused {
        int port;
        std::string ca, server_name, why;
    };
    const auto stranger = server(certs().stranger_cert, certs().stranger_key);
    const auto misnamed = server(certs().misnamed_cert, certs().misnamed_key);
    for (const Refused& c : std::vector<Refused>{
             {stranger->port(), certs().ca, "", "a CA it does not trust signed it"},
             {good->port(), certs().stranger_ca, "", "trusting another CA"},
             {misnamed->port(), certs().ca, "", "a certificate for another name (called by address)"},
             {misnamed->port(), certs().ca, "localhost", "a certificate for another name (called by name)"},
             {good->port(), certs().ca, "vfilter.example", "a name its certificate does not carry"}}) {
        r = http_call(call_to(c.port, c.ca, c.server_name));
        EXPECT_EQ(r.status, 0) << c.why;
        EXPECT_NE(r.error.find("not trusted"), std::string::npos) << c.why << ": " << r.error;
        EXPECT_NE(r.error.find("nothing was sent"), std::string::npos) << r.error;
    }
    EXPECT_EQ(requests.load(), 2) << "a request reached a server that had not proved itself";
    // No trust given: refused before connecting. HTTPS to a plain server: no handshake, nothing sent.
    call.trust = nullptr;
    EXPECT_EQ(http_call(call).status, 0);
    HttpServer plain(HttpServerOptions{}, [this](const HttpRequest&) {
        ++requests;
        return HttpResponse{};
    });
    r = http_call(call_to(plain.port(), certs().ca));
    EXPECT_EQ(r.status, 0);
    EXPECT_NE(r.error.find("handshake"), std::string::npos) << r.error;
    EXPECT_EQ(requests.load(), 2);
}

TEST_F(HttpClientTls, AStreamedAnswerComesOverHttpsAndLeavingItEndsIt) {
    std::atomic<bool> ended{false};
    HttpServerOptions o;
    o.tls_cert_file = certs().cert;
    o.tls_key_file = certs().key;
    HttpServer streaming(o, [&](const HttpRequest&) {
        HttpResponse r;
        r.content_type = "application/octet-stream";
        r.stream = [&](const HttpBodyWriter& write) {
            for (int i = 0; write("piece" + std::to_string(i) + ";"); ++i) std::this_thread::sleep_for(20ms);
            ended = true;
        };
        return r;
    });
    HttpCall call = call_to(streaming.port(), certs().ca);
    call.target = "/live";
    {
        auto [stream, head] = HttpStreamedCall::open(call);
        ASSERT_TRUE(stream) << head.error;
        EXPECT_EQ(head.status, 200);
        std::string got, piece;
        while (got.find("piece5;") == std::string::npos) {
            ASSERT_EQ(stream->next(&piece, 2000), HttpStreamedCall::Next::Piece) << got;
            got += piece;
        }
        EXPECT_EQ(got.rfind("piece0;", 0), 0u) << got;
    }
    for (int i = 0; i < 100 && !ended; ++i) std::this_thread::sleep_for(20ms);
    EXPECT_TRUE(ended) << "the server kept writing after the client left";
}

TEST_F(HttpClientTls, AServerThatNeverFinishesItsHandshakeCannotHoldTheCall) {
    // Takes connections and says nothing: the client's hello is never answered.
    const int listener = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t size = sizeof addr;
    ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr*>(&addr), size), 0);
    listen(listener, 4);
    getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &size);
    HttpCall call = call_to(ntohs(addr.sin_port), certs().ca);
    call.connect_timeout_ms = 300;
    call.total_timeout_ms = 8000;
    const auto began = std::chrono::steady_clock::now();
    const HttpReply r = http_call(call);
    EXPECT_EQ(r.status, 0);
    EXPECT_NE(r.error.find("handshake timed out"), std::string::npos) << r.error;
    EXPECT_LT(std::chrono::steady_clock::now() - began, 1000ms);
    close(listener);
}

TEST_F(HttpClientTls, ACaFileThatCannotBeUsedIsAUsageError) {
    for (const std::string& file : {certs().dir + "/missing.pem", certs().key}) {
        try {
            HttpsTrust trust(file, "--tls-ca");
            ADD_FAILURE() << "trusted " << file;
        } catch (const Error& e) {
            EXPECT_EQ(e.category(), ErrorCategory::Usage);
            EXPECT_EQ(std::string(e.what()).rfind("--tls-ca '" + file + "': ", 0), 0u) << e.what();
        }
    }
}

}  // namespace
}  // namespace vf
