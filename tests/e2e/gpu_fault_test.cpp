// A GPU that fails mid-run, for real: another thread of the process makes a kernel trap, which
// leaves CUDA's context with a sticky error, as an uncorrectable memory error or a GPU falling off
// the bus does: from then on every CUDA call of vfilter fails. In its own executable (the context
// cannot be used again by later tests of the same process) and run alone by ctest.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <thread>

#include "kernels/cuda_backend.hpp"
#include "app/run/job.hpp"
#include "support/clip_writer.hpp"
#include "support/gpu_fault.hpp"
#include "support/run_command.hpp"

namespace vf {
namespace {

using namespace test;

uintmax_t size_or_zero(const std::string& path) {
    std::error_code ec;
    const uintmax_t n = std::filesystem::file_size(path, ec);
    return ec ? 0 : n;
}

// The run must stop with the Device category and a one-line message that says what happened,
// keep every frame that was filtered before the failure in a finalised file (no .partial left),
// and not hang on GPU work that will never finish.
TEST(GpuFault, ContextLostMidRunFinalisesWhatWasFiltered) {
    std::string why;
    if (!cuda_device_available(&why)) GTEST_SKIP() << "GPU test skipped: " << why;
    const std::string dir = temp_dir();
    ClipSpec clip;
    clip.path = dir + "/in.mkv";
    clip.width = 1280;
    clip.height = 720;
    clip.frames = 150;
    clip.audio = false;
    write_clip(clip);
    RunOptions o;
    o.input.url = clip.path;
    o.output.path = dir + "/out.mkv";
    o.filter.chain = "sobel";
    o.output.codec = "ffv1";
    o.filter.device = DeviceChoice::Cuda;
    o.input.hwdec = HwDecode::None;

    // Break the context once the output holds a few frames (ffv1 of random pictures: about
    // 1.4 MB a frame).
    std::atomic<bool> finished{false};
    cudaError_t fault = cudaSuccess;
    std::thread breaker([&] {
        while (!finished && size_or_zero(o.output.path + ".partial") < (4u << 20))
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        if (!finished) fault = break_gpu_context();
    });
    std::string message;
    ErrorCategory category = ErrorCategory::Internal;
    bool failed = false;
    const auto start = std::chrono::steady_clock::now();
    try {
        Job job(o);
        job.run();
    } catch (const Error& e) {
        failed = true;
        category = e.category();
        message = e.what();
    }
    finished = true;
    breaker.join();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    ASSERT_NE(fault, cudaSuccess) << "the run ended before the fault was injected; nothing was tested";
    ASSERT_TRUE(failed) << "the run reported success after its GPU failed";
    EXPECT_EQ(category, ErrorCategory::Device) << message;
    EXPECT_NE(message.find("GPU failed"), std::string::npos) << message;
    EXPECT_NE(message.find("finalised"), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << "not one line: " << message;
    EXPECT_LT(seconds, 60) << "the run took too long to notice its GPU had failed";
    EXPECT_FALSE(file_exists(o.output.path + ".partial"));
    ASSERT_TRUE(file_exists(o.output.path)) << "the frames filtered before the failure were not kept";
    const size_t kept = read_video_frames(o.output.path).size();
    EXPECT_GE(kept, 2u);
    EXPECT_LT(kept, static_cast<size_t>(clip.frames));
    std::printf("GPU context broken (%s) after %zu frames were written; run ended in %.2f s: %s\n",
                cudaGetErrorString(fault), kept, seconds, message.c_str());
}

}  // namespace
}  // namespace vf
