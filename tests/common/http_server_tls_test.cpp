// The HTTP server with a certificate (HttpServerOptions::tls_cert_file): it speaks HTTPS only,
// with certificates made for the test by the openssl command. curl and vfilter's own client get
// answers when they trust its CA and are refused when they do not; TLS below 1.2 is refused; a
// plain HTTP request is refused at once in plain text; a handshake is bounded as a request is
// (silent connections and ClientHellos sent a byte at a time are dropped at their deadlines
// while probes answer) and counts against the connection cap; unusable files are one-line usage
// errors that never quote the key.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "common/error.hpp"
#include "common/http_client.hpp"
#include "common/http_server.hpp"
#include "support/child_process.hpp"
#include "support/http_client.hpp"
#include "support/run_command.hpp"
#include "support/test_certificates.hpp"

namespace vf {
namespace {

using namespace std::chrono_literals;
using TlsClock = std::chrono::steady_clock;

class HttpServerTls : public ::testing::Test {
protected:
    static void SetUpTestSuite() { certs_ = new test::TestCertificates(test::make_test_certificates()); }
    static void TearDownTestSuite() { delete certs_; }
    static const test::TestCertificates& certs() { return *certs_; }

    HttpServerOptions tls_options() const {
        HttpServerOptions o;
        o.timeout_s = 1;
        o.tls_cert_file = certs().cert;
        o.tls_key_file = certs().key;
        return o;
    }
    HttpHandler counted() {
        return [this](const HttpRequest& r) {
            ++calls;
            return HttpResponse{200, "text/plain", r.path == "/healthz" ? "ok\n" : "seen " + r.path + "\n"};
        };
    }
    // GET path over HTTPS with vfilter's client, trusting `ca`.
    static HttpReply get(int port, const std::string& path, const std::string& ca) {
        HttpCall call;
        call.to = {"127.0.0.1", port, true};
        call.target = path;
        call.trust = std::make_shared<const HttpsTrust>(ca);
        return http_call(call);
    }
    static test::CommandResult curl(const std::vector<std::string>& args) {
        std::vector<std::string> argv = {"curl", "-sS", "-m", "5"};
        argv.insert(argv.end(), args.begin(), args.end());
        return test::run_command(argv, 10);
    }

    std::atomic<int> calls{0};

private:
    static test::TestCertificates* certs_;
};

test::TestCertificates* HttpServerTls::certs_ = nullptr;

TEST_F(HttpServerTls, AnswersClientsThatTrustItsCaAndNoOthers) {
    HttpServer server(tls_options(), counted());
    EXPECT_TRUE(server.https());
    const std::string url = "https://127.0.0.1:" + std::to_string(server.port()) + "/healthz";
    test::CommandResult r = curl({"--cacert", certs().ca, url});
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(r.output, "ok\n");
    // By name, as a browser would ask.
    r = curl({"--cacert", certs().ca, "--resolve", "localhost:" + std::to_string(server.port()) + ":127.0.0.1",
              "https://localhost:" + std::to_string(server.port()) + "/x"});
    EXPECT_EQ(r.output, "seen /x\n");
    r = curl({"--cacert", certs().stranger_ca, url});
    EXPECT_EQ(r.exit_code, 60) << "curl trusted a server its CA never signed: " << r.output;
    r = curl({"--cacert", certs().ca, "--tlsv1.1", "--tls-max", "1.1", url});
    EXPECT_EQ(r.exit_code, 35) << "TLS 1.1 was spoken: " << r.output;
    r = curl({"--cacert", certs().ca, "--tlsv1.2", "--tls-max", "1.2", url});
    EXPECT_EQ(r.output, "ok\n") << "TLS 1.2 is still spoken";
    EXPECT_EQ(calls.load(), 3);

    EXPECT_EQ(get(server.port(), "/healthz", certs().ca).body, "ok\n");
    const HttpReply refused = get(server.port(), "/healthz", certs().stranger_ca);
    EXPECT_EQ(refused.status, 0);
    EXPECT_NE(refused.error.find("not trusted"), std::string::npos) << refused.error;
    EXPECT_EQ(calls.load(), 4) << "a client that did not trust the server sent its request anyway";
}

TEST_F(HttpServerTls, PlainHttpIsRefusedAtOnceAndTheServerGoesOn) {
    HttpServer server(tls_options(), counted());
    auto t = TlsClock::now();
    const std::string answer = test::http_exchange(server.port(), "GET /streams HTTP/1.1\r\nHost: x\r\n\r\n");
    EXPECT_LT(TlsClock::now() - t, 500ms) << "a plain request waited";
    EXPECT_EQ(answer.rfind("HTTP/1.1 400 ", 0), 0u) << answer;
    EXPECT_NE(answer.find("this port speaks HTTPS only"), std::string::npos) << answer;
    // Bytes that are neither TLS nor HTTP: closed as soon as TLS reads them.
    t = TlsClock::now();
    EXPECT_EQ(test::http_exchange(server.port(), std::string("\x01\x02\x03\x04\x05\x06\x07\x08", 8)), "");
    EXPECT_LT(TlsClock::now() - t, 500ms);
    EXPECT_EQ(calls.load(), 0);
    EXPECT_EQ(get(server.port(), "/healthz", certs().ca).status, 200);
}

TEST_F(HttpServerTls, SilentAndTricklingHandshakesAreDroppedAtTheirDeadlinesWhileProbesAnswer) {
    HttpServerOptions o = tls_options();
    o.request_deadline_ms = 1500;
    o.workers = 2;
    o.inline_paths = {"/healthz"};
    HttpServer server(o, counted());
    std::vector<std::unique_ptr<test::HttpConnection>> silent, trickling;
    for (int i = 0; i < 32; ++i) silent.push_back(std::make_unique<test::HttpConnection>(server.port(), ""));
    for (int i = 0; i < 32; ++i) trickling.push_back(std::make_unique<test::HttpConnection>(server.port(), ""));
    // The start of a ClientHello (a handshake record of 512 bytes), one byte every 500 ms.
    const std::string hello("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", 11);
    std::atomic<bool> done{false};
    std::thread trickle([&] {
        for (size_t at = 0; at < hello.size() && !done; ++at) {
            for (auto& c : trickling) c->send(hello.substr(at, 1));
            for (int i = 0; i < 10 && !done; ++i) std::this_thread::sleep_for(50ms);
        }
    });
    const auto trust = std::make_shared<const HttpsTrust>(certs().ca);
    std::vector<double> ms;
    for (int i = 0; i < 100; ++i) {  // about 2.5 s: past both deadlines
        HttpCall probe;
        probe.to = {"127.0.0.1", server.port(), true};
        probe.target = "/healthz";
        probe.trust = trust;
        const auto t = TlsClock::now();
        EXPECT_EQ(http_call(probe).status, 200);
        ms.push_back(std::chrono::duration<double, std::milli>(TlsClock::now() - t).count());
        std::this_thread::sleep_for(20ms);
    }
    std::sort(ms.begin(), ms.end());
    // A probe held behind a stalled client would wait for its 1.5 s deadline; two thirds of that
    // tells the two apart on a loaded machine under a sanitizer too, and the median stays short.
    EXPECT_LE(ms[50], 200.0) << "median of /healthz";
    EXPECT_LE(ms[98], 1000.0) << "p99 of /healthz over HTTPS beside 64 stalled handshakes; median " << ms[50] << " ms";
    int closed_silent = 0, closed_trickling = 0;
    for (auto& c : silent) closed_silent += c->closed_by_server(3s) ? 1 : 0;
    for (auto& c : trickling) closed_trickling += c->closed_by_server(3s) ? 1 : 0;
    done = true;
    trickle.join();
    EXPECT_EQ(closed_silent, 32) << "connections that never said hello outlived the idle deadline";
    EXPECT_EQ(closed_trickling, 32) << "handshakes sent a byte at a time outlived their deadline";
    EXPECT_EQ(calls.load(), 100);
}

TEST_F(HttpServerTls, HandshakesCountAgainstTheConnectionCap) {
    HttpServerOptions o = tls_options();
    o.timeout_s = 5;  // the four stay open while the fifth tries
    o.max_connections = 4;
    HttpServer server(o, counted());
    std::vector<std::unique_ptr<test::HttpConnection>> four;
    for (int i = 0; i < 4; ++i) four.push_back(std::make_unique<test::HttpConnection>(server.port(), std::string("\x16\x03\x01", 3)));
    std::this_thread::sleep_for(200ms);  // accepted, each waiting for the rest of its hello
    const HttpReply fifth = get(server.port(), "/healthz", certs().ca);
    EXPECT_EQ(fifth.status, 0) << "a fifth connection was served beside four handshakes under way";
    four.clear();  // they leave: their places come back
    bool served = false;
    for (int i = 0; i < 100 && !served; ++i) {
        served = get(server.port(), "/healthz", certs().ca).status == 200;
        if (!served) std::this_thread::sleep_for(20ms);
    }
    EXPECT_TRUE(served);
}

// What a server refuses to start with: one line naming the option and the file, never the key.
TEST_F(HttpServerTls, UnusableFilesAreUsageErrorsThatNeverQuoteTheKey) {
    const std::string dir = test::temp_dir();
    const std::string secret = "-----BEGIN PRIVATE KEY-----\nTHIS-IS-KEY-MATERIAL-NOT-TO-BE-SHOWN\n-----END PRIVATE KEY-----\n";
    const std::string bad_key = dir + "/bad.key";
    FILE* f = std::fopen(bad_key.c_str(), "w");
    std::fputs(secret.c_str(), f);
    std::fclose(f);
    const std::string key_text = test::read_file(certs().key);
    const std::string key_body = key_text.substr(key_text.find('\n') + 1, 40);  // base64 of the real key
    struct Case {
        std::string cert, key, want;
    };
    const std::vector<Case> cases = {
        {certs().cert, "", "--tls-cert and --tls-key go together"},
        {"", certs().key, "--tls-cert and --tls-key go together"},
        {dir + "/missing.pem", certs().key, "--tls-cert '" + dir + "/missing.pem': cannot be read"},
        {certs().key, certs().key, "no PEM certificate in it"},
        {certs().cert, bad_key, "--tls-key '" + bad_key + "': no PEM private key"},
        {certs().cert, certs().cert, "no PEM private key"},
        {certs().cert, certs().stranger_key, "is not the key of the certificate in --tls-cert"},
    };
    for (const Case& c : cases) {
        HttpServerOptions o;
        o.tls_cert_file = c.cert;
        o.tls_key_file = c.key;
        try {
            HttpServer server(o, counted());
            ADD_FAILURE() << "started with cert '" << c.cert << "' and key '" << c.key << "'";
        } catch (const Error& e) {
            const std::string what = e.what();
            EXPECT_EQ(e.category(), ErrorCategory::Usage) << what;
            EXPECT_NE(what.find(c.want), std::string::npos) << what;
            EXPECT_EQ(what.find('\n'), std::string::npos) << what;
            EXPECT_EQ(what.find("KEY-MATERIAL"), std::string::npos) << what;
            EXPECT_EQ(what.find(key_body), std::string::npos) << what;
        }
    }
}

}  // namespace
}  // namespace vf
