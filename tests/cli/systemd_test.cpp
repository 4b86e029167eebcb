// vfilter serve under systemd: the unit file as systemd reads it, and serve's side of the notify
// protocol (READY, RELOADING, STOPPING, WATCHDOG) on a real datagram socket, as systemd listens.
#include <gtest/gtest.h>

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "support/child_process.hpp"
#include "support/run_command.hpp"

namespace vf {
namespace {

using namespace vf::test;
namespace fs = std::filesystem;

const std::string kVfilter = VFILTER_BIN;
const std::string kUnit = std::string(VF_SOURCE_DIR) + "/deploy/systemd/vfilter-serve.service";

bool have_command(const std::string& name) { return run_command({"sh", "-c", "command -v " + name}, 30).exit_code == 0; }

TEST(Systemd, TheUnitFileIsWhatSystemdReadsWithoutAWarning) {
    if (!have_command("systemd-analyze")) GTEST_SKIP() << "systemd-analyze is missing (scripts/install_deps.sh --test installs systemd)";
    const std::string dir = temp_dir();
    // The unit names the installed binary; here it is the one just built.
    std::ifstream in(kUnit);
    std::string unit((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_NE(unit.find("/usr/local/bin/vfilter serve"), std::string::npos);
    unit = std::regex_replace(unit, std::regex("/usr/local/bin/vfilter"), kVfilter);
    std::ofstream(dir + "/vfilter-serve.service") << unit;
    const CommandResult r = run_command({"systemd-analyze", "verify", dir + "/vfilter-serve.service"}, 60);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(r.output, "") << "every line systemd-analyze prints is a problem of the unit";
    for (const char* needed : {"Type=notify", "ExecReload=/bin/sh -c 'kill -HUP \"$MAINPID\"'", "Restart=on-failure", "User=vfilter",
                               "NoNewPrivileges=yes", "ProtectSystem=strict", "WatchdogSec="})
        EXPECT_NE(unit.find(needed), std::string::npos) << needed;
    fs::remove_all(dir);
}

// A datagram socket where serve's messages arrive, as systemd's NOTIFY_SOCKET.
class NotifySocket {
public:
    explicit NotifySocket(const std::string& path) : path_(path) {
        fd_ = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        sockaddr_un addr{};
        addr.sun_family = AF_UNIX;
        std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path.c_str());
        bound_ = bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
        timeval t{0, 100000};
        setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &t, sizeof t);
    }
    ~NotifySocket() {
        close(fd_);
        unlink(path_.c_str());
    }
    bool bound() const { return bound_; }
    // The next message that contains `want`, within timeout_s; every message is kept in seen().
    std::string next(const std::string& want, double timeout_s) {
        const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
        while (std::chrono::steady_clock::now() < until) {
            char buf[4096];
            const ssize_t n = recv(fd_, buf, sizeof buf, 0);
            if (n <= 0) continue;
            const std::string m(buf, static_cast<size_t>(n));
            seen_.push_back(m);
            if (m.find(want) != std::string::npos) return m;
        }
        return "";
    }
    std::string seen() const {
        std::string all;
        for (const auto& m : seen_) all += "[" + m + "] ";
        return all;
    }

private:
    std::string path_;
    int fd_ = -1;
    bool bound_ = false;
    std::vector<std::string> seen_;
};

TEST(Systemd, ServeTellsTheServiceManagerItIsReadyReloadingAndStopping) {
    const std::string dir = temp_dir();
    std::ofstream(dir + "/streams.yaml") << "streams:\n  - {name: demo, input: 'pattern://?size=160x120&rate=10', output: 'null'}\n";
    NotifySocket notify(dir + "/notify.sock");
    ASSERT_TRUE(notify.bound());
    setenv("NOTIFY_SOCKET", (dir + "/notify.sock").c_str(), 1);
    setenv("WATCHDOG_USEC", "200000", 1);
    ChildProcess serve({kVfilter, "serve", "--config", dir + "/streams.yaml", "--api-port", "0"}, dir + "/serve.log");
    unsetenv("NOTIFY_SOCKET");
    unsetenv("WATCHDOG_USEC");

    const std::string ready = notify.next("READY=1", 30);
    ASSERT_NE(ready, "") << notify.seen() << serve.log();
    EXPECT_NE(ready.find("STATUS=1 stream(s)"), std::string::npos) << ready;
    // The watchdog: a ping every half of WATCHDOG_USEC from the main loop.
    EXPECT_NE(notify.next("WATCHDOG=1", 2), "") << notify.seen();
    EXPECT_NE(notify.next("WATCHDOG=1", 2), "") << notify.seen();

    serve.signal(SIGHUP);
    const std::string reloading = notify.next("RELOADING=1", 10);
    EXPECT_TRUE(std::regex_search(reloading, std::regex("MONOTONIC_USEC=[0-9]+"))) << notify.seen();
    EXPECT_NE(notify.next("READY=1", 10), "") << "ready again after the reload: " << notify.seen();

    serve.signal(SIGTERM);
    EXPECT_NE(notify.next("STOPPING=1", 10), "") << notify.seen();
    EXPECT_EQ(serve.wait(30), 0) << serve.log();
    fs::remove_all(dir);
}

TEST(Systemd, WithoutANotifySocketServeSaysNothingAndRuns) {
    const std::string dir = temp_dir();
    std::ofstream(dir + "/streams.yaml") << "streams:\n  - {name: demo, input: 'pattern://?size=160x120&rate=10', output: 'null', frames: 5}\n";
    unsetenv("NOTIFY_SOCKET");
    const CommandResult r = run_command({kVfilter, "serve", "--config", dir + "/streams.yaml"}, 60);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(r.output.find("NOTIFY_SOCKET"), std::string::npos) << r.output;
    fs::remove_all(dir);
}

}  // namespace
}  // namespace vf
