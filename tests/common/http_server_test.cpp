// The HTTP server (common/http_server.cpp on Boost.Beast and Asio): one handler sees every method
// and path, with the Host, Origin and the client's address; bodies over the limit are refused
// before the handler; a port in use or a bad address is a usage error; bearer tokens compare
// exactly; every answer carries the security headers; an idle connection is closed after the
// timeout; streamed bodies arrive while they are made and end when the client goes or the server
// stops. Clients that send too much or too slowly: http_server_limits_test.cpp.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "common/error.hpp"
#include "common/http_server.hpp"
#include "support/http_client.hpp"

namespace vf {
namespace {

HttpServerOptions local(int port = 0) {
    HttpServerOptions o;
    o.port = port;
    o.timeout_s = 1;  // an idle connection is closed after this
    return o;
}

TEST(HttpServer, EveryMethodAndPathReachesTheHandler) {
    std::atomic<int> calls{0};
    HttpServer server(local(), [&](const HttpRequest& r) {
        ++calls;
        return HttpResponse{r.path == "/missing" ? 404 : 200, "text/plain", r.method + " " + r.path + " [" + r.body + "] " + r.authorization};
    });
    ASSERT_GT(server.port(), 0);
    std::string r = test::http_exchange(server.port(), "GET /metrics?x=1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    EXPECT_NE(r.find("200 OK"), std::string::npos) << r;
    EXPECT_NE(r.find("GET /metrics [] "), std::string::npos) << "the query is not part of the path: " << r;
    r = test::http_exchange(server.port(), "POST /streams HTTP/1.1\r\nAuthorization: Bearer abc\r\nContent-Length: 4\r\n"
                                           "Connection: close\r\n\r\nbody");
    EXPECT_NE(r.find("POST /streams [body] Bearer abc"), std::string::npos) << r;
    r = test::http_exchange(server.port(), "DELETE /streams/cam1 HTTP/1.1\r\nConnection: close\r\n\r\n");
    EXPECT_NE(r.find("DELETE /streams/cam1"), std::string::npos) << r;
    r = test::http_exchange(server.port(), "GET /missing HTTP/1.1\r\nConnection: close\r\n\r\n");
    EXPECT_NE(r.find("404"), std::string::npos) << r;
    r = test::http_exchange(server.port(), "HEAD /x HTTP/1.1\r\nConnection: close\r\n\r\n");
    EXPECT_NE(r.find("200 OK"), std::string::npos) << r;
    EXPECT_EQ(r.find("HEAD /x"), std::string::npos) << "HEAD has no body: " << r;
    EXPECT_EQ(calls.load(), 5);
    r = test::http_exchange(server.port(), "garbage\r\n\r\n");
    EXPECT_NE(r.find("400"), std::string::npos) << r;
    EXPECT_EQ(calls.load(), 5) << "a request that does not parse never reaches the handler";
}

TEST(HttpServer, BodiesOverTheLimitAreRefusedBeforeTheHandler) {
    std::atomic<int> calls{0};
    HttpServerOptions o = local();
    o.max_body_bytes = 100;
    HttpServer server(o, [&](const HttpRequest&) {
        ++calls;
        return HttpResponse{};
    });
    const std::string body(101, 'x');
    const std::string r = test::http_exchange(server.port(), "POST /streams HTTP/1.1\r\nContent-Length: 101\r\nConnection: close\r\n\r\n" + body);
    EXPECT_NE(r.find("413"), std::string::npos) << r;
    EXPECT_EQ(calls.load(), 0);
}

TEST(HttpServer, PortInUseAndBadAddressAreUsageErrors) {
    HttpServer first(local(), [](const HttpRequest&) { return HttpResponse{}; });
    try {
        HttpServer second(local(first.port()), [](const HttpRequest&) { return HttpResponse{}; });
        FAIL() << "a port in use was accepted";
    } catch (const Error& e) {
        EXPECT_EQ(e.category(), ErrorCategory::Usage);
        EXPECT_NE(std::string(e.what()).find("cannot serve on 127.0.0.1:" + std::to_string(first.port())), std::string::npos) << e.what();
    }
    HttpServerOptions bad = local();
    bad.bind = "localhost:80";
    EXPECT_THROW(HttpServer(bad, [](const HttpRequest&) { return HttpResponse{}; }), Error);
}

TEST(HttpServer, AnswerBytesGoesThroughTheSameParser) {
    const HttpHandler h = [](const HttpRequest& r) { return HttpResponse{200, "text/plain", "seen " + r.path}; };
    EXPECT_NE(http_answer_bytes("GET /a HTTP/1.1\r\n\r\n", h).find("seen /a"), std::string::npos);
    EXPECT_NE(http_answer_bytes("GET /a HTTP/9\r\n\r\n", h).find("400"), std::string::npos);
    const std::string big = "POST /a HTTP/1.1\r\nContent-Length: 200\r\n\r\n" + std::string(200, 'y');
    EXPECT_NE(http_answer_bytes(big, h, 100).find("413"), std::string::npos);
    // Bodies whose end the server and a proxy could see in different places, a path that a C
    // string would cut, and targets not in origin form: refused before the handler.
    for (const std::string unclear : {"POST /a HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
                                      "POST /a HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd",
                                      "POST /a HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\nabc",
                                      "POST /a HTTP/1.1\r\nTransfer-Encoding: chunked, gzip\r\n\r\nabc", "GET /a%00b HTTP/1.1\r\n\r\n",
                                      "GET http://x/a HTTP/1.1\r\n\r\n", "GET * HTTP/1.1\r\n\r\n", "GET /a HTTP/1.1\nHost: x\n\n"})
        EXPECT_EQ(http_answer_bytes(unclear, h).rfind("HTTP/1.1 400 ", 0), 0u) << unclear;
    EXPECT_NE(http_answer_bytes("GET /a%20b%2Fc?q=%20 HTTP/1.1\r\n\r\n", h).find("seen /a b/c"), std::string::npos)
        << "the path is percent-decoded";
    const std::string chunked = "POST /a HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3;x=1\r\nabc\r\n2\r\nde\r\n0\r\n\r\n";
    const HttpHandler echo = [](const HttpRequest& r) { return HttpResponse{200, "text/plain", "[" + r.body + "]"}; };
    EXPECT_NE(http_answer_bytes(chunked, echo).find("[abcde]"), std::string::npos);
}

TEST(HttpServer, QueriesReachTheHandlerAsSentAndEveryAnswerCarriesTheSecurityHeaders) {
    HttpServer server(local(), [](const HttpRequest& r) {
        HttpResponse a{r.path == "/missing" ? 404 : 200, "text/plain", "query [" + r.query + "]"};
        a.headers.push_back({"Retry-After", "3"});
        return a;
    });
    std::string r = test::http_exchange(server.port(), "GET /x?side=in%20put&w=1&&z HTTP/1.1\r\nConnection: close\r\n\r\n");
    EXPECT_NE(r.find("query [side=in%20put&w=1&&z]"), std::string::npos) << r;
    EXPECT_NE(r.find("Retry-After: 3"), std::string::npos) << r;
    for (const std::string request : {"GET /x HTTP/1.1\r\nConnection: close\r\n\r\n", "GET /missing HTTP/1.1\r\nConnection: close\r\n\r\n",
                                       "POST /x HTTP/1.1\r\nContent-Length: 99999999\r\nConnection: close\r\n\r\n"}) {
        r = test::http_exchange(server.port(), request);
        ASSERT_FALSE(r.empty());
        for (const auto& [name, value] : http_security_headers())
            EXPECT_NE(r.find(name + ": " + value), std::string::npos) << name << " missing from " << r;
    }
    EXPECT_NE(r.find("413"), std::string::npos) << "refused before the handler, still with the headers: " << r;
}

TEST(HttpServer, StreamedBodiesArriveWhileMadeAndEndWhenTheClientGoes) {
    std::atomic<int> written{0};
    std::atomic<bool> ended{false};
    HttpServer server(local(), [&](const HttpRequest& r) {
        HttpResponse a;
        a.content_type = "multipart/x-mixed-replace; boundary=b";
        const bool forever = r.path == "/forever";
        a.stream = [&, forever](const HttpBodyWriter& write) {
            for (int i = 0; forever || i < 3; ++i) {
                if (!write("--b\r\npart " + std::to_string(i) + "\r\n")) break;
                ++written;
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
            }
            ended = true;
        };
        return a;
    });
    const std::string r = test::http_exchange(server.port(), "GET /three HTTP/1.1\r\nConnection: close\r\n\r\n");
    EXPECT_NE(r.find("Transfer-Encoding: chunked"), std::string::npos) << r;
    EXPECT_NE(r.find("multipart/x-mixed-replace; boundary=b"), std::string::npos) << r;
    EXPECT_NE(r.find("Content-Security-Policy"), std::string::npos) << r;
    for (int i = 0; i < 3; ++i) EXPECT_NE(r.find("part " + std::to_string(i)), std::string::npos) << r;
    EXPECT_NE(r.find("\r\n0\r\n\r\n"), std::string::npos) << "the chunked body ends: " << r;

    ended = false;
    written = 0;
    test::HttpConnection c(server.port(), "GET /forever HTTP/1.1\r\nHost: x\r\n\r\n");
    ASSERT_TRUE(c.open());
    EXPECT_NE(c.read_until("part 2").find("part 2"), std::string::npos) << "parts arrive while the body is made";
    c.close_now();
    for (int i = 0; i < 250 && !ended; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_TRUE(ended) << "the stream went on after its client left (" << written << " parts)";
}

TEST(HttpServer, StoppingTheServerEndsStreamsUnderWay) {
    std::atomic<bool> ended{false};
    auto server = std::make_unique<HttpServer>(local(), [&](const HttpRequest&) {
        HttpResponse a;
        a.stream = [&](const HttpBodyWriter& write) {
            while (write("tick\n")) std::this_thread::sleep_for(std::chrono::milliseconds(20));
            ended = true;
        };
        return a;
    });
    test::HttpConnection c(server->port(), "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    ASSERT_TRUE(c.open());
    EXPECT_NE(c.read_until("tick").find("tick"), std::string::npos);
    const auto t = std::chrono::steady_clock::now();
    server.reset();  // with a client still reading
    EXPECT_TRUE(ended);
    EXPECT_LT(std::chrono::steady_clock::now() - t, std::chrono::seconds(1));
}

TEST(HttpServer, HostOriginAndTheClientsAddressReachTheHandler) {
    HttpServer server(local(), [](const HttpRequest& r) {
        return HttpResponse{200, "text/plain", "host [" + r.host + "] origin [" + r.origin + "] peer [" + r.peer + "]"};
    });
    std::string r = test::http_exchange(server.port(), "GET / HTTP/1.1\r\nHost: cam.example:8080\r\nOrigin: http://other.example\r\n"
                                                       "Connection: close\r\n\r\n");
    EXPECT_NE(r.find("host [cam.example:8080] origin [http://other.example] peer [127.0.0.1]"), std::string::npos) << r;
    r = test::http_exchange(server.port(), "GET / HTTP/1.0\r\n\r\n");
    EXPECT_NE(r.find("host [] origin [] peer [127.0.0.1]"), std::string::npos) << r;
}

TEST(HttpServer, AnIdleConnectionIsClosedAfterTheTimeout) {
    HttpServer server(local(), [](const HttpRequest&) { return HttpResponse{200, "text/plain", "one\n"}; });
    const auto t = std::chrono::steady_clock::now();  // before the answer: its idle time starts after it
    test::HttpConnection c(server.port(), "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    EXPECT_NE(c.read_until("one\n").find("HTTP/1.1 200 OK"), std::string::npos);
    EXPECT_TRUE(c.closed_by_server(std::chrono::seconds(3)));
    EXPECT_GT(std::chrono::steady_clock::now() - t, std::chrono::milliseconds(800)) << "kept open for the next request";
}

TEST(HttpServer, BearerTokensCompareExactly) {
    EXPECT_TRUE(bearer_token_matches("Bearer s3cret", "s3cret"));
    EXPECT_FALSE(bearer_token_matches("Bearer s3cre", "s3cret"));
    EXPECT_FALSE(bearer_token_matches("Bearer s3cretX", "s3cret"));
    EXPECT_FALSE(bearer_token_matches("bearer s3cret", "s3cret"));
    EXPECT_FALSE(bearer_token_matches("s3cret", "s3cret"));
    EXPECT_FALSE(bearer_token_matches("Bearer ", ""));
}

}  // namespace
}  // namespace vf
