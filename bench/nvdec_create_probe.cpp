// Where an NVDEC decoder's creation time goes, and whether creations on several GPUs overlap:
// the start cost that keeps two GPUs under 1.9x one at 64 camera streams (issue 42, target 3).
// For each case it creates and destroys N H.264 decoders of one size and prints the mean time
// of cuvidGetDecoderCaps, cuvidCreateDecoder and cuvidDestroyDecoder and the wall time of all:
//   serial      N decoders one after another on GPU 0
//   threads     N decoders from T threads on GPU 0 (does the driver create them in parallel?)
//   gpus        N decoders on every GPU at once, a thread per GPU (machine-wide serialisation?)
//   surfaces    serial again with S decode surfaces instead of vfilter's (does the count matter?)
//   nvdec_create_probe [--decoders N] [--threads T] [--surfaces S] [--size WxH]
// It touches nothing but the driver (no FFmpeg, no stream): decoders are created as
// decode/nvdec_decoder.cpp creates them for a 1080p camera (NV12, PreferCUVID, 2 output surfaces).
#include <ffnvcodec/dynlink_loader.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

struct Options {
    int decoders = 64;
    int threads = 8;
    // vfilter's decoder takes the parser's minimum + the frames shown ahead + 4 (at most 32);
    // 12 is a guess at a camera's, which the "surfaces" cases bracket.
    int surfaces = 12;
    int width = 1920, height = 1080;
};

struct Driver {
    CudaFunctions* cu = nullptr;
    CuvidFunctions* cv = nullptr;
    std::vector<CUcontext> contexts;  // one primary context per GPU

    bool load() {
        if (cuda_load_functions(&cu, nullptr) < 0 || cuvid_load_functions(&cv, nullptr) < 0) return false;
        if (cu->cuInit(0) != CUDA_SUCCESS) return false;
        int count = 0;
        cu->cuDeviceGetCount(&count);
        for (int i = 0; i < count; ++i) {
            CUdevice dev = 0;
            CUcontext ctx = nullptr;
            if (cu->cuDeviceGet(&dev, i) != CUDA_SUCCESS || cu->cuDevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS) return false;
            contexts.push_back(ctx);
        }
        return !contexts.empty();
    }
    ~Driver() {
        for (size_t i = 0; i < contexts.size(); ++i) {
            CUdevice dev = 0;
            if (cu->cuDeviceGet(&dev, static_cast<int>(i)) == CUDA_SUCCESS) cu->cuDevicePrimaryCtxRelease(dev);
        }
        cuvid_free_functions(&cv);
        cuda_free_functions(&cu);
    }
};

// Sums of the three calls' times over the decoders one thread made.
struct Times {
    double caps_ms = 0, create_ms = 0, destroy_ms = 0;
    int made = 0, failed = 0;
    void add(const Times& o) {
        caps_ms += o.caps_ms, create_ms += o.create_ms, destroy_ms += o.destroy_ms;
        made += o.made, failed += o.failed;
    }
};

// Creates `count` decoders on `gpu`, keeping them all alive (as streams do), then destroys them.
Times create_and_destroy(Driver& d, int gpu, int count, const Options& o) {
    Times t;
    if (d.cu->cuCtxPushCurrent(d.contexts[gpu]) != CUDA_SUCCESS) {
        t.failed = count;
        return t;
    }
    const unsigned coded_height = (o.height + 15) / 16 * 16;
    std::vector<CUvideodecoder> made;
    for (int i = 0; i < count; ++i) {
        CUVIDDECODECAPS caps{};
        caps.eCodecType = cudaVideoCodec_H264;
        caps.eChromaFormat = cudaVideoChromaFormat_420;
        caps.nBitDepthMinus8 = 0;
        Clock::time_point at = Clock::now();
        const bool caps_ok = d.cv->cuvidGetDecoderCaps(&caps) == CUDA_SUCCESS && caps.bIsSupported;
        t.caps_ms += ms_since(at);
        CUVIDDECODECREATEINFO ci{};
        ci.CodecType = cudaVideoCodec_H264;
        ci.ChromaFormat = cudaVideoChromaFormat_420;
        ci.OutputFormat = cudaVideoSurfaceFormat_NV12;
        ci.DeinterlaceMode = cudaVideoDeinterlaceMode_Weave;
        ci.ulWidth = ci.ulMaxWidth = static_cast<unsigned long>(o.width);
        ci.ulHeight = ci.ulMaxHeight = coded_height;
        ci.display_area.right = static_cast<short>(o.width);
        ci.display_area.bottom = static_cast<short>(o.height);
        ci.ulTargetWidth = static_cast<unsigned long>(o.width);
        ci.ulTargetHeight = static_cast<unsigned long>(o.height);
        ci.target_rect.right = static_cast<short>(o.width);
        ci.target_rect.bottom = static_cast<short>(o.height);
        ci.ulNumDecodeSurfaces = static_cast<unsigned long>(o.surfaces);
        ci.ulNumOutputSurfaces = 2;
        ci.ulCreationFlags = cudaVideoCreate_PreferCUVID;
        CUvideodecoder decoder = nullptr;
        at = Clock::now();
        const bool created = caps_ok && d.cv->cuvidCreateDecoder(&decoder, &ci) == CUDA_SUCCESS;
        t.create_ms += ms_since(at);
        if (created) {
            made.push_back(decoder);
            ++t.made;
        } else {
            ++t.failed;
        }
    }
    for (CUvideodecoder decoder : made) {
        const Clock::time_point at = Clock::now();
        d.cv->cuvidDestroyDecoder(decoder);
        t.destroy_ms += ms_since(at);
    }
    CUcontext popped = nullptr;
    d.cu->cuCtxPopCurrent(&popped);
    return t;
}

// Runs `jobs` (gpu, count) at once, one thread each; prints one line.
void run_case(Driver& d, const char* name, const std::vector<std::pair<int, int>>& jobs, const Options& o) {
    std::vector<std::thread> threads;
    std::mutex m;
    Times all;
    const Clock::time_point start = Clock::now();
    for (const auto& [gpu, count] : jobs)
        threads.emplace_back([&, gpu = gpu, count = count] {
            const Times t = create_and_destroy(d, gpu, count, o);
            std::lock_guard<std::mutex> lock(m);
            all.add(t);
        });
    for (std::thread& t : threads) t.join();
    const double wall = ms_since(start);
    const int n = std::max(1, all.made + all.failed);
    std::printf("%-9s %3zu threads %4d decoders (%d failed) %3d surfaces: caps %6.2f ms, create %7.2f ms, destroy %6.2f ms "
                "each; %8.0f ms wall (%.1f ms a decoder)\n",
                name, jobs.size(), all.made, all.failed, o.surfaces, all.caps_ms / n, all.create_ms / n,
                all.destroy_ms / std::max(1, all.made), wall, wall / n);
    std::fflush(stdout);
}

bool parse(int argc, char** argv, Options& o) {
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const char* v = i + 1 < argc ? argv[i + 1] : nullptr;
        if (!v) return false;
        if (a == "--decoders") o.decoders = std::atoi(v);
        else if (a == "--threads") o.threads = std::atoi(v);
        else if (a == "--surfaces") o.surfaces = std::atoi(v);
        else if (a == "--size") {
            if (std::sscanf(v, "%dx%d", &o.width, &o.height) != 2) return false;
        } else return false;
        ++i;
    }
    return o.decoders > 0 && o.threads > 0 && o.surfaces > 0 && o.width > 0 && o.height > 0;
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    if (!parse(argc, argv, o)) {
        std::fprintf(stderr, "usage: nvdec_create_probe [--decoders N] [--threads T] [--surfaces S] [--size WxH]\n");
        return 2;
    }
    Driver d;
    if (!d.load()) {
        std::fprintf(stderr, "nvdec_create_probe: no CUDA driver, NVDEC or GPU here\n");
        return 1;
    }
    std::printf("%zu GPU(s); %dx%d H.264 decoders\n", d.contexts.size(), o.width, o.height);
    run_case(d, "warm-up", {{0, 2}}, o);
    run_case(d, "serial", {{0, o.decoders}}, o);
    std::vector<std::pair<int, int>> threaded;
    for (int i = 0; i < o.threads; ++i) threaded.push_back({0, o.decoders / o.threads});
    run_case(d, "threads", threaded, o);
    if (d.contexts.size() > 1) {
        std::vector<std::pair<int, int>> per_gpu;
        for (size_t g = 0; g < d.contexts.size(); ++g) per_gpu.push_back({static_cast<int>(g), o.decoders});
        run_case(d, "gpus", per_gpu, o);
    }
    Options few = o, many = o;
    few.surfaces = 6;
    many.surfaces = 24;
    run_case(d, "surfaces", {{0, o.decoders}}, few);
    run_case(d, "surfaces", {{0, o.decoders}}, many);
    return 0;
}
