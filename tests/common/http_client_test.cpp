// Calls between serve processes (common/http_client.cpp), against vfilter's own server on
// loopback: addresses are parsed strictly; a whole answer comes back with its status, type,
// headers and body; a refused connection and a server that does not answer in time come back as
// errors within their timeouts; a peer that trickles its answer cannot stretch a call past its
// total time; an answer over the limits is refused; a streamed answer arrives while it is made,
// and leaving it ends the server's side.
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "app/serve/fleet/fleet.hpp"
#include "common/error.hpp"
#include "common/http_client.hpp"
#include "common/http_server.hpp"
#include "support/child_process.hpp"

namespace vf {
namespace {

using namespace std::chrono_literals;

// A peer that takes one connection, reads the request and answers one byte every `gap`: each
// read of its answer is quick, the whole answer takes minutes.
class TricklingPeer {
public:
    TricklingPeer(std::string answer, std::chrono::milliseconds gap) : answer_(std::move(answer)), gap_(gap) {
        listener_ = test::listen_on_loopback(4, &port_);
        thread_ = std::thread([this] { serve(); });
    }
    ~TricklingPeer() {
        stop_ = true;
        thread_.join();
        close(listener_);
    }
    int port() const { return port_; }

private:
    bool wait_for(int fd, short events) {
        pollfd p{fd, events, 0};
        while (!stop_)
            if (poll(&p, 1, 10) > 0) return true;
        return false;
    }
    void serve() {
        if (!wait_for(listener_, POLLIN)) return;
        const int c = accept(listener_, nullptr, nullptr);
        std::string request;
        char buf[4096];
        while (request.find("\r\n\r\n") == std::string::npos && wait_for(c, POLLIN)) {
            const ssize_t n = recv(c, buf, sizeof buf, 0);
            if (n <= 0) break;
            request.append(buf, static_cast<size_t>(n));
        }
        for (size_t i = 0; i < answer_.size() && !stop_; ++i) {
            if (send(c, answer_.data() + i, 1, MSG_NOSIGNAL) != 1) break;
            for (auto waited = 0ms; waited < gap_ && !stop_; waited += 10ms) std::this_thread::sleep_for(10ms);
        }
        close(c);
    }
    std::string answer_;
    std::chrono::milliseconds gap_;
    int listener_ = -1, port_ = 0;
    std::atomic<bool> stop_{false};
    std::thread thread_;
};

TEST(HttpClient, AddressesAreASchemeHostAndPortOnly) {
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
    EXPECT_FALSE(a.https);
    ASSERT_TRUE(parse_http_address("https://vfilter-1.vfilter:8443", &a, &why)) << why;
    EXPECT_TRUE(a.https);
    EXPECT_EQ(a.port, 8443);
    EXPECT_EQ(a.url(), "https://vfilter-1.vfilter:8443");
    ASSERT_TRUE(parse_http_address("https://[fd00::1]/", &a, &why)) << why;
    EXPECT_EQ(a.port, 443);
    for (const char* bad : {"ftp://x:1", "HTTPS://x:1", "x:8080", "http://", "https://", "http://x:0", "http://x:70000",
                            "http://x:80/streams", "https://x:443/streams", "http://user:pw@x:80", "https://user@x", "http://[::1",
                            "http://x:8o"}) {
        EXPECT_FALSE(parse_http_address(bad, &a, &why)) << bad;
        EXPECT_FALSE(why.empty());
    }
}

TEST(HttpClient, PeerListsAreUrlsOrDnsNamesWithAPort) {
    const auto peers = parse_peers("http://127.0.0.1:8081, dns:vfilter.vfilter.svc.cluster.local:8080");
    ASSERT_EQ(peers.size(), 2u);
    EXPECT_EQ(peers[0].address->port, 8081);
    EXPECT_EQ(peers[1].dns_name, "vfilter.vfilter.svc.cluster.local");
    EXPECT_EQ(peers[1].dns_port, 8080);
    // A fleet speaks one scheme: HTTPS peers only for a process that serves HTTPS, and only them.
    EXPECT_TRUE(parse_peers("https://10.0.0.2:8443,dns:vfilter:8443", true)[0].address->https);
    for (const auto& [list, https] : std::vector<std::pair<std::string, bool>>{
             {"", false}, {"http://a:1,,http://b:2", false}, {"dns:name", false}, {"dns::80", false}, {"dns:name:0", false},
             {"ftp://x:1", false}, {"https://x:1", false}, {"http://x:1", true}, {"https://x:1,http://y:2", true}}) {
        const std::string bad = list;
        try {
            parse_peers(bad, https);
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

TEST(HttpClient, APeerTricklingItsAnswerCannotStretchTheCall) {
    const std::string answer = "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n" + std::string(100, 'x');
    HttpCall call;
    call.read_timeout_ms = 5000;
    call.total_timeout_ms = 1200;
    {
        TricklingPeer peer(answer, 1000ms);
        call.to = {"127.0.0.1", peer.port()};
        const auto began = std::chrono::steady_clock::now();
        const HttpReply r = http_call(call);
        EXPECT_EQ(r.status, 0);
        EXPECT_NE(r.error.find("within 1200 ms"), std::string::npos) << r.error;
        EXPECT_GT(std::chrono::steady_clock::now() - began, 1000ms);
        EXPECT_LT(std::chrono::steady_clock::now() - began, 2000ms);
    }
    {
        TricklingPeer peer(answer, 1000ms);  // a streamed call's head comes within the same time
        call.to = {"127.0.0.1", peer.port()};
        const auto began = std::chrono::steady_clock::now();
        auto [stream, head] = HttpStreamedCall::open(call);
        EXPECT_FALSE(stream);
        EXPECT_EQ(head.status, 0);
        EXPECT_LT(std::chrono::steady_clock::now() - began, 2000ms);
    }
}

TEST(HttpClient, AnAnswerOverTheLimitsIsRefused) {
    HttpServer server(HttpServerOptions{}, [](const HttpRequest& r) {
        HttpResponse a{200, "application/octet-stream", ""};
        if (r.path == "/big") a.body = std::string(3 << 20, 'x');
        if (r.path == "/streamed") a.stream = [](const HttpBodyWriter& write) {
            for (int i = 0; i < 48 && write(std::string(64 * 1024, 'y')); ++i) {
            }
        };
        if (r.path == "/head") a.headers.push_back({"X-Long", std::string(10000, 'h')});
        return a;
    });
    HttpCall call;
    call.to = {"127.0.0.1", server.port()};
    call.max_body_bytes = 1 << 20;
    for (const char* target : {"/big", "/streamed"}) {  // with a length, and chunked
        call.target = target;
        const HttpReply r = http_call(call);
        EXPECT_EQ(r.status, 0) << target;
        EXPECT_NE(r.error.find("too large"), std::string::npos) << target << ": " << r.error;
    }
    call.target = "/head";
    const HttpReply r = http_call(call);
    EXPECT_EQ(r.status, 0);
    EXPECT_NE(r.error.find("headers were too large"), std::string::npos) << r.error;
    call.target = "/small";
    EXPECT_EQ(http_call(call).status, 200);
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
