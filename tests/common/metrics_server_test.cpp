// The /metrics endpoint: answers GET /metrics with the rendered text, 404 elsewhere, 405 for
// other methods; a port in use or a bad address is a clear usage error.
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "common/metrics_server.hpp"
#include "support/http_client.hpp"

namespace vf {
namespace {

TEST(MetricsServer, ServesMetricsAndNothingElse) {
    int scrapes = 0;
    MetricsServer server("127.0.0.1", 0, [&] { return "vfilter_up " + std::to_string(++scrapes) + "\n"; });
    ASSERT_GT(server.port(), 0);
    std::string r = test::http_exchange(server.port(), "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
    EXPECT_NE(r.find("200 OK"), std::string::npos) << r;
    EXPECT_NE(r.find("text/plain; version=0.0.4"), std::string::npos) << r;
    EXPECT_NE(r.find("Content-Length: 13"), std::string::npos) << r;
    EXPECT_NE(r.find("\r\n\r\nvfilter_up 1\n"), std::string::npos) << r;
    r = test::http_exchange(server.port(), "GET /metrics?x=1 HTTP/1.0\r\n\r\n");
    EXPECT_NE(r.find("vfilter_up 2"), std::string::npos) << r;
    EXPECT_NE(test::http_exchange(server.port(), "GET / HTTP/1.0\r\n\r\n").find("404"), std::string::npos);
    EXPECT_NE(test::http_exchange(server.port(), "POST /metrics HTTP/1.0\r\n\r\n").find("405"), std::string::npos);
    EXPECT_NE(test::http_exchange(server.port(), "garbage\r\n\r\n").find("405"), std::string::npos);
    r = test::http_exchange(server.port(), "HEAD /metrics HTTP/1.0\r\n\r\n");
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
