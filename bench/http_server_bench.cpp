// The HTTP server alone, for docs/benchmarks.md ("The HTTP server"): GET /healthz answered on
// the I/O thread ("ok"), any other path on a worker (its path and query), everything else as
// HttpServerOptions' defaults. Runs until SIGINT or SIGTERM.
//   vfilter_http_bench PORT [WAITING]
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/http_server.hpp"

int main(int argc, char** argv) {
    vf::HttpServerOptions o;
    o.port = argc > 1 ? std::atoi(argv[1]) : 0;
    if (argc > 2) o.waiting = std::atoi(argv[2]);
    o.inline_paths = {"/healthz"};
    sigset_t stop;  // blocked before the server's threads start, so that sigwait() takes it
    sigemptyset(&stop);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGINT);
    pthread_sigmask(SIG_BLOCK, &stop, nullptr);
    vf::HttpServer server(o, [](const vf::HttpRequest& r) {
        if (r.path == "/healthz") return vf::HttpResponse{200, "text/plain", "ok\n"};
        return vf::HttpResponse{200, "text/plain", "path [" + r.path + "] query [" + r.query + "]\n"};
    });
    std::printf("port %d\n", server.port());
    std::fflush(stdout);
    int signal = 0;
    sigwait(&stop, &signal);
    return 0;
}
