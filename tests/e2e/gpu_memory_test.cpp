// Out of GPU memory for real, in its own executable: it takes nearly all free GPU memory, so ctest
// runs it alone (RUN_SERIAL), never beside another GPU test.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <variant>

#include "kernels/cuda/device_context.hpp"
#include "kernels/cuda_backend.hpp"
#include "app/run/job.hpp"
#include "decode/file_source.hpp"
#include "pipeline/gpu_runtime.hpp"
#include "support/clip_writer.hpp"
#include "support/expected_output.hpp"
#include "support/filter_churn.hpp"
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
    o.input.url = clip.path;
    o.output.path = dir + "/out.mkv";
    o.filter.chain = "sobel";
    o.output.codec = "ffv1";
    o.filter.device = DeviceChoice::Cuda;
    o.input.hwdec = HwDecode::None;
    o.filter.gpu_streams = 6;
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
    EXPECT_FALSE(file_exists(o.output.path + ".partial"));
    ASSERT_TRUE(file_exists(o.output.path)) << "the frame filtered before the failure was not kept";
    EXPECT_GE(read_video_frames(o.output.path).size(), 1u);
}

// A served GPU stream whose filter is changed 200 times through distinct filters: each change
// compiles a new prepared chain (rows chosen, taps and tables uploaded, constant memory taken), and
// the old one must go with its last frame. At most two chains are alive at any time, none once the
// stream has ended, and GPU memory is back within 32 MiB of where it was before the stream started
// (a chain's tables are tens of kilobytes; a chain kept per change would hold far more). Memory is
// read device-wide, so this runs alone.
TEST(GpuMemory, FilterChurnGivesEveryChainBack) {
    std::string why;
    if (!cuda_device_available(&why)) GTEST_SKIP() << "GPU test skipped: " << why;
    const std::string dir = temp_dir();
    const std::string clip = write_churn_clip(dir, 200);
    RunOptions o = churn_options(clip, DeviceChoice::Cuda);
    GpuRuntimeOptions batching;
    batching.batch_wait_us = 200;  // through the device's batch window, as serve runs streams
    const auto runtime = std::make_shared<GpuRuntime>(batching);
    auto chains_alive = [&runtime] {
        int64_t n = 0;
        for (const auto& device : runtime->devices()) n += device->context()->totals().chains;
        return n;
    };
    {
        // The CUDA context and the code of the kernels the filters use, loaded once.
        Job warm(o, runtime);
        EXPECT_EQ(run_filter_churn(warm, churn_filters(8, 1)), 8);
    }
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    size_t free_before = 0, total = 0;
    ASSERT_EQ(cudaMemGetInfo(&free_before, &total), cudaSuccess);
    int64_t most_alive = 0;
    {
        Job job(o, runtime);
        const int seen = run_filter_churn(job, churn_filters(200, 2), [&](int) { most_alive = std::max(most_alive, chains_alive()); });
        EXPECT_EQ(seen, 200);
    }
    EXPECT_LE(most_alive, 2) << "replaced chains were kept";
    EXPECT_EQ(chains_alive(), 0) << "a chain outlived its stream";
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    size_t free_after = 0;
    ASSERT_EQ(cudaMemGetInfo(&free_after, &total), cudaSuccess);
    const double grown_mib = (static_cast<double>(free_before) - static_cast<double>(free_after)) / (1 << 20);
    EXPECT_LE(grown_mib, 32.0) << "GPU memory grew by " << grown_mib << " MiB over 200 filter changes";
    std::printf("GPU memory after 200 filter changes: %+.1f MiB; at most %lld prepared chains alive\n", grown_mib,
                static_cast<long long>(most_alive));
}

// Everything a GPU runtime made (device context and prepared chains, the batch window's CUDA
// streams and scratch, NVDEC decoders, page-locked frames) is freed when the runtime and its jobs
// end: GPU memory is back within 2 MiB of where it was before the runtime was made, and its
// page-locked store is gone. Memory is read device-wide, so this runs alone.
TEST(GpuMemory, RuntimeGivesEverythingBackWhenItEnds) {
    std::string why;
    if (!cuda_device_available(&why)) GTEST_SKIP() << "GPU test skipped: " << why;
    const std::string dir = temp_dir();
    const std::string clip = write_churn_clip(dir, 24);
    RunOptions o = churn_options(clip, DeviceChoice::Cuda);
    o.input.hwdec = HwDecode::Auto;  // NVDEC where it can: its decoder belongs to the runtime's device too
    GpuRuntimeOptions batching;
    batching.batch_wait_us = 200;
    auto run_once = [&] {
        const auto runtime = std::make_shared<GpuRuntime>(batching);
        std::weak_ptr<PageLockedStore> store = runtime->page_locked();
        {
            Job job(o, runtime);
            EXPECT_EQ(run_filter_churn(job, churn_filters(8, 3)), 8);
        }
        EXPECT_GT(runtime->page_locked()->bytes().pinned, 0u) << "the frames were not page-locked";
        return store;
    };
    run_once();  // the CUDA context and the kernels' code, loaded once for the process
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    size_t free_before = 0, total = 0;
    ASSERT_EQ(cudaMemGetInfo(&free_before, &total), cudaSuccess);
    const std::weak_ptr<PageLockedStore> store = run_once();
    EXPECT_TRUE(store.expired()) << "the page-locked store outlived its runtime";
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    size_t free_after = 0;
    ASSERT_EQ(cudaMemGetInfo(&free_after, &total), cudaSuccess);
    const double grown_mib = (static_cast<double>(free_before) - static_cast<double>(free_after)) / (1 << 20);
    EXPECT_LE(grown_mib, 2.0) << "GPU memory grew by " << grown_mib << " MiB over a runtime's life";
    std::printf("GPU memory after a runtime's life: %+.1f MiB\n", grown_mib);
}

// A stream moved between NVDEC and the CPU at every key frame (a key frame every 4 frames, about
// 30 moves), through each NVDEC decoder: every NVDEC decoder a move leaves must go with it, so GPU
// memory is back within 32 MiB of where it was before (one 640x352 NVDEC decoder holds several
// MiB of surfaces: 30 kept would show). Frames are all there. Memory is read device-wide, so this
// runs alone.
TEST(GpuMemory, DecoderMovesGiveTheirDecodersBack) {
    std::string why;
    if (!cuda_device_available(&why)) GTEST_SKIP() << "GPU test skipped: " << why;
    const std::string dir = temp_dir();
    const std::string in = write_h264_clip(dir + "/in.mp4", 640, 352, 120, 4);
    const size_t expected = read_video_frames(in).size();
    for (const NvdecDecoderKind kind : {NvdecDecoderKind::Ffmpeg, NvdecDecoderKind::Vfilter}) {
        SCOPED_TRACE(kind == NvdecDecoderKind::Vfilter ? "vfilter's NVDEC decoder" : "FFmpeg's NVDEC");
        auto decode_moving = [&] {
            FileSourceOptions o;
            o.url = in;
            o.passthrough_audio = false;
            o.hwdec = HwDecode::None;
            o.decoder_movable = true;
            o.nvdec_decoder = kind;
            o.decoder_threads = 1;  // frames come out soon after their packets: a move at most key frames
            FileSource source(o);
            int moves = 0;
            source.on_decoder_moved([&moves](bool) { ++moves; });
            size_t frames = 0;
            while (auto item = source.read()) {
                if (!std::holds_alternative<VideoFrame>(*item)) continue;
                ++frames;
                source.request_decoder_move(source.hw_decode() != "cuda");  // the other side, at the next key frame
            }
            EXPECT_EQ(frames, expected);
            return moves;
        };
        decode_moving();  // the CUDA context, the driver's NVDEC libraries: loaded once
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        size_t free_before = 0, total = 0;
        ASSERT_EQ(cudaMemGetInfo(&free_before, &total), cudaSuccess);
        const int moves = decode_moving();
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        size_t free_after = 0;
        ASSERT_EQ(cudaMemGetInfo(&free_after, &total), cudaSuccess);
        const double grown_mib = (static_cast<double>(free_before) - static_cast<double>(free_after)) / (1 << 20);
        EXPECT_GE(moves, 8);
        EXPECT_LE(grown_mib, 32.0) << "GPU memory grew by " << grown_mib << " MiB over " << moves << " moves";
        std::printf("GPU memory after %d decoder moves: %+.1f MiB\n", moves, grown_mib);
    }
}

}  // namespace
}  // namespace vf
