#include "support/tcp_relay.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "support/child_process.hpp"

namespace vf::test {

TcpRelay::TcpRelay(std::string target_host, int target_port) : target_host_(std::move(target_host)), target_port_(target_port) {
    listener_ = listen_on_loopback(64, &port_);
    acceptor_ = std::thread([this] { accept_loop(); });
}

TcpRelay::~TcpRelay() {
    stopping_ = true;
    shutdown(listener_, SHUT_RDWR);
    acceptor_.join();
    close(listener_);
    {
        std::lock_guard<std::mutex> lock(mutex_);
        for (int s : sockets_) shutdown(s, SHUT_RDWR);
    }
    for (std::thread& t : threads_) t.join();
    for (int s : sockets_) close(s);
}

void TcpRelay::accept_loop() {
    while (!stopping_) {
        pollfd p{listener_, POLLIN, 0};
        if (poll(&p, 1, 100) <= 0) continue;
        const int client = accept(listener_, nullptr, nullptr);
        if (client < 0) continue;
        const int server = socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in to{};
        to.sin_family = AF_INET;
        to.sin_port = htons(static_cast<uint16_t>(target_port_));
        inet_pton(AF_INET, target_host_.c_str(), &to.sin_addr);
        if (connect(server, reinterpret_cast<sockaddr*>(&to), sizeof to) != 0) {
            close(client);
            close(server);
            continue;
        }
        std::lock_guard<std::mutex> lock(mutex_);
        sockets_.push_back(client);
        sockets_.push_back(server);
        threads_.emplace_back([this, client, server] { pump(client, server); });
    }
}

// Both ways until either side closes; while cut, bytes wait in the kernel's buffers, unread.
void TcpRelay::pump(int a, int b) {
    char buffer[16384];
    while (!stopping_) {
        if (cut_) {
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            continue;
        }
        pollfd p[2] = {{a, POLLIN, 0}, {b, POLLIN, 0}};
        if (poll(p, 2, 50) <= 0) continue;
        for (int i = 0; i < 2; ++i) {
            if (!(p[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            const ssize_t n = read(p[i].fd, buffer, sizeof buffer);
            if (n <= 0 || write(p[1 - i].fd, buffer, static_cast<size_t>(n)) != n) {
                shutdown(a, SHUT_RDWR);
                shutdown(b, SHUT_RDWR);
                return;
            }
        }
    }
}

}  // namespace vf::test
