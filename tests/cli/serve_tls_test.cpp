// `vfilter serve --tls-cert --tls-key` as an operator meets it, with certificates made for the
// test by the openssl command: TLS options that cannot be used stop serve at start (exit 2, one
// line, never the key's bytes); the API answers over HTTPS only (curl trusting the CA, the token
// rule unchanged, plain HTTP refused at once); two processes form a fleet over HTTPS (the fleet
// list, a forwarded write and a relayed MJPEG preview), found by address or by DNS name; a peer
// whose certificate is not trusted, or names another host, is never sent a request.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "app/serve/serve_config.hpp"
#include "common/http_client.hpp"
#include "common/http_server.hpp"
#include "support/child_process.hpp"
#include "support/http_client.hpp"
#include "support/run_command.hpp"
#include "support/shard_names.hpp"
#include "support/test_certificates.hpp"

namespace vf {
namespace {

using namespace test;
using namespace std::chrono_literals;

const std::string kTlsToken = "tls-test-token-0123456789";

class TlsSuite : public ::testing::Test {
protected:
    static void SetUpTestSuite() { certs_ = new TestCertificates(make_test_certificates()); }
    static void TearDownTestSuite() { delete certs_; }
    static const TestCertificates& certs() { return *certs_; }

    // A call to 127.0.0.1:port over HTTPS with vfilter's own client, trusting the test's CA.
    static HttpReply ask(int port, const std::string& method, const std::string& target, const std::string& body = "",
                         const std::string& token = kTlsToken) {
        HttpCall call;
        call.to = {"127.0.0.1", port, true};
        call.method = method;
        call.target = target;
        call.body = body;
        call.content_type = "application/json";
        if (!token.empty()) call.headers = {{"Authorization", "Bearer " + token}};
        call.trust = std::make_shared<const HttpsTrust>(certs().ca);
        return http_call(call);
    }
    static std::vector<std::string> tls_args() { return {"--tls-cert", certs().cert, "--tls-key", certs().key}; }

private:
    static TestCertificates* certs_;
};

TestCertificates* TlsSuite::certs_ = nullptr;

class ServeTls : public TlsSuite {};

TEST_F(ServeTls, UnusableTlsOptionsExit2WithOneLineAndNoKeyBytes) {
    const TestCertificates& c = certs();
    const std::string dir = temp_dir();
    std::ofstream(dir + "/garbage.key") << "-----BEGIN PRIVATE KEY-----\nTHIS-IS-KEY-MATERIAL-NOT-TO-BE-SHOWN\n-----END PRIVATE KEY-----\n";
    ASSERT_EQ(run_command({"openssl", "pkey", "-in", c.key, "-aes256", "-passout", "pass:a-passphrase", "-out", dir + "/encrypted.key"}).exit_code, 0);
    const std::string key_text = read_file(c.key);
    const std::string key_body = key_text.substr(key_text.find('\n') + 1, 40);  // base64 of the real key
    struct Case {
        std::vector<std::string> args;
        std::string want;
        std::string env = "VFILTER_TLS_CA=";  // the serve: block's tls-ca, as a deployment sets it
    };
    const std::vector<Case> cases = {
        {{"--tls-cert", c.cert}, "--tls-cert requires --tls-key"},
        {{"--tls-key", c.key}, "--tls-key requires --tls-cert"},
        {{"--tls-cert", dir + "/missing.pem", "--tls-key", c.key}, "--tls-cert '" + dir + "/missing.pem': cannot be read"},
        {{"--tls-cert", c.key, "--tls-key", c.key}, "no PEM certificate in it"},
        {{"--tls-cert", c.cert, "--tls-key", dir + "/garbage.key"}, "no PEM private key in it"},
        {{"--tls-cert", c.cert, "--tls-key", dir + "/encrypted.key"}, "without a passphrase"},
        {{"--tls-cert", c.cert, "--tls-key", c.stranger_key}, "is not the key of the certificate in --tls-cert"},
        {{}, "tls-ca needs --tls-cert", "VFILTER_TLS_CA=" + c.ca},
        {{"--tls-cert", c.cert, "--tls-key", c.key}, "tls-ca '" + c.key + "': no PEM certificate", "VFILTER_TLS_CA=" + c.key},
        {{"--tls-cert", c.cert, "--tls-key", c.key, "--peers", "http://127.0.0.1:9"}, "calls its peers over HTTPS only"},
        {{"--peers", "https://127.0.0.1:9"}, "a fleet speaks one scheme"},
    };
    for (const Case& k : cases) {
        std::vector<std::string> argv = {"env", k.env, VFILTER_BIN, "serve", "--demo", "1", "--api-port", "0"};
        argv.insert(argv.end(), k.args.begin(), k.args.end());
        const CommandResult r = run_command(argv, 30);
        EXPECT_EQ(r.exit_code, 2) << k.want << "\n" << r.output;
        const size_t at = r.output.find("vfilter: error: ");
        ASSERT_NE(at, std::string::npos) << r.output;
        const std::string line = r.output.substr(at, r.output.find('\n', at) - at);
        EXPECT_NE(line.find(k.want), std::string::npos) << line;
        EXPECT_EQ(r.output.find("vfilter: error: ", at + 1), std::string::npos) << "more than one error line:\n" << r.output;
        EXPECT_EQ(r.output.find("KEY-MATERIAL"), std::string::npos) << r.output;
        EXPECT_EQ(r.output.find(key_body), std::string::npos) << r.output;
        EXPECT_EQ(r.output.find("control API"), std::string::npos) << "the API started:\n" << r.output;
    }
    // The environment's twins: one without the other is the same usage error.
    const CommandResult r = run_command({"env", "VFILTER_TLS_KEY=" + c.key, VFILTER_BIN, "serve", "--demo", "1", "--api-port", "0"}, 30);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("--tls-key requires --tls-cert"), std::string::npos) << r.output;
}

TEST_F(ServeTls, TheApiAnswersOverHttpsOnlyWithTheTokenRuleUnchanged) {
    const std::string dir = temp_dir();
    const int port = free_port();
    std::vector<std::string> argv = {VFILTER_BIN, "serve", "--demo", "1", "--api-port", std::to_string(port), "--api-token", kTlsToken};
    for (const std::string& a : tls_args()) argv.push_back(a);
    ChildProcess serve(argv, dir + "/serve.log");
    ASSERT_TRUE(serve.wait_for_log("control API: https://127.0.0.1:" + std::to_string(port), 30)) << serve.log();
    const std::string base = "https://127.0.0.1:" + std::to_string(port);
    CommandResult r = run_command({"curl", "-sS", "-m", "5", "--cacert", certs().ca, base + "/healthz"}, 10);
    EXPECT_EQ(r.output, "ok\n") << r.output;
    r = run_command({"curl", "-sS", "-m", "5", "--cacert", certs().ca, "-H", "Authorization: Bearer " + kTlsToken, base + "/streams"}, 10);
    const nlohmann::json streams = nlohmann::json::parse(r.output, nullptr, false);
    ASSERT_TRUE(streams.is_array()) << r.output;
    EXPECT_EQ(streams[0]["name"], "demo1");
    r = run_command({"curl", "-sS", "-m", "5", "-o", "/dev/null", "-w", "%{http_code}", "--cacert", certs().ca, base + "/streams"}, 10);
    EXPECT_EQ(r.output, "401") << "no token";
    r = run_command({"curl", "-sS", "-m", "5", "--cacert", certs().stranger_ca, base + "/healthz"}, 10);
    EXPECT_EQ(r.exit_code, 60) << r.output;
    const auto t = std::chrono::steady_clock::now();
    const std::string plain = http_exchange(port, "GET /streams HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + kTlsToken + "\r\n\r\n");
    EXPECT_LT(std::chrono::steady_clock::now() - t, 1s);
    EXPECT_EQ(plain.rfind("HTTP/1.1 400 ", 0), 0u) << plain;
    EXPECT_EQ(plain.find("demo1"), std::string::npos) << "answered in clear: " << plain;
    EXPECT_EQ(ask(port, "GET", "/healthz").status, 200) << "the server went on";
    EXPECT_EQ(ask(port, "GET", "/streams").status, 200);
    serve.signal(SIGTERM);
    EXPECT_EQ(serve.wait(20), 0) << serve.log();
}

// Two processes, shards 0 and 1 of 2, calling each other over HTTPS.
class FleetTls : public TlsSuite {
protected:
    void SetUp() override {
        dir = temp_dir();
        std::string yaml = "defaults: {output: 'null', filter: sobel}\nstreams:\n";
        for (int k = 0; k < 2; ++k) {
            names[k] = name_in_shard(k);
            yaml += "  - {name: " + names[k] + ", input: 'pattern://?size=96x64&rate=25&motion=checker'}\n";
        }
        std::ofstream(dir + "/streams.yaml") << yaml;
        for (int& p : ports) p = free_port();
    }
    static std::string name_in_shard(int k) { return test::name_in_shard("cam", k, 2); }
    std::unique_ptr<ChildProcess> start(int k, const std::string& peers) {
        std::vector<std::string> args = {"env", "VFILTER_TLS_CA=" + certs().ca, VFILTER_BIN, "serve", "--config",
                                         dir + "/streams.yaml", "--shard", std::to_string(k) + "/2", "--api-port",
                                         std::to_string(ports[k]), "--api-token", kTlsToken, "--peers", peers};
        for (const std::string& a : tls_args()) args.push_back(a);
        auto p = std::make_unique<ChildProcess>(args, dir + "/serve-" + std::to_string(k) + ".log");
        EXPECT_TRUE(p->wait_for_log("control API: https://", 30)) << p->log();
        return p;
    }
    // Process k's fleet list once shard s is listed `reachable` (or the last one after timeout_s).
    nlohmann::json fleet_when(int k, int s, bool reachable, double timeout_s) {
        nlohmann::json f;
        for (int i = 0; i < timeout_s * 10; ++i, std::this_thread::sleep_for(100ms)) {
            f = nlohmann::json::parse(ask(ports[k], "GET", "/streams?scope=fleet").body, nullptr, false);
            if (f.is_object() && f["shards"][s]["reachable"] == reachable && (reachable || f["shards"][s].contains("error"))) break;
        }
        return f;
    }
    std::string url(int k) const { return "https://127.0.0.1:" + std::to_string(ports[k]); }

    std::string dir;
    std::string names[2];
    int ports[2] = {};
};

TEST_F(FleetTls, TwoProcessesListForwardAndRelayOverHttps) {
    auto zero = start(0, url(0) + "," + url(1));
    auto one = start(1, url(0) + "," + url(1));
    nlohmann::json f = fleet_when(0, 1, true, 10);
    ASSERT_EQ(f["shards"][1]["reachable"], true) << f.dump(1) << zero->log();
    EXPECT_EQ(f["shards"][1]["address"], url(1));
    EXPECT_EQ(f["streams"].size(), 2u) << f.dump(1);
    // A write for shard 1's stream, sent to process 0, is passed on and done there (once the
    // stream runs: a filter change is refused, 409, while it starts).
    for (int i = 0; i < 300; ++i, std::this_thread::sleep_for(100ms))
        if (nlohmann::json::parse(ask(ports[1], "GET", "/streams/" + names[1]).body, nullptr, false)["state"] == "running") break;
    const HttpReply put = ask(ports[0], "PUT", "/streams/" + names[1] + "/filter", "gaussian=sigma=2");
    ASSERT_EQ(put.status, 200) << put.body << put.error;
    EXPECT_EQ(nlohmann::json::parse(ask(ports[1], "GET", "/streams/" + names[1]).body, nullptr, false)["filter"], "gaussian=sigma=2");
    // A streamed answer relayed from shard 1: MJPEG pictures through both TLS legs.
    HttpCall watch;
    watch.to = {"127.0.0.1", ports[0], true};
    watch.target = "/streams/" + names[1] + "/preview.mjpg?width=64&fps=10";
    watch.headers = {{"Authorization", "Bearer " + kTlsToken}};
    watch.trust = std::make_shared<const HttpsTrust>(certs().ca);
    auto [relay, head] = HttpStreamedCall::open(watch);
    ASSERT_TRUE(relay) << head.error;
    EXPECT_EQ(head.status, 200);
    EXPECT_EQ(head.content_type.rfind("multipart/x-mixed-replace", 0), 0u) << head.content_type;
    std::string got, piece;
    for (int i = 0; i < 50 && got.find("\xff\xd8\xff") == std::string::npos; ++i)
        if (relay->next(&piece, 200) == HttpStreamedCall::Next::Piece) got += piece;
    EXPECT_NE(got.find("image/jpeg"), std::string::npos) << got.substr(0, 200);
    EXPECT_NE(got.find("\xff\xd8\xff"), std::string::npos) << "no JPEG came through the relay";
    relay.reset();
    // Found by DNS name: each address must prove a certificate for that name (localhost).
    zero.reset();
    zero = start(0, "dns:localhost:" + std::to_string(ports[1]));
    f = fleet_when(0, 1, true, 10);
    EXPECT_EQ(f["shards"][1]["reachable"], true) << f.dump(1) << zero->log();
}

// A peer that is not who --peers says: a certificate from a CA tls-ca does not name, or one for
// another host. It would answer as shard 1 if asked; serve must not ask.
class UntrustedPeer : public FleetTls, public ::testing::WithParamInterface<std::string> {};

TEST_P(UntrustedPeer, IsNeverSentARequestAndItsShardIsListedWithTheReason) {
    const bool stranger = GetParam() == "stranger";
    std::atomic<int> asked{0};
    HttpServerOptions po;
    po.tls_cert_file = stranger ? certs().stranger_cert : certs().misnamed_cert;
    po.tls_key_file = stranger ? certs().stranger_key : certs().misnamed_key;
    po.screen = [&](const HttpRequest&) -> std::optional<HttpResponse> {
        ++asked;  // any request's head, before its body
        return std::nullopt;
    };
    const std::string theirs = names[1];
    HttpServer fake(po, [&](const HttpRequest&) {
        const nlohmann::json streams = nlohmann::json::array({{{"name", theirs}, {"state", "running"}}});
        return HttpResponse{200, "application/json",
                            nlohmann::json{{"instance", "fake"}, {"pod", "fake"}, {"shard", {{"index", 1}, {"count", 2}}}, {"streams", streams}}.dump()};
    });
    auto zero = start(0, url(0) + ",https://127.0.0.1:" + std::to_string(fake.port()));
    std::this_thread::sleep_for(2500ms);  // a refresh or two
    const nlohmann::json f = fleet_when(0, 1, false, 10);
    EXPECT_EQ(f["shards"][1]["reachable"], false) << f.dump(1);
    EXPECT_NE(f["shards"][1].value("error", std::string()).find("not trusted"), std::string::npos) << f["shards"][1].dump();
    EXPECT_EQ(ask(ports[0], "PUT", "/streams/" + theirs + "/filter", "gaussian").status, 503);
    EXPECT_EQ(asked.load(), 0) << "a peer that did not prove itself was sent a request (and its signature)";
    EXPECT_NE(zero->log().find("not trusted"), std::string::npos) << zero->log();
}

INSTANTIATE_TEST_SUITE_P(FleetTls, UntrustedPeer, ::testing::Values("stranger", "misnamed"));

}  // namespace
}  // namespace vf
