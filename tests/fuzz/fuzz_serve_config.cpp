// libFuzzer target: `vfilter serve`'s YAML config (app/serve/serve_config.cpp), any bytes: either a
// config or an Error(Usage) with its one-line reason, never a crash or another exception.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "app/serve/serve_config.hpp"
#include "common/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size > 16384) return 0;
    try {
        vf::parse_serve_config(std::string(reinterpret_cast<const char*>(data), size), "fuzz.yaml");
    } catch (const vf::Error& e) {
        if (e.category() != vf::ErrorCategory::Usage) std::abort();
    }
    return 0;
}
