#include "support/http_client.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

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

bool port_open(int port) {
    const int s = connect_local(port);
    if (s >= 0) close(s);
    return s >= 0;
}

}  // namespace vf::test
