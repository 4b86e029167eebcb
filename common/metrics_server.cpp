#include "common/metrics_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/error.hpp"

namespace vf {

std::string metrics_http_response(const std::string& request, const std::function<std::string()>& render) {
    const size_t line_end = request.find("\r\n");
    const std::string line = request.substr(0, line_end == std::string::npos ? request.size() : line_end);
    const bool get = line.rfind("GET ", 0) == 0, head = line.rfind("HEAD ", 0) == 0;
    std::string path;
    if (get || head) {
        const size_t path_at = line.find(' ') + 1;
        const size_t path_end = line.find(' ', path_at);
        path = line.substr(path_at, path_end == std::string::npos ? std::string::npos : path_end - path_at);
        if (const size_t q = path.find('?'); q != std::string::npos) path.resize(q);
    }
    std::string status = "200 OK", type = "text/plain; version=0.0.4; charset=utf-8", body;
    if (!get && !head) {
        status = "405 Method Not Allowed";
        type = "text/plain";
        body = "only GET /metrics\n";
    } else if (path != "/metrics") {
        status = "404 Not Found";
        type = "text/plain";
        body = "vfilter serves /metrics\n";
    } else {
        body = render();
    }
    std::string response = "HTTP/1.1 " + status + "\r\nContent-Type: " + type +
                           "\r\nContent-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n";
    if (!head) response += body;
    return response;
}

MetricsServer::MetricsServer(const std::string& bind_address, int port, std::function<std::string()> render)
    : render_(std::move(render)) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    if (inet_pton(AF_INET, bind_address.c_str(), &addr.sin_addr) != 1)
        fail(ErrorCategory::Usage, "--metrics-bind '" + bind_address + "': expected an IPv4 address such as 127.0.0.1 or 0.0.0.0");
    if (port < 0 || port > 65535) fail(ErrorCategory::Usage, "--metrics-port must be in 0..65535");
    listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (listen_fd_ < 0) fail(ErrorCategory::Internal, std::string("metrics socket: ") + std::strerror(errno));
    const int one = 1;
    setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || listen(listen_fd_, 8) != 0) {
        const std::string why = std::strerror(errno);
        close(listen_fd_);
        fail(ErrorCategory::Usage, "cannot serve metrics on " + bind_address + ":" + std::to_string(port) + ": " + why);
    }
    socklen_t len = sizeof addr;
    getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { serve(); });
}

MetricsServer::~MetricsServer() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    close(listen_fd_);
}

void MetricsServer::serve() {
    while (!stop_) {
        pollfd p{listen_fd_, POLLIN, 0};
        if (poll(&p, 1, 100) <= 0) continue;  // wakes every 100 ms to notice stop_
        const int client = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
        if (client < 0) continue;
        answer(client);
        close(client);
    }
}

void MetricsServer::answer(int client) {
    timeval tv{1, 0};  // a scraper that sends or reads nothing for a second is dropped
    setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(client, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    std::string request;
    char buf[1024];
    while (request.find("\r\n\r\n") == std::string::npos && request.size() < 8192) {
        const ssize_t n = recv(client, buf, sizeof buf, 0);
        if (n <= 0) break;
        request.append(buf, static_cast<size_t>(n));
    }
    const std::string response = metrics_http_response(request, render_);
    size_t sent = 0;
    while (sent < response.size()) {
        const ssize_t n = send(client, response.data() + sent, response.size() - sent, MSG_NOSIGNAL);
        if (n <= 0) break;
        sent += static_cast<size_t>(n);
    }
}

}  // namespace vf
