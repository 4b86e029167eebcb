// A minimal HTTP endpoint for Prometheus: GET /metrics answers with what render() returns, in
// the text exposition format; anything else gets 404. One thread, one request at a time, short
// timeouts, so a stuck scraper can never hold the pipeline up. Binds 127.0.0.1 by default.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <thread>

namespace vf {

// The whole HTTP response to one request (at most 8 KiB of it): 200 with render()'s text for GET
// or HEAD /metrics (query ignored), 404 for other paths, 405 for other methods. Pure, so it can be
// fuzzed (tests/fuzz/fuzz_metrics_request.cpp).
std::string metrics_http_response(const std::string& request, const std::function<std::string()>& render);

class MetricsServer {
public:
    // Binds and listens at once (throws Error(Usage) when the address cannot be used); port 0
    // picks a free port (see port()).
    MetricsServer(const std::string& bind_address, int port, std::function<std::string()> render);
    ~MetricsServer();
    MetricsServer(const MetricsServer&) = delete;
    MetricsServer& operator=(const MetricsServer&) = delete;

    int port() const { return port_; }

private:
    void serve();
    void answer(int client);

    std::function<std::string()> render_;
    int listen_fd_ = -1;
    int port_ = 0;
    std::atomic<bool> stop_{false};
    std::thread thread_;
};

}  // namespace vf
