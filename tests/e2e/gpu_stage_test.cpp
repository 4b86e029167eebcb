// The GPU stage on its own: many distinct frames through several streams at once, taken back
// with polls and waits mixed, each checked against the CPU reference in submission order. A slot
// that reused a stale device image, a download of the wrong slot or a reordering shows up as a
// mismatch, because every frame differs from its neighbours.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <random>
#include <thread>

#include "config/filter_registry.hpp"
#include "kernels/cuda_backend.hpp"
#include "pipeline/filter_stage.hpp"
#include "pipeline/gpu_runtime.hpp"
#include "media/host_memory.hpp"
#include "support/clip_writer.hpp"
#include "support/expected_output.hpp"
#include "support/run_command.hpp"
#include "app/run/job.hpp"

extern "C" {
#include <libavformat/avformat.h>
#include <libavutil/pixdesc.h>
}

namespace vf {
namespace {

using namespace test;

bool gpu_or_skip(std::string* why) { return cuda_device_available(why); }


struct StageCase {
    const char* name;
    AVPixelFormat format;
    int width, height;
    const char* filter;
    int streams;
    bool pinned_input;
    const char* kernel = "auto";  // fft: within 1 LSB of the reference instead of exact
};

std::string dense_kernel(int n) {
    std::string m = "convolution=m=";
    for (int i = 0; i < n * n; ++i) m += std::to_string((i * 7) % 11 - 5) + (i + 1 < n * n ? " " : "");
    return m + ":bias=128";
}

int max_difference(const AVFrame* a, const AVFrame* b) {
    int worst = 0;
    const std::vector<PlaneView> va = channel_views(a), vb = channel_views(b);
    for (size_t c = 0; c < va.size(); ++c)
        for (int y = 0; y < va[c].height; ++y)
            for (int x = 0; x < va[c].width; ++x) worst = std::max(worst, std::abs(va[c].read(x, y) - vb[c].read(x, y)));
    return worst;
}

class GpuStage : public ::testing::TestWithParam<StageCase> {};

TEST_P(GpuStage, FramesComeBackInOrderAndMatchTheReference) {
    std::string why;
    if (!gpu_or_skip(&why)) GTEST_SKIP() << "GPU test skipped: " << why;
    const StageCase c = GetParam();
    GpuRuntime runtime;
    FilterStageOptions o;
    o.device = Device::Cuda;
    o.gpu = runtime.device(0);
    o.gpu_streams = c.streams;
    ASSERT_TRUE(parse_kernel_choice(c.kernel, &o.gpu_kernel)) << c.kernel;
    const std::string filter = c.filter[0] == '@' ? dense_kernel(std::atoi(c.filter + 1)) : c.filter;
    FilterStage stage(build_chain(filter), o);
    FramePool inputs(c.width, c.height, c.format, c.pinned_input ? runtime.page_locked()->allocator() : BufferAllocator());
    std::mt19937 rng(1234 + c.streams);
    std::vector<AvFramePtr> expected;
    std::vector<AvFramePtr> got;
    const int frames = 23;
    for (int i = 0; i < frames; ++i) {
        AvFramePtr in = random_frame(inputs, rng, i);
        expected.push_back(reference_filter(in.get(), filter));
        stage.submit(std::move(in));
        if (rng() % 3 == 0)  // sometimes poll, sometimes leave frames in flight
            while (AvFramePtr f = stage.take(false)) got.push_back(std::move(f));
    }
    while (AvFramePtr f = stage.take(true)) got.push_back(std::move(f));
    ASSERT_EQ(got.size(), expected.size());
    for (int i = 0; i < frames; ++i) {
        EXPECT_EQ(got[i]->pts, i) << "frames left out of order";
        std::string where;
        if (std::string(c.kernel) == "fft")
            EXPECT_LE(max_difference(got[i].get(), expected[i].get()), 1) << "frame " << i;
        else
            EXPECT_EQ(frame_differences(got[i].get(), expected[i].get(), false, &where), 0) << "frame " << i << " " << where;
    }
    EXPECT_EQ(stage.staged_uploads(), c.pinned_input ? 0 : frames) << "pageable uploads are counted as host copies";
    const std::vector<StageSummary> steps = stage.gpu_stages(1.0);
    ASSERT_EQ(steps.size(), 3u);
    EXPECT_GT(steps[1].ms_per_frame, 0.0) << "kernel time from CUDA events";
}

INSTANTIATE_TEST_SUITE_P(
    Streams, GpuStage,
    ::testing::Values(StageCase{"sobel_1stream", AV_PIX_FMT_YUV420P, 333, 201, "sobel=planes=all", 1, true},
                      StageCase{"sobel_2streams", AV_PIX_FMT_YUV420P, 333, 201, "sobel=planes=all", 2, true},
                      StageCase{"sobel_3streams_pageable", AV_PIX_FMT_YUV420P, 333, 201, "sobel=planes=all", 3, false},
                      StageCase{"chain_4streams_nv12", AV_PIX_FMT_NV12, 257, 131, "box=radius=2,emboss=planes=all", 4, true},
                      StageCase{"conv_p010_3streams", AV_PIX_FMT_P010LE, 129, 67,
                                "convolution=m=1 2 1 0 0 0 -1 -2 -1:bias=512", 3, true},
                      StageCase{"dense21_fft_3streams", AV_PIX_FMT_GRAY8, 300, 170, "@21", 3, true, "fft"},
                      StageCase{"dense21_tiled_2streams", AV_PIX_FMT_YUV420P, 300, 170, "@21", 2, true, "tiled"}),
    [](const ::testing::TestParamInfo<StageCase>& i) { return std::string(i.param.name); });

// A stream whose frames change layout mid-stream (a decoder move: planar frames from the CPU, NV12
// from NVDEC; a camera changing size): each slot keeps its device images while the new layout
// fits and lays the planes out anew. Every frame must still equal the reference, in order: a
// plane read at the old layout's offset, or a stale plane of a bigger layout, is a mismatch
// (the frames are random, each unlike the one before).
TEST(GpuStage, FramesWhoseLayoutChangesMidStreamMatchTheReference) {
    std::string why;
    if (!gpu_or_skip(&why)) GTEST_SKIP() << "GPU test skipped: " << why;
    struct Run {
        AVPixelFormat format;
        int width, height;
    };
    const std::vector<Run> runs = {{AV_PIX_FMT_YUV420P, 333, 201}, {AV_PIX_FMT_NV12, 333, 201}, {AV_PIX_FMT_YUV420P, 333, 201},
                                   {AV_PIX_FMT_GRAY8, 257, 131},   {AV_PIX_FMT_YUV420P, 641, 361}, {AV_PIX_FMT_NV12, 100, 51},
                                   {AV_PIX_FMT_YUV444P, 333, 201}, {AV_PIX_FMT_NV12, 641, 361}};
    const std::string filter = "box=radius=2,sobel=planes=all";  // two filters: both images of a slot
    GpuRuntime runtime;
    for (const int slots : {1, 3}) {
        FilterStageOptions o;
        o.device = Device::Cuda;
        o.gpu = runtime.device(0);
        o.gpu_streams = slots;
        FilterStage stage(build_chain(filter), o);
        std::mt19937 rng(4321 + slots);
        std::vector<AvFramePtr> expected, got;
        std::vector<std::string> what;
        int64_t pts = 0;
        for (const Run& r : runs) {
            FramePool inputs(r.width, r.height, r.format, runtime.page_locked()->allocator());
            const int frames = 2 + static_cast<int>(rng() % 5);  // runs shorter and longer than the slots
            for (int i = 0; i < frames; ++i) {
                AvFramePtr in = random_frame(inputs, rng, pts++);
                expected.push_back(reference_filter(in.get(), filter));
                what.push_back(std::string(av_get_pix_fmt_name(r.format)) + " " + std::to_string(r.width) + "x" + std::to_string(r.height));
                stage.submit(std::move(in));
                if (rng() % 2 == 0)
                    while (AvFramePtr f = stage.take(false)) got.push_back(std::move(f));
            }
        }
        while (AvFramePtr f = stage.take(true)) got.push_back(std::move(f));
        ASSERT_EQ(got.size(), expected.size()) << slots << " slots";
        for (size_t i = 0; i < got.size(); ++i) {
            EXPECT_EQ(got[i]->pts, static_cast<int64_t>(i)) << slots << " slots: frames left out of order";
            std::string where;
            EXPECT_EQ(frame_differences(got[i].get(), expected[i].get(), false, &where), 0)
                << slots << " slots, frame " << i << " (" << what[i] << ") " << where;
        }
    }
}

// Streams on threads of their own through the device's shared batch window, as serve runs
// them: frames of equal chain and size share launches (three sobel streams; two chains on nv12),
// others only with frames of their own stream (sobel one row shorter); each stream's frames still
// match the reference, in order. A launch that mixed two sizes fails (apply_batch refuses it);
// one that mixed chains or planes, or downloaded before its batch, shows as a mismatch: every
// frame of every stream differs.
TEST(GpuStageBatched, StreamsSharingLaunchesMatchTheReference) {
    std::string why;
    if (!gpu_or_skip(&why)) GTEST_SKIP() << "GPU test skipped: " << why;
    struct Stream {
        AVPixelFormat format;
        int width, height;
        const char* filter;
        int slots;
        double frames_per_launch = 0;
        int mismatches = 0, out_of_order = 0, frames = 0;
    };
    std::vector<Stream> streams = {{AV_PIX_FMT_YUV420P, 333, 201, "sobel=planes=all", 3},
                                   {AV_PIX_FMT_YUV420P, 333, 201, "sobel=planes=all", 2},
                                   {AV_PIX_FMT_YUV420P, 333, 201, "sobel=planes=all", 2},
                                   {AV_PIX_FMT_YUV420P, 333, 200, "sobel=planes=all", 2},
                                   {AV_PIX_FMT_NV12, 257, 131, "box=radius=2,emboss=planes=all", 3},
                                   {AV_PIX_FMT_NV12, 257, 131, "box=radius=2,emboss=planes=all", 2}};
    GpuRuntimeOptions batching;
    batching.batch_wait_us = 20000;
    GpuRuntime runtime(batching);
    std::vector<std::thread> threads;
    for (size_t k = 0; k < streams.size(); ++k) {
        threads.emplace_back([&s = streams[k], k, &runtime] {
            FilterStageOptions o;
            o.device = Device::Cuda;
            o.gpu = runtime.device(0);
            o.gpu_streams = s.slots;
            FilterStage stage(build_chain(s.filter), o);
            FramePool inputs(s.width, s.height, s.format, runtime.page_locked()->allocator());
            std::mt19937 rng(777 + static_cast<unsigned>(k));
            std::vector<AvFramePtr> expected, got;
            const int frames = 31;
            for (int i = 0; i < frames; ++i) {
                AvFramePtr in = random_frame(inputs, rng, i);
                expected.push_back(reference_filter(in.get(), s.filter));
                stage.submit(std::move(in));
                if (rng() % 3 == 0)
                    while (AvFramePtr f = stage.take(false)) got.push_back(std::move(f));
            }
            while (AvFramePtr f = stage.take(true)) got.push_back(std::move(f));
            s.frames = static_cast<int>(got.size());
            for (size_t i = 0; i < got.size() && i < expected.size(); ++i) {
                if (got[i]->pts != static_cast<int64_t>(i)) ++s.out_of_order;
                if (frame_differences(got[i].get(), expected[i].get()) != 0) ++s.mismatches;
            }
            s.frames_per_launch = stage.frames_per_launch();
        });
    }
    for (auto& t : threads) t.join();
    for (size_t k = 0; k < streams.size(); ++k) {
        const Stream& s = streams[k];
        EXPECT_EQ(s.frames, 31) << "stream " << k;
        EXPECT_EQ(s.out_of_order, 0) << "stream " << k;
        EXPECT_EQ(s.mismatches, 0) << "stream " << k << " (" << s.filter << ")";
    }
    for (size_t k : {0, 1, 2, 4, 5}) EXPECT_GT(streams[k].frames_per_launch, 1.2) << "stream " << k << " never shared a launch";
}

// NVDEC and page-locked decoding through the whole job: same output as decoding on the CPU,
// and no host copy of frame data on the way.
std::string h264_clip(const std::string& dir, int width, int height, int frames) {
    return write_h264_clip(dir + "/in.mp4", width, height, frames);
}

JobResult run_job(const std::string& in, const std::string& out, HwDecode hwdec, DeviceChoice device,
                  const std::string& filter, NvdecDecoderKind nvdec = NvdecDecoderKind::Ffmpeg, bool realtime = false) {
    RunOptions o;
    o.input.nvdec_decoder = nvdec;
    o.input.realtime = realtime;
    o.input.url = in;
    o.output.path = out;
    o.filter.chain = filter;
    o.output.codec = "ffv1";
    o.filter.device = device;
    o.input.hwdec = hwdec;
    Job job(o);
    return job.run();
}

TEST(GpuDecode, NvdecMatchesCpuDecodingAndCopiesNothingOnTheHost) {
    std::string why;
    if (!gpu_or_skip(&why)) GTEST_SKIP() << "GPU test skipped: " << why;
    const std::string dir = temp_dir();
    const std::string in = h264_clip(dir, 322, 182, 40);
    JobResult nv;
    try {
        nv = run_job(in, dir + "/nvdec.mkv", HwDecode::Cuda, DeviceChoice::Cuda, "sobel");
    } catch (const Error& e) {
        if (e.category() == ErrorCategory::Device) GTEST_SKIP() << "NVDEC unavailable here: " << e.what();
        throw;
    }
    const JobResult sw = run_job(in, dir + "/sw.mkv", HwDecode::None, DeviceChoice::Cuda, "sobel");
    EXPECT_EQ(nv.stats.hw_decode, "cuda");
    EXPECT_EQ(sw.stats.hw_decode, "none");
    const size_t frames = read_video_frames(in).size();  // x264 through the clip writer may keep 39 of 40
    EXPECT_GE(frames, 39u);
    EXPECT_EQ(nv.stats.frames_out, static_cast<int64_t>(frames));
    EXPECT_EQ(nv.stats.host_copies_per_frame, 0.0);
    EXPECT_EQ(sw.stats.host_copies_per_frame, 0.0) << "decoded into page-locked buffers: uploads need no staging";
    const auto a = read_video_frames(dir + "/nvdec.mkv"), b = read_video_frames(dir + "/sw.mkv");
    ASSERT_EQ(a.size(), b.size());
    ASSERT_EQ(a.size(), frames);
    // H.264 decoding is bit-exact; NVDEC's nv12 and the CPU's yuv420p hold the same samples.
    for (size_t i = 0; i < a.size(); ++i) {
        std::string where;
        EXPECT_EQ(frame_differences(a[i].get(), b[i].get(), false, &where), 0) << "frame " << i << " " << where;
    }
    // Identity through NVDEC: frames come back from the GPU untouched.
    const JobResult id = run_job(in, dir + "/id.mkv", HwDecode::Cuda, DeviceChoice::Cuda, "identity");
    const auto c = read_video_frames(dir + "/id.mkv"), d = read_video_frames(in);
    ASSERT_EQ(c.size(), d.size());
    for (size_t i = 0; i < c.size(); ++i) EXPECT_EQ(frame_differences(c[i].get(), d[i].get()), 0) << "frame " << i;
    (void)id;
}

// vfilter's own NVDEC decoder (--nvdec-decoder vfilter) gives the frames and timestamps of
// decoding on the CPU: a clip with B-frames (frames shown in another order than decoded), a size
// NVDEC decodes larger and crops (322x182 from 336x192), with frames sent ahead (a file) and one
// at a time (paced as live).
TEST(GpuDecode, VfiltersNvdecDecoderGivesTheFramesOfCpuDecoding) {
    std::string why;
    if (!gpu_or_skip(&why)) GTEST_SKIP() << "GPU test skipped: " << why;
    const std::string dir = temp_dir();
    const std::string in = h264_clip(dir, 322, 182, 40);
    const auto reference = read_video_frames(in);
    ASSERT_GE(reference.size(), 39u);
    for (const bool realtime : {false, true}) {
        SCOPED_TRACE(realtime ? "paced as live: one frame at a time" : "a file: frames sent ahead");
        const std::string out = dir + (realtime ? "/live.mkv" : "/file.mkv");
        const JobResult r = run_job(in, out, HwDecode::Cuda, DeviceChoice::Cuda, "identity", NvdecDecoderKind::Vfilter, realtime);
        EXPECT_EQ(r.stats.hw_decode, "cuda");
        EXPECT_EQ(r.stats.nvdec_decoder, "vfilter") << "vfilter's decoder did not run";
        const auto got = read_video_frames(out);
        ASSERT_EQ(got.size(), reference.size());
        for (size_t i = 0; i < got.size(); ++i) {
            std::string where;
            EXPECT_EQ(frame_differences(got[i].get(), reference[i].get(), false, &where), 0) << "frame " << i << " " << where;
        }
        // Each frame keeps its time from the first (in ms: the outputs' Matroska counts in ms).
        const AVRational in_tb = summarize(in).video_time_base;
        const StreamSummary have = summarize(out);
        ASSERT_EQ(have.video_pts.size(), reference.size());
        for (size_t i = 0; i < have.video_pts.size(); ++i)
            EXPECT_NEAR((have.video_pts[i] - have.video_pts[0]) * av_q2d(have.video_time_base),
                        (reference[i]->pts - reference[0]->pts) * av_q2d(in_tb), 0.0015)
                << "frame " << i;
    }
    // A filter on the decoded frames: the same output as FFmpeg's NVDEC gives.
    const JobResult own = run_job(in, dir + "/own.mkv", HwDecode::Cuda, DeviceChoice::Cuda, "sobel", NvdecDecoderKind::Vfilter);
    const JobResult ff = run_job(in, dir + "/ff.mkv", HwDecode::Cuda, DeviceChoice::Cuda, "sobel", NvdecDecoderKind::Ffmpeg);
    EXPECT_EQ(own.stats.nvdec_decoder, "vfilter");
    EXPECT_EQ(ff.stats.nvdec_decoder, "ffmpeg");
    const auto a = read_video_frames(dir + "/own.mkv"), b = read_video_frames(dir + "/ff.mkv");
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(frame_differences(a[i].get(), b[i].get()), 0) << "frame " << i;
}

// A copy of `in` (one video stream) whose packet `damaged` has its bytes after the first NAL
// unit's header replaced by random ones: a picture whose slice header and data make no sense,
// as a bit error on a camera's link leaves it. The container around it stays sound.
void write_with_a_damaged_packet(const std::string& in, const std::string& out, int damaged) {
    AVFormatContext* src = nullptr;
    ASSERT_EQ(avformat_open_input(&src, in.c_str(), nullptr, nullptr), 0);
    ASSERT_GE(avformat_find_stream_info(src, nullptr), 0);
    AVFormatContext* dst = nullptr;
    ASSERT_GE(avformat_alloc_output_context2(&dst, nullptr, nullptr, out.c_str()), 0);
    AVStream* st = avformat_new_stream(dst, nullptr);
    ASSERT_GE(avcodec_parameters_copy(st->codecpar, src->streams[0]->codecpar), 0);
    st->codecpar->codec_tag = 0;
    st->time_base = src->streams[0]->time_base;
    ASSERT_GE(avio_open(&dst->pb, out.c_str(), AVIO_FLAG_WRITE), 0);
    ASSERT_GE(avformat_write_header(dst, nullptr), 0);
    std::mt19937 rng(42);
    AVPacket* p = av_packet_alloc();
    for (int k = 0; av_read_frame(src, p) >= 0; ++k) {
        if (k == damaged) {
            ASSERT_EQ(av_packet_make_writable(p), 0);
            ASSERT_GT(p->size, 16);
            for (int i = 6; i < p->size; ++i) p->data[i] = static_cast<uint8_t>(rng());  // 4 bytes of length, the NAL header
        }
        av_packet_rescale_ts(p, src->streams[0]->time_base, st->time_base);
        p->stream_index = 0;
        ASSERT_GE(av_interleaved_write_frame(dst, p), 0);
    }
    av_packet_free(&p);
    av_write_trailer(dst);
    avio_closep(&dst->pb);
    avformat_free_context(dst);
    avformat_close_input(&src);
}

// A picture damaged in the middle of a file, decoded by NVDEC through each decoder: the run ends,
// the input is reported damaged (exit 5) as when the CPU decodes it, no frame goes missing but
// the damaged one, and from the next key frame on every frame equals the CPU's.
TEST(GpuDecode, DamagedPictureIsReportedAndTheFramesAfterTheNextKeyFrameAreExact) {
    std::string why;
    if (!gpu_or_skip(&why)) GTEST_SKIP() << "GPU test skipped: " << why;
    const std::string dir = temp_dir();
    ClipSpec clip;
    clip.path = dir + "/clean.mp4";
    clip.width = 322;
    clip.height = 182;
    clip.frames = 60;
    clip.video_codec = "libx264";
    clip.audio = false;
    clip.gop_size = 20;  // key frames at 0, 20 and 40
    write_clip(clip);
    const std::string in = dir + "/damaged.mp4";
    write_with_a_damaged_packet(clip.path, in, 27);  // between the second key frame and the third
    const JobResult cpu = run_job(in, dir + "/cpu.mkv", HwDecode::None, DeviceChoice::Cuda, "identity");
    ASSERT_TRUE(cpu.damaged) << "the CPU's decoder must see the damage, or this test checks nothing";
    const auto reference = read_video_frames(dir + "/cpu.mkv");
    const StreamSummary ref_times = summarize(dir + "/cpu.mkv");
    ASSERT_EQ(ref_times.video_pts.size(), reference.size());
    ASSERT_GE(reference.size(), 59u);
    for (const NvdecDecoderKind kind : {NvdecDecoderKind::Ffmpeg, NvdecDecoderKind::Vfilter}) {
        const std::string name = kind == NvdecDecoderKind::Vfilter ? "vfilter" : "ffmpeg";
        SCOPED_TRACE("--nvdec-decoder " + name);
        const std::string out = dir + "/" + name + ".mkv";
        const JobResult r = run_job(in, out, HwDecode::Cuda, DeviceChoice::Cuda, "identity", kind);
        EXPECT_EQ(r.stats.nvdec_decoder, name);
        EXPECT_TRUE(r.damaged) << "the damage went unreported (CPU: " << cpu.stats.damage << ")";
        EXPECT_FALSE(r.stats.damage.empty());
        const auto got = read_video_frames(out);
        const StreamSummary times = summarize(out);
        ASSERT_EQ(times.video_pts.size(), got.size());
        EXPECT_GE(got.size() + 1, reference.size()) << "frames other than the damaged one went missing";
        EXPECT_LE(got.size(), reference.size() + 1);
        // From the third key frame (the 41st frame) on: each frame equals the CPU's of the same time.
        const int64_t key_pts = ref_times.video_pts.at(40) - ref_times.video_pts.at(0);
        int compared = 0;
        for (size_t i = 0; i < got.size(); ++i) {
            const int64_t t = times.video_pts[i] - times.video_pts[0];
            if (t < key_pts) continue;
            const auto at = std::find(ref_times.video_pts.begin(), ref_times.video_pts.end(), t + ref_times.video_pts[0]);
            ASSERT_NE(at, ref_times.video_pts.end()) << "frame " << i << " at a time the CPU's output lacks";
            const size_t j = static_cast<size_t>(at - ref_times.video_pts.begin());
            std::string where;
            EXPECT_EQ(frame_differences(got[i].get(), reference[j].get(), false, &where), 0) << "frame " << i << " " << where;
            ++compared;
        }
        EXPECT_EQ(compared, static_cast<int>(reference.size()) - 40) << "the frames from the third key frame to the end";
    }
}

}  // namespace
}  // namespace vf
