#include "support/etcd_server.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "support/run_command.hpp"

namespace vf::test {

bool EtcdServer::available() { return run_command({"etcd", "--version"}).exit_code == 0; }

EtcdServer::EtcdServer() {
    char pattern[] = "/tmp/vf-etcd-XXXXXX";
    const char* made = mkdtemp(pattern);
    if (!made) {
        ADD_FAILURE() << "cannot make a folder for etcd";
        return;
    }
    dir_ = made;
    // An address of its own on loopback (127.x.y.z): a port another test's etcd took between
    // free_port() and this one's bind can never be answered by that etcd in this one's place.
    std::random_device random;
    const std::string host = "127." + std::to_string(1 + random() % 250) + "." + std::to_string(random() % 250) + "." +
                             std::to_string(1 + random() % 250);
    client_port_ = free_port();
    const int peer_port = free_port();
    url_ = "http://" + host + ":" + std::to_string(client_port_);
    host_ = host;
    const std::string peer = "http://" + host + ":" + std::to_string(peer_port);
    process_ = std::make_unique<ChildProcess>(
        std::vector<std::string>{"etcd", "--name", "vf-test", "--data-dir", dir_ + "/data", "--listen-client-urls", url_,
                                 "--advertise-client-urls", url_, "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
                                 "--initial-cluster", "vf-test=" + peer, "--log-level", "warn",
                                 "--unsafe-no-fsync"},
        dir_ + "/etcd.log");
    for (int i = 0; i < 100 && !started_; ++i) {  // up to 10 s: a busy machine starts it slowly
        const CommandResult health = run_command({"curl", "-s", "-m", "1", url_ + "/health"});
        started_ = health.exit_code == 0 && health.output.find("\"health\":\"true\"") != std::string::npos && process_->running();
        if (!started_) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if (!started_) ADD_FAILURE() << "etcd did not start within 10 s: " << process_->log();
}

EtcdServer::~EtcdServer() {
    if (process_) {
        process_->signal(SIGCONT);
        process_.reset();  // SIGKILL
    }
    std::error_code ignored;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ignored);
}

// SIGSTOP is taken asynchronously: a request sent right after could still be answered. Waits
// (up to 2 s) until the kernel shows every one of etcd's threads stopped.
void EtcdServer::pause() {
    process_->signal(SIGSTOP);
    const std::string tasks = "/proc/" + std::to_string(process_->pid()) + "/task";
    for (int i = 0; i < 200; ++i) {
        bool all_stopped = true;
        std::error_code ec;
        for (const auto& t : std::filesystem::directory_iterator(tasks, ec)) {
            std::ifstream stat(t.path() / "stat");
            const std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
            const size_t close = text.rfind(')');
            if (close == std::string::npos || close + 2 >= text.size() || (text[close + 2] != 'T' && text[close + 2] != 't'))
                all_stopped = false;
        }
        if (all_stopped && !ec) return;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
}
void EtcdServer::resume() { process_->signal(SIGCONT); }

}  // namespace vf::test
