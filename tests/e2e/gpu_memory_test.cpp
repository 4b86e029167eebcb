// Out of GPU memory for real, in its own executable: it takes nearly all free GPU memory, so ctest
// runs it alone (RUN_SERIAL), never beside another GPU test.
#include <gtest/gtest.h>

#include "kernels/cuda_backend.hpp"
#include "app/job.hpp"
#include "support/clip_writer.hpp"
#include "support/expected_output.hpp"
#include "support/run_command.hpp"

using namespace vf::test;

namespace vf {
namespace {

using namespace test;

// Out of GPU memory for real: most of the free memory is taken before the run, so the second
// stream's device images cannot be allocated. The run must fail with the Device exit category and
// a clear message, and keep the frame that was already on its way, in a finalised output.
TEST(GpuMemory, RunningOutFinalisesWhatWasFiltered) {
    std::string why;
    if (!cuda_device_available(&why)) GTEST_SKIP() << "GPU test skipped: " << why;
    const std::string dir = temp_dir();
    ClipSpec clip;
    clip.path = dir + "/in.mkv";
    clip.width = 1920;
    clip.height = 1080;
    clip.frames = 8;
    clip.audio = false;
    write_clip(clip);
    // One slot holds two 1080p yuv420p device images of 64-aligned rows: about 6.3 MB.
    const size_t slot_bytes = 2 * size_t(1920) * 1080 * 3 / 2;
    size_t free_bytes = 0, total = 0;
    ASSERT_EQ(cudaMemGetInfo(&free_bytes, &total), cudaSuccess);
    void* hog = nullptr;
    const size_t keep = slot_bytes + slot_bytes / 2 + (8u << 20);  // room for one slot and the runtime
    ASSERT_GT(free_bytes, keep);
    ASSERT_EQ(cudaMalloc(&hog, free_bytes - keep), cudaSuccess);
    RunOptions o;
    o.input = clip.path;
    o.output = dir + "/out.mkv";
    o.filter = "sobel";
    o.codec = "ffv1";
    o.device = DeviceChoice::Cuda;
    o.hwdec = HwDecode::None;
    o.gpu_streams = 6;
    o.progress = false;
    bool failed = false;
    try {
        Job job(o);
        job.run();
    } catch (const Error& e) {
        failed = true;
        EXPECT_EQ(e.category(), ErrorCategory::Device) << e.what();
        EXPECT_NE(std::string(e.what()).find("finalised"), std::string::npos) << e.what();
    }
    cudaFree(hog);
    if (!failed) GTEST_SKIP() << "the run found enough GPU memory after all; nothing was tested";
    EXPECT_FALSE(file_exists(o.output + ".partial"));
    ASSERT_TRUE(file_exists(o.output)) << "the frame filtered before the failure was not kept";
    EXPECT_GE(read_video_frames(o.output).size(), 1u);
}

}  // namespace
}  // namespace vf
