// libFuzzer target: an HTTP request as a client could send it, through the server's reader
// (Boost.Beast's parser within the server's limits: common/http_request_reader.cpp) and the
// control API's routing (app/serve/http/control_api.cpp) against a service with no streams, so any path,
// method, header and body reaches the code that answers it.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "app/serve/http/control_api.hpp"
#include "common/http_server.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size > 70000) return 0;  // just past the 64 KiB body limit
    // A service that starts nothing: requests are parsed and checked in full, then refused (503).
    static vf::StreamService* service = [] {
        auto* s = new vf::StreamService(1);
        s->stop_all();
        return s;
    }();
    static vf::ControlApi* api = [] {
        vf::ControlApiOptions o;
        o.token = "fuzz-admin-token-0123";
        o.viewer_token = "fuzz-viewer-token-0123";
        return new vf::ControlApi(*service, o);
    }();
    const std::string request(reinterpret_cast<const char*>(data), size);
    const std::string response = vf::http_answer_bytes(
        request, [](const vf::HttpRequest& r) { return api->answer(r); }, 64 * 1024);
    // Whatever came in, what goes out is empty (no request line at all) or one HTTP response.
    if (!response.empty() && (response.rfind("HTTP/1.1 ", 0) != 0 || response.find("\r\n\r\n") == std::string::npos))
        std::abort();
    return 0;
}
