// HttpCallStop (common/http_call_stop.hpp): a call waiting for a peer that accepted the connection
// and never answers ends as soon as another thread stops it, not at its deadline; a call made
// after the stop ends at once, whole or streamed; calls made with another stop, or none, go on.
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "common/http_call_stop.hpp"
#include "common/http_client.hpp"
#include "common/http_server.hpp"
#include "support/child_process.hpp"

namespace vf::http_call_stop_test {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// A port whose connections the kernel accepts (the backlog) and nobody ever reads or answers.
class SilentPeer {
public:
    SilentPeer() {
        fd_ = test::listen_on_loopback(16, &port_);
    }
    ~SilentPeer() { close(fd_); }
    int port() const { return port_; }

private:
    int fd_ = -1, port_ = 0;
};

HttpCall call_to(int port) {
    HttpCall call;
    call.to = HttpAddress{"127.0.0.1", port};
    call.read_timeout_ms = 8000;
    call.total_timeout_ms = 8000;
    return call;
}

TEST(HttpCallStop, EndsACallThatWaitsForAPeerThatNeverAnswers) {
    SilentPeer peer;
    HttpCallStop stop;
    const auto t = Clock::now();  // before the stopper starts its 200 ms
    std::thread stopper([&] {
        std::this_thread::sleep_for(200ms);
        stop.stop();
    });
    const HttpReply r = http_call(call_to(peer.port()), &stop);
    const auto took = Clock::now() - t;
    stopper.join();
    EXPECT_EQ(r.status, 0);
    EXPECT_FALSE(r.error.empty());
    EXPECT_GE(took, 150ms);
    EXPECT_LT(took, 2s) << "the call waited for its deadline";
}

TEST(HttpCallStop, ACallMadeAfterTheStopEndsAtOnceWholeOrStreamed) {
    SilentPeer peer;
    HttpCallStop stop;
    stop.stop();
    EXPECT_TRUE(stop.stopped());
    auto t = Clock::now();
    EXPECT_EQ(http_call(call_to(peer.port()), &stop).status, 0);
    EXPECT_LT(Clock::now() - t, 1s);
    t = Clock::now();
    auto [relay, head] = HttpStreamedCall::open(call_to(peer.port()), &stop);
    EXPECT_FALSE(relay);
    EXPECT_EQ(head.status, 0);
    EXPECT_LT(Clock::now() - t, 1s);
}

TEST(HttpCallStop, CallsMadeWithAnotherStopOrNoneGoOn) {
    HttpServer server(HttpServerOptions{}, [](const HttpRequest&) { return HttpResponse{200, "text/plain", "here\n"}; });
    HttpCallStop stopped, running;
    stopped.stop();
    EXPECT_EQ(http_call(call_to(server.port()), &running).body, "here\n");
    EXPECT_EQ(http_call(call_to(server.port())).body, "here\n");
}

}  // namespace
}  // namespace vf::http_call_stop_test
