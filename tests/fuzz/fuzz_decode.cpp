// libFuzzer target: vfilter's decode path (decode/file_source.*) on any bytes: probe, open, read
// and decode up to 64 items, as a run would, through a real file (FileSource opens URLs).
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

extern "C" {
#include <libavutil/log.h>
}

#include "common/error.hpp"
#include "decode/file_source.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size > 1 << 20) return 0;
    av_log_set_level(AV_LOG_QUIET);
    spdlog::set_level(spdlog::level::off);
    static const std::string path = "/tmp/vfilter-fuzz-decode-" + std::to_string(getpid()) + ".bin";
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) return 0;
    if (size > 0) std::fwrite(data, 1, size, f);  // data may be null for an empty input
    std::fclose(f);
    try {
        vf::FileSourceOptions o;
        o.url = path;
        o.decoder_threads = 1;
        vf::FileSource source(o);
        for (int i = 0; i < 64; ++i)
            if (!source.read()) break;
        (void)source.health();
    } catch (const vf::Error&) {
    }
    return 0;
}
