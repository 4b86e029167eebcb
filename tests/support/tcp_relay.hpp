// A TCP relay on loopback between a test's client and a server (etcd, a camera): what it forwards
// can be stopped without closing anything, as a network partition does (the client's calls then
// wait for answers that never come), and started again.
#pragma once

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace vf::test {

class TcpRelay {
public:
    TcpRelay(std::string target_host, int target_port);  // an IPv4 address
    ~TcpRelay();
    TcpRelay(const TcpRelay&) = delete;
    TcpRelay& operator=(const TcpRelay&) = delete;

    int port() const { return port_; }
    // true: nothing passes either way, connections stay open; false: everything passes again.
    void partition(bool cut) { cut_ = cut; }

private:
    void accept_loop();
    void pump(int a, int b);

    std::string target_host_;
    int target_port_;
    int listener_ = -1;
    int port_ = 0;
    std::atomic<bool> cut_{false};
    std::atomic<bool> stopping_{false};
    std::mutex mutex_;
    std::vector<std::thread> threads_;
    std::vector<int> sockets_;
    std::thread acceptor_;
};

}  // namespace vf::test
