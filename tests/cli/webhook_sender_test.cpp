// serve's webhooks (app/serve/webhook_sender.*) against a real receiver on loopback that fails
// on purpose, then answers: every event arrives, in order, signed as docs/serve.md says; a
// receiver that never takes one costs the queue only the time allowed; a full queue drops the
// oldest; a bad URL is refused with the option named; stopping does not wait for the receiver.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "app/serve/webhook_sender.hpp"
#include "common/error.hpp"
#include "support/recording_peer.hpp"

namespace vf::webhook_sender_test {
namespace {

using namespace std::chrono_literals;
const std::string kSecret = "webhook-secret-0123456789";

// A header's value in a request's raw bytes ("" when absent).
std::string header(const std::string& request, const std::string& name) {
    const size_t at = request.find("\r\n" + name + ": ");
    if (at == std::string::npos) return "";
    const size_t from = at + name.size() + 4;
    return request.substr(from, request.find("\r\n", from) - from);
}

std::string body_of(const std::string& request) {
    const size_t at = request.find("\r\n\r\n");
    return at == std::string::npos ? "" : request.substr(at + 4);
}

bool wait_for(const std::function<bool()>& done, std::chrono::milliseconds most) {
    const auto until = std::chrono::steady_clock::now() + most;
    while (!done() && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(10ms);
    return done();
}

WebhookSettings settings_for(int port, const std::string& path = "/hooks/vfilter") {
    WebhookSettings s;
    s.url = "http://127.0.0.1:" + std::to_string(port) + path;
    s.secret = kSecret;
    s.first_retry = 50ms;
    s.longest_retry = 200ms;
    return s;
}

TEST(WebhookSender, EveryEventArrivesInOrderSignedAfterTheReceiverFailed) {
    std::atomic<int> calls{0};
    test::RecordingPeer receiver([&calls](const HttpRequest&) {
        HttpResponse r;
        r.status = ++calls <= 2 ? 503 : 204;  // fails twice, then takes everything
        return r;
    });
    WebhookSender sender(settings_for(receiver.port()));
    for (int i = 0; i < 3; ++i) sender.send({{"stream", "cam1"}, {"kind", "dark"}, {"n", i}});
    ASSERT_TRUE(wait_for([&] { return sender.counts().delivered == 3; }, 5s));
    const std::vector<std::string> got = receiver.requests();
    ASSERT_EQ(got.size(), 5u) << "two refusals of the first event, then the three";
    EXPECT_EQ(sender.counts().retries, 2);
    for (size_t i = 0; i < got.size(); ++i) {
        const std::string& r = got[i];
        EXPECT_EQ(r.rfind("POST /hooks/vfilter HTTP/1.1\r\n", 0), 0u) << r;
        const nlohmann::json event = nlohmann::json::parse(body_of(r));
        EXPECT_EQ(event["n"], i < 2 ? 0 : static_cast<int>(i) - 2) << "in order, the failed one again first";
        EXPECT_EQ(header(r, "X-Vfilter-Event"), event["instance"].get<std::string>() + ":" + event["id"].dump()) << "the same on a retry";
        EXPECT_EQ(event["instance"], nlohmann::json::parse(body_of(got[0]))["instance"]) << "one process, one instance";
        EXPECT_EQ(header(r, "X-Vfilter-Signature"), webhook_signature(kSecret, header(r, "X-Vfilter-Timestamp"), body_of(r)));
        EXPECT_NE(header(r, "X-Vfilter-Signature"), webhook_signature("another secret", header(r, "X-Vfilter-Timestamp"), body_of(r)));
        EXPECT_EQ(r.find(kSecret), std::string::npos) << "the secret itself is never sent";
    }
}

TEST(WebhookSender, AReceiverThatNeverTakesOneCostsOnlyTheTimeAllowed) {
    test::RecordingPeer receiver([](const HttpRequest&) {
        HttpResponse r;
        r.status = 500;
        return r;
    });
    WebhookSettings s = settings_for(receiver.port());
    s.give_up_after = 400ms;
    WebhookSender sender(s);
    sender.send({{"n", 0}});
    sender.send({{"n", 1}});
    ASSERT_TRUE(wait_for([&] { return sender.counts().given_up == 2; }, 5s));
    EXPECT_EQ(sender.counts().delivered, 0);
    EXPECT_EQ(sender.counts().queued, 0u);
}

TEST(WebhookSender, ARefusalThatRetriesCannotChangeIsGivenUpAtOnce) {
    std::atomic<int> calls{0};
    test::RecordingPeer receiver([&calls](const HttpRequest&) {
        HttpResponse r;
        r.status = ++calls == 1 ? 404 : 200;  // the first event's path is refused; the next is taken
        return r;
    });
    WebhookSettings s = settings_for(receiver.port());
    s.first_retry = 10s;  // a retry would show as a 10 s wait
    WebhookSender sender(s);
    sender.send({{"n", 0}});
    sender.send({{"n", 1}});
    ASSERT_TRUE(wait_for([&] { return sender.counts().delivered == 1; }, 3s));
    EXPECT_EQ(sender.counts().given_up, 1);
    EXPECT_EQ(sender.counts().retries, 0);
    EXPECT_EQ(receiver.requests().size(), 2u);
}

TEST(WebhookSender, AFullQueueDropsTheOldestAndStoppingDoesNotWait) {
    WebhookSettings s = settings_for(1);  // nothing listens on port 1: every try fails at once
    s.max_queued = 3;
    s.first_retry = 10s;
    const auto began = std::chrono::steady_clock::now();
    {
        WebhookSender sender(s);
        for (int i = 0; i < 10; ++i) sender.send({{"n", i}});
        EXPECT_EQ(sender.counts().dropped, 7);
        EXPECT_EQ(sender.counts().queued, 3u);
    }  // destroyed while waiting 10 s to retry
    EXPECT_LT(std::chrono::steady_clock::now() - began, 3s);
}

TEST(WebhookSender, ABadUrlIsRefusedNamingTheOption) {
    for (const std::string url : {"ftp://example.com/x", "http://user:pw@example.com/x", "http://example.com/a b", "http://example.com/x#frag",
                                  "example.com/x", "http://example.com:99999/"}) {
        try {
            parse_webhook_url(url, "serve: webhook");
            ADD_FAILURE() << url << " was taken";
        } catch (const Error& e) {
            EXPECT_EQ(e.category(), ErrorCategory::Usage) << url;
            EXPECT_EQ(std::string(e.what()).rfind("serve: webhook", 0), 0u) << e.what();
        }
    }
    const WebhookTarget t = parse_webhook_url("https://hooks.example.com:8443/a/b?c=d", "serve: webhook");
    EXPECT_EQ(t.to.host, "hooks.example.com");
    EXPECT_EQ(t.to.port, 8443);
    EXPECT_TRUE(t.to.https);
    EXPECT_EQ(t.target, "/a/b?c=d");
}

}  // namespace
}  // namespace vf::webhook_sender_test
