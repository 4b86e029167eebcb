#include "support/http_client.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

namespace vf::test {
namespace {

int connect_local(int port) {
    const int s = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<uint16_t>(port));
    if (connect(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
        close(s);
        return -1;
    }
    return s;
}

}  // namespace

std::string http_exchange(int port, const std::string& request) {
    const int s = connect_local(port);
    if (s < 0) return "";
    send(s, request.data(), request.size(), MSG_NOSIGNAL);
    std::string reply;
    char buf[4096];
    for (ssize_t n; (n = recv(s, buf, sizeof buf, 0)) > 0;) reply.append(buf, static_cast<size_t>(n));
    close(s);
    return reply;
}

std::string http_get(int port, const std::string& path) { return http_exchange(port, "GET " + path + " HTTP/1.0\r\n\r\n"); }

FloodResult http_flood(int port, const std::string& head, const std::string& piece, size_t times, std::chrono::milliseconds timeout) {
    FloodResult r;
    const int s = connect_local(port);
    if (s < 0) return r;
    const auto until = std::chrono::steady_clock::now() + timeout;
    size_t pieces = 0, at = 0;  // within the current piece (the head first)
    bool sending = true, head_sent = false;
    char buf[16384];
    while (!r.closed && std::chrono::steady_clock::now() < until) {
        pollfd p{s, static_cast<short>(POLLIN | (sending ? POLLOUT : 0)), 0};
        if (poll(&p, 1, 50) <= 0) continue;
        if (p.revents & (POLLIN | POLLHUP | POLLERR)) {
            const ssize_t n = recv(s, buf, sizeof buf, MSG_DONTWAIT);
            if (n > 0) r.received.append(buf, static_cast<size_t>(n));
            if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) r.closed = true;
        }
        if (!sending || !(p.revents & POLLOUT)) continue;
        const std::string& now = head_sent ? piece : head;
        const ssize_t n = send(s, now.data() + at, now.size() - at, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) sending = false;  // the server is gone
        if (n <= 0) continue;
        r.sent += static_cast<size_t>(n);
        at += static_cast<size_t>(n);
        if (at < now.size()) continue;
        at = 0;
        if (head_sent) ++pieces;
        head_sent = true;
        sending = pieces < times;
    }
    close(s);
    return r;
}

HttpConnection::HttpConnection(int port, const std::string& request) : fd_(connect_local(port)) {
    if (fd_ >= 0 && ::send(fd_, request.data(), request.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(request.size())) close_now();
}

HttpConnection::~HttpConnection() { close_now(); }

void HttpConnection::close_now() {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
}

bool HttpConnection::send(const std::string& bytes) {
    return fd_ >= 0 && ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(bytes.size());
}

bool HttpConnection::closed_by_server(std::chrono::milliseconds timeout) {
    read_until(std::string(1, '\0') + "never sent", timeout);
    return server_closed_;
}

const std::string& HttpConnection::read_until(const std::string& want, std::chrono::milliseconds timeout) {
    if (fd_ < 0 || server_closed_) return received_;
    timeval tv{0, 100000};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    const auto until = std::chrono::steady_clock::now() + timeout;
    char buf[4096];
    while (received_.find(want) == std::string::npos && std::chrono::steady_clock::now() < until) {
        const ssize_t n = recv(fd_, buf, sizeof buf, 0);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
            server_closed_ = true;
            break;
        }
        if (n > 0) received_.append(buf, static_cast<size_t>(n));
    }
    return received_;
}

bool port_open(int port) {
    const int s = connect_local(port);
    if (s >= 0) close(s);
    return s >= 0;
}

}  // namespace vf::test
