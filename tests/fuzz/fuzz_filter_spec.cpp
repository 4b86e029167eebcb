// libFuzzer target: the filter-chain parser and plan builder (config/), fed any text.
// A usage error (vf::Error) is the expected answer to bad input; anything else is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/error.hpp"
#include "config/filter_registry.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size > 4096) return 0;
    try {
        (void)vf::build_chain(std::string(reinterpret_cast<const char*>(data), size));
    } catch (const vf::Error&) {
    }
    return 0;
}
