// libFuzzer target: the kernel-file parser (config/kernel_file.*), fed any text.
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/error.hpp"
#include "config/kernel_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size > 1 << 20) return 0;
    const std::string text(reinterpret_cast<const char*>(data), size);
    for (bool odd : {true, false}) {
        try {
            (void)vf::parse_kernel_text(text, "fuzz", odd);
        } catch (const vf::Error&) {
        }
    }
    return 0;
}
