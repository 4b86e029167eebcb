// The /metrics endpoint: answers GET /metrics with the rendered text, 404 elsewhere, 405 for
// other methods; a port in use or a bad address is a clear usage error.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/error.hpp"
#include "common/metrics_server.hpp"

namespace vf {
namespace {

std::string ask(int port, const std::string& request) {
    const int s = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<uint16_t>(port));
    std::string reply;
    if (connect(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
        send(s, request.data(), request.size(), 0);
        char buf[1024];
        for (ssize_t n; (n = recv(s, buf, sizeof buf, 0)) > 0;) reply.append(buf, static_cast<size_t>(n));
    }
    close(s);
    return reply;
}

TEST(MetricsServer, ServesMetricsAndNothingElse) {
    int scrapes = 0;
    MetricsServer server("127.0.0.1", 0, [&] { return "vfilter_up " + std::to_string(++scrapes) + "\n"; });
    ASSERT_GT(server.port(), 0);
    std::string r = ask(server.port(), "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
    EXPECT_NE(r.find("200 OK"), std::string::npos) << r;
    EXPECT_NE(r.find("text/plain; version=0.0.4"), std::string::npos) << r;
    EXPECT_NE(r.find("Content-Length: 13"), std::string::npos) << r;
    EXPECT_NE(r.find("\r\n\r\nvfilter_up 1\n"), std::string::npos) << r;
    r = ask(server.port(), "GET /metrics?x=1 HTTP/1.0\r\n\r\n");
    EXPECT_NE(r.find("vfilter_up 2"), std::string::npos) << r;
    EXPECT_NE(ask(server.port(), "GET / HTTP/1.0\r\n\r\n").find("404"), std::string::npos);
    EXPECT_NE(ask(server.port(), "POST /metrics HTTP/1.0\r\n\r\n").find("405"), std::string::npos);
    EXPECT_NE(ask(server.port(), "garbage\r\n\r\n").find("405"), std::string::npos);
    r = ask(server.port(), "HEAD /metrics HTTP/1.0\r\n\r\n");
    EXPECT_NE(r.find("200 OK"), std::string::npos);
    EXPECT_EQ(r.find("vfilter_up"), std::string::npos) << "HEAD has no body";
}

TEST(MetricsServer, PortInUseAndBadAddressAreUsageErrors) {
    MetricsServer first("127.0.0.1", 0, [] { return std::string(); });
    try {
        MetricsServer second("127.0.0.1", first.port(), [] { return std::string(); });
        FAIL() << "a port in use was accepted";
    } catch (const Error& e) {
        EXPECT_EQ(e.category(), ErrorCategory::Usage);
        EXPECT_NE(std::string(e.what()).find("cannot serve metrics"), std::string::npos) << e.what();
    }
    EXPECT_THROW(MetricsServer("localhost:80", 0, [] { return std::string(); }), Error);
}

}  // namespace
}  // namespace vf
