#include "support/recording_peer.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>

namespace vf::test {

RecordingPeer::RecordingPeer(HttpHandler answer) : answer_(std::move(answer)) {
    listener_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t size = sizeof addr;
    if (bind(listener_, reinterpret_cast<sockaddr*>(&addr), size) == 0 && listen(listener_, 16) == 0 &&
        getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &size) == 0)
        port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { serve(); });
}

RecordingPeer::~RecordingPeer() {
    stop_ = true;
    thread_.join();
    close(listener_);
}

std::vector<std::string> RecordingPeer::requests() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return requests_;
}

void RecordingPeer::serve() {
    pollfd p{listener_, POLLIN, 0};
    while (!stop_) {
        if (poll(&p, 1, 50) <= 0) continue;
        const int fd = accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd < 0) continue;
        take(fd);
        close(fd);
    }
}

// Reads until the parser has a whole request (it answers "" before), the caller leaves or a few
// seconds pass; keeps the bytes and writes the answer.
void RecordingPeer::take(int fd) {
    std::string bytes, answer;
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(3);
    char buf[4096];
    while (answer.empty() && !stop_ && std::chrono::steady_clock::now() < until) {
        pollfd p{fd, POLLIN, 0};
        if (poll(&p, 1, 50) <= 0) continue;
        const ssize_t n = recv(fd, buf, sizeof buf, 0);
        if (n <= 0) break;
        bytes.append(buf, static_cast<size_t>(n));
        answer = http_answer_bytes(bytes, answer_);
    }
    {
        std::lock_guard<std::mutex> lock(mutex_);
        requests_.push_back(bytes);
    }
    for (size_t sent = 0; sent < answer.size();) {
        const ssize_t n = send(fd, answer.data() + sent, answer.size() - sent, MSG_NOSIGNAL);
        if (n <= 0) break;
        sent += static_cast<size_t>(n);
    }
}

}  // namespace vf::test
