// `vfilter health`: the container's HEALTHCHECK. Asks the metrics endpoint of the vfilter running
// in the same container (VFILTER_METRICS_PORT, VFILTER_METRICS_BIND) whether its input is up.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace vf {

int run_health_check() {
    const char* port_text = std::getenv("VFILTER_METRICS_PORT");
    if (!port_text || !*port_text) return 0;  // no endpoint configured: nothing to ask
    const int port = std::atoi(port_text);
    std::string host = std::getenv("VFILTER_METRICS_BIND") ? std::getenv("VFILTER_METRICS_BIND") : "127.0.0.1";
    if (host == "0.0.0.0" || host.empty()) host = "127.0.0.1";
    const int s = socket(AF_INET, SOCK_STREAM, 0);
    timeval tv{3, 0};
    setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    std::string reply;
    if (inet_pton(AF_INET, host.c_str(), &addr.sin_addr) == 1 &&
        connect(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
        const std::string request = "GET /metrics HTTP/1.0\r\n\r\n";
        send(s, request.data(), request.size(), MSG_NOSIGNAL);
        char buf[4096];
        for (ssize_t n; (n = recv(s, buf, sizeof buf, 0)) > 0;) reply.append(buf, static_cast<size_t>(n));
    }
    close(s);
    if (reply.find("\nvfilter_source_up 1") != std::string::npos) return 0;
    std::fprintf(stderr, "vfilter health: %s\n",
                 reply.empty() ? ("no answer from " + host + ":" + port_text + "/metrics").c_str()
                               : "the input is down (vfilter_source_up 0)");
    return 1;
}

}  // namespace vf
