// Calls between serve processes (common/http_client.cpp), against vfilter's own server on
// loopback: addresses are parsed strictly; a whole answer comes back with its status, type,
// headers and body; a refused connection and a server that does not answer in time come back as
// errors within their timeouts; a streamed answer arrives while it is made, and leaving it ends
// the server's side.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "app/fleet.hpp"
#include "common/error.hpp"
#include "common/http_client.hpp"
#include "common/http_server.hpp"
#include "support/child_process.hpp"

namespace vf {
namespace {

using namespace std::chrono_literals;

TEST(HttpClient, AddressesAreHttpHostAndPortOnly) {
    HttpAddress a;
    std::string why;
    ASSERT_TRUE(parse_http_address("http://10.1.2.3:8080", &a, &why)) << why;
    EXPECT_EQ(a.host, "10.1.2.3");
    EXPECT_EQ(a.port, 8080);
    ASSERT_TRUE(parse_http_address("http://vfilter-1.vfilter/", &a, &why));
    EXPECT_EQ(a.port, 80);
    ASSERT_TRUE(parse_http_address("http://[fd00::1]:9000", &a, &why));
    EXPECT_EQ(a.host, "fd00::1");
    EXPECT_EQ(a.url(), "http://[fd00::1]:9000");
    for (const char* bad : {"https://x:1", "x:8080", "http://", "http://x:0", "http://x:70000", "http://x:80/streams",
                            "http://user:pw@x:80", "http://[::1", "http://x:8o"}) {
        EXPECT_FALSE(parse_http_address(bad, &a, &why)) << bad;
        EXPECT_FALSE(why.empty());
    }
    EXPECT_NE((parse_http_address("https://x:1", &a, &why), why).find("https"), std::string::npos);
}

TEST(HttpClient, PeerListsAreUrlsOrDnsNamesWithAPort) {
    const auto peers = parse_peers("http://127.0.0.1:8081, dns:vfilter.vfilter.svc.cluster.local:8080");
    ASSERT_EQ(peers.size(), 2u);
    EXPECT_EQ(peers[0].address->port, 8081);
    EXPECT_EQ(peers[1].dns_name, "vfilter.vfilter.svc.cluster.local");
    EXPECT_EQ(peers[1].dns_port, 8080);
    for (const char* bad : {"", "http://a:1,,http://b:2", "dns:name", "dns::80", "dns:name:0", "ftp://x:1", "https://x:1"}) {
        try {
            parse_peers(bad);
            ADD_FAILURE() << "accepted: " << bad;
        } catch (const Error& e) {
            EXPECT_EQ(e.category(), ErrorCategory::Usage);
            EXPECT_NE(std::string(e.what()).find("--peers"), std::string::npos) << e.what();
        }
    }
}

TEST(HttpClient, AWholeAnswerComesBackAsSent) {
    HttpServer server(HttpServerOptions{}, [](const HttpRequest& r) {
        HttpResponse a{r.method == "PUT" ? 409 : 200, "application/json",
                       "{\"seen\": \"" + r.method + " " + r.path + "?" + r.query + " " + r.body + " " + r.authorization + " " +
                           r.forwarded_by + " " + r.content_type + "\"}"};
        a.headers.push_back({"Retry-After", "3"});
        return a;
    });
    HttpCall call;
    call.to = {"127.0.0.1", server.port()};
    call.method = "POST";
    call.target = "/streams?x=1";
    call.body = "{}";
    call.content_type = "application/json";
    call.headers = {{"Authorization", "Bearer t"}, {kForwardedHeader, "pod-0"}};
    HttpReply r = http_call(call);
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(r.content_type, "application/json");
    EXPECT_EQ(r.body, "{\"seen\": \"POST /streams?x=1 {} Bearer t pod-0 application/json\"}");
    ASSERT_EQ(r.headers.size(), 1u);
    EXPECT_EQ(r.headers[0].second, "3");
    call.method = "PUT";
    EXPECT_EQ(http_call(call).status, 409);
}

TEST(HttpClient, NoAnswerIsAnErrorWithinTheTimeouts) {
    HttpCall call;
    call.to = {"127.0.0.1", test::free_port()};
    HttpReply r = http_call(call);
    EXPECT_EQ(r.status, 0);
    EXPECT_NE(r.error.find("refused"), std::string::npos) << r.error;
    // A server that takes the connection and says nothing.
    HttpServer slow(HttpServerOptions{}, [](const HttpRequest&) {
        std::this_thread::sleep_for(2s);
        return HttpResponse{};
    });
    call.to.port = slow.port();
    call.read_timeout_ms = 300;
    const auto began = std::chrono::steady_clock::now();
    r = http_call(call);
    EXPECT_EQ(r.status, 0);
    EXPECT_LT(std::chrono::steady_clock::now() - began, 1500ms);
}

TEST(HttpClient, AStreamedAnswerArrivesWhileItIsMadeAndLeavingItEndsIt) {
    std::atomic<int> written{0};
    std::atomic<bool> ended{false};
    HttpServer server(HttpServerOptions{}, [&](const HttpRequest&) {
        HttpResponse r;
        r.content_type = "application/octet-stream";
        r.stream = [&](const HttpBodyWriter& write) {
            for (int i = 0;; ++i) {
                if (!write("piece" + std::to_string(i) + ";")) break;
                ++written;
                std::this_thread::sleep_for(20ms);
            }
            ended = true;
        };
        return r;
    });
    HttpCall call;
    call.to = {"127.0.0.1", server.port()};
    call.target = "/live";
    {
        auto [stream, head] = HttpStreamedCall::open(call);
        ASSERT_TRUE(stream) << head.error;
        EXPECT_EQ(head.status, 200);
        EXPECT_EQ(head.content_type, "application/octet-stream");
        std::string got, piece;
        while (got.find("piece5;") == std::string::npos) {
            ASSERT_EQ(stream->next(&piece, 2000), HttpStreamedCall::Next::Piece) << got;
            got += piece;
        }
        EXPECT_EQ(got.rfind("piece0;", 0), 0u) << got;
    }
    for (int i = 0; i < 100 && !ended; ++i) std::this_thread::sleep_for(20ms);
    EXPECT_TRUE(ended) << "the server kept writing after the client left";
    // A refused one has no stream, and says why.
    call.to.port = test::free_port();
    auto [none, head] = HttpStreamedCall::open(call);
    EXPECT_FALSE(none);
    EXPECT_EQ(head.status, 0);
}

}  // namespace
}  // namespace vf
