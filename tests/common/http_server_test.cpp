// The HTTP server (common/http_server.cpp on cpp-httplib): one handler sees every method and
// path; bodies over the limit are refused before the handler; a port in use or a bad address is
// a usage error; bearer tokens compare exactly.
#include <gtest/gtest.h>

#include <atomic>

#include "common/error.hpp"
#include "common/http_server.hpp"
#include "support/http_client.hpp"

namespace vf {
namespace {

HttpServerOptions local(int port = 0) {
    HttpServerOptions o;
    o.port = port;
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
