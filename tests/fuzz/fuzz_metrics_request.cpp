// libFuzzer target: the metrics endpoint's request handling (common/metrics_server.cpp), the one
// network-facing parser vfilter runs itself, fed any bytes a client could send.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "common/metrics_server.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size > 8192) return 0;  // the server reads at most 8 KiB of a request
    const std::string request(reinterpret_cast<const char*>(data), size);
    const std::string response = vf::metrics_http_response(request, [] { return std::string("vfilter_up 1\n"); });
    // Every answer is a complete HTTP response with one of the three statuses.
    if (response.rfind("HTTP/1.1 200 OK\r\n", 0) != 0 && response.rfind("HTTP/1.1 404 Not Found\r\n", 0) != 0 &&
        response.rfind("HTTP/1.1 405 Method Not Allowed\r\n", 0) != 0)
        std::abort();
    if (response.find("\r\n\r\n") == std::string::npos) std::abort();
    return 0;
}
