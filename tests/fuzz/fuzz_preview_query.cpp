// libFuzzer target: the query of serve's preview requests (app/serve/preview/preview_query.cpp), any bytes:
// either values within their documented ranges or a ServiceError 400 with its reason, never a
// crash or another exception. The first byte chooses snapshot.jpg or preview.mjpg.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "app/serve/preview/preview_query.hpp"
#include "app/serve/service_error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0 || size > 4096) return 0;
    const bool with_fps = data[0] & 1;
    const std::string query(reinterpret_cast<const char*>(data + 1), size - 1);
    try {
        const vf::PreviewQuery q = vf::parse_preview_query(query, with_fps);
        if (q.width < vf::kPreviewMinWidth || q.width > vf::kPreviewMaxWidth || q.fps < 1 || q.fps > vf::kPreviewMaxFps) std::abort();
        if (!with_fps && q.fps != vf::PreviewQuery{}.fps) std::abort();
    } catch (const vf::ServiceError& e) {
        if (e.status() != 400 || std::string(e.what()).empty()) std::abort();
    }
    return 0;
}
