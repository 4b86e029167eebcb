// End to end, in process: clips written with libavcodec go through Job (what the command line
// runs) and the output is decoded and compared with the reference, frame by frame.
#include <gtest/gtest.h>

#include <cstring>
#include <thread>

#include <fstream>
#include <nlohmann/json.hpp>

#include <random>

#include <malloc.h>

#include "config/filter_registry.hpp"
#include "encode/output_file.hpp"
#include "pipeline/filter_stage.hpp"
#include "app/run/job.hpp"
#include "support/clip_writer.hpp"
#include "support/expected_output.hpp"
#include "support/filter_churn.hpp"
#include "support/http_client.hpp"
#include "support/recording_check.hpp"
#include "support/run_command.hpp"

namespace vf {
namespace {

using namespace test;

RunOptions lossless(const std::string& in, const std::string& out, const std::string& filter) {
    RunOptions o;
    o.input.url = in;
    o.output.path = out;
    o.filter.chain = filter;
    o.output.codec = out.size() > 4 && out.substr(out.size() - 4) == ".nut" ? "rawvideo" : "ffv1";
    o.filter.threads = 3;
    return o;
}

// A small lossless clip of `frames` frames at 25 fps, read with --realtime (paced as live).
RunOptions paced_lossless_run(const std::string& dir, int frames, const std::string& filter) {
    ClipSpec clip;
    clip.path = dir + "/in.mkv";
    clip.width = 96;
    clip.height = 64;
    clip.frames = frames;
    write_clip(clip);
    RunOptions o = lossless(clip.path, dir + "/out.mkv", filter);
    o.input.realtime = true;
    return o;
}

struct Case {
    const char* name;
    AVPixelFormat format;
    const char* container;
    const char* codec;
    const char* filter;
};

class LosslessEndToEnd : public ::testing::TestWithParam<Case> {};

TEST_P(LosslessEndToEnd, OutputFramesEqualTheReferenceAndStreamsSurvive) {
    const Case c = GetParam();
    const std::string dir = temp_dir();
    ClipSpec clip;
    clip.path = dir + "/in." + c.container;
    clip.width = 67;  // odd sizes: chroma rounds up
    clip.height = 45;
    clip.format = c.format;
    clip.frames = 12;
    clip.video_codec = c.codec;
    clip.seed = 42;
    const auto input_frames = write_clip(clip);
    const std::string out = dir + "/out." + c.container;

    Job job(lossless(clip.path, out, c.filter));
    const JobResult r = job.run();
    EXPECT_FALSE(r.damaged) << r.stats.damage;
    EXPECT_EQ(r.stats.frames_in, 12);
    EXPECT_EQ(r.stats.frames_out, 12);

    const auto output_frames = read_video_frames(out);
    ASSERT_EQ(output_frames.size(), input_frames.size());
    for (size_t i = 0; i < input_frames.size(); ++i) {
        AvFramePtr expected = reference_filter(input_frames[i].get(), c.filter);
        std::string where;
        EXPECT_EQ(frame_differences(expected.get(), output_frames[i].get(), false, &where), 0)
            << c.name << " frame " << i << " " << where;
    }
    const StreamSummary in_s = summarize(clip.path), out_s = summarize(out);
    EXPECT_EQ(out_s.width, 67);
    EXPECT_EQ(out_s.height, 45);
    EXPECT_EQ(out_s.audio_streams, 1);
    EXPECT_EQ(out_s.audio_packets, in_s.audio_packets);
    ASSERT_EQ(out_s.video_pts.size(), in_s.video_pts.size());
    for (size_t i = 0; i < in_s.video_pts.size(); ++i)
        EXPECT_EQ(av_rescale_q(out_s.video_pts[i], out_s.video_time_base, {1, 1000}),
                  av_rescale_q(in_s.video_pts[i], in_s.video_time_base, {1, 1000}))
            << "frame " << i;
    EXPECT_FALSE(file_exists(out + ".partial"));
}

INSTANTIATE_TEST_SUITE_P(
    Formats, LosslessEndToEnd,
    ::testing::Values(Case{"yuv420p_chain", AV_PIX_FMT_YUV420P, "mkv", "ffv1", "gaussian=sigma=1.5,sobel=planes=all"},
                      Case{"yuv444p_conv", AV_PIX_FMT_YUV444P, "mkv", "ffv1",
                           "convolution=m=1 -2 3 -4 5 -6 7 -8 9 -10 11 -12 13 -14 15 -16 17 -18 19 -20 21 -22 23 -24 25"},
                      Case{"yuv422p10_box", AV_PIX_FMT_YUV422P10LE, "mkv", "ffv1", "box=radius=3:border=replicate"},
                      Case{"gray10_laplacian", AV_PIX_FMT_GRAY10LE, "mkv", "ffv1", "laplacian=border=zero"},
                      Case{"nv12_sharpen", AV_PIX_FMT_NV12, "nut", "rawvideo", "sharpen=planes=all,emboss"}),
    [](const ::testing::TestParamInfo<Case>& i) { return std::string(i.param.name); });

// The metrics endpoint is read while the pipeline runs (ThreadSanitizer runs this too), and the
// A stream on the CPU whose filter is changed 200 times through distinct filters keeps host memory
// where a stream with a few changes left it: a filter change replaces the chain and its scratch,
// and keeps nothing per change. (Under the sanitizers, freed memory is held back on purpose.)
TEST(EndToEnd, FilterChurnKeepsHostMemoryBounded) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    GTEST_SKIP() << "resident memory is not comparable under the sanitizers' allocators";
#endif
    const std::string dir = temp_dir();
    const std::string clip = write_churn_clip(dir, 200);
    const RunOptions o = churn_options(clip, DeviceChoice::Cpu);
    {
        Job warm(o);
        EXPECT_EQ(run_filter_churn(warm, churn_filters(20, 1)), 20);
    }
    malloc_trim(0);
    const long before = resident_bytes();
    {
        Job job(o);
        EXPECT_EQ(run_filter_churn(job, churn_filters(200, 2)), 200);
    }
    malloc_trim(0);
    const double grown_mib = static_cast<double>(resident_bytes() - before) / (1 << 20);
    EXPECT_LE(grown_mib, 16.0) << "resident memory grew by " << grown_mib << " MiB over 200 filter changes";
}

// scraped counters move.
TEST(EndToEnd, MetricsAreServedWhileRunning) {
    const std::string dir = temp_dir();
    RunOptions o = paced_lossless_run(dir, 40, "sobel");  // 40 frames at 25 fps: 1.6 s to scrape in
    JobReports reports;
    reports.metrics.port = 0;
    Job job(o, reports);
    ASSERT_GT(job.metrics_port(), 0);
    std::vector<std::string> scrapes;
    std::thread scraper([&] {
        for (int i = 0; i < 8; ++i) {
            std::this_thread::sleep_for(std::chrono::milliseconds(150));
            scrapes.push_back(http_get(job.metrics_port(), "/metrics"));
        }
    });
    const JobResult r = job.run();
    scraper.join();
    EXPECT_EQ(r.stats.frames_out, 40);
    EXPECT_TRUE(r.stats.live);
    ASSERT_FALSE(scrapes.empty());
    EXPECT_NE(scrapes.back().find("vfilter_frames_out_total"), std::string::npos) << scrapes.back();
    EXPECT_NE(scrapes.front(), scrapes.back()) << "the counters move while frames flow";
}

// abandon() (the second Ctrl-C) from another thread mid-run: frames in flight are discarded and
// the output is finished with what was written.
TEST(EndToEnd, AbandonFinishesTheOutputAtOnce) {
    const std::string dir = temp_dir();
    const RunOptions o = paced_lossless_run(dir, 100, "identity");  // 4 s of input; abandoned after 0.6 s
    Job job(o);
    std::thread stopper([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(600));
        job.abandon();
    });
    const auto start = std::chrono::steady_clock::now();
    const JobResult r = job.run();
    stopper.join();
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 2.5);
    EXPECT_TRUE(r.abandoned);
    EXPECT_GT(r.stats.frames_out, 0);
    EXPECT_LT(r.stats.frames_out, 100);
    EXPECT_EQ(read_video_frames(o.output.path).size(), static_cast<size_t>(r.stats.frames_out)) << "finished and complete";
}

// Stopped before the first frame (a Ctrl-C while the input was still opening): a container
// without video cannot even be probed, so no output is kept, whether it was being written to
// OUT.partial or in place (a fragmented recording).
TEST(EndToEnd, InterruptedBeforeTheFirstFrameKeepsNoOutput) {
    const std::string dir = temp_dir();
    RunOptions o = paced_lossless_run(dir, 40, "sobel");
    for (const bool fragmented : {false, true}) {
        o.output.path = dir + (fragmented ? "/rec.mp4" : "/out.mkv");
        o.output.codec = fragmented ? "libx264" : "ffv1";
        o.output.fragmented = fragmented ? FragmentedMode::Yes : FragmentedMode::No;
        Job job(o);
        job.interrupt();
        const JobResult r = job.run();
        EXPECT_TRUE(r.interrupted);
        EXPECT_EQ(r.stats.frames_out, 0);
        EXPECT_FALSE(file_exists(o.output.path)) << o.output.path;
        EXPECT_FALSE(file_exists(o.output.path + ".partial")) << o.output.path;
        EXPECT_NE(r.stats.output.find("not kept"), std::string::npos) << r.stats.output;
    }
}

TEST(EndToEnd, DefaultH264OutputKeepsAudioTimestampsAndFrameCount) {
    const std::string dir = temp_dir();
    ClipSpec clip;
    clip.path = dir + "/in.mkv";
    clip.width = 160;
    clip.height = 90;
    clip.frames = 30;
    clip.video_codec = "mpeg4";
    write_clip(clip);
    RunOptions o;
    o.input.url = clip.path;
    o.output.path = dir + "/out.mp4";
    o.filter.chain = "sobel";
    JobReports reports;
    reports.stats_json = dir + "/stats.json";
    Job job(o, reports);
    const JobResult r = job.run();
    EXPECT_EQ(r.stats.frames_out, 30);
    const StreamSummary s = summarize(o.output.path);
    EXPECT_EQ(s.video_pts.size(), 30u);
    EXPECT_EQ(s.audio_streams, 1);
    EXPECT_GT(s.audio_packets, 0);
    EXPECT_EQ(read_video_frames(o.output.path).size(), 30u);
    // The input's timestamps (25 fps, starting where its muxer put the first frame) survive.
    const StreamSummary in = summarize(clip.path);
    ASSERT_EQ(in.video_pts.size(), 30u);
    for (size_t i = 0; i < s.video_pts.size(); ++i) {
        EXPECT_EQ(av_rescale_q(s.video_pts[i], s.video_time_base, {1, 1000}),
                  av_rescale_q(in.video_pts[i], in.video_time_base, {1, 1000}));
        if (i) {
            EXPECT_EQ(av_rescale_q(s.video_pts[i] - s.video_pts[i - 1], s.video_time_base, {1, 1000}), 40);
        }
    }
    std::ifstream f(reports.stats_json);
    const auto j = nlohmann::json::parse(f);
    EXPECT_EQ(j["frames_out"], 30);
    EXPECT_GT(j["sustained_fps"].get<double>(), 0);
    // decode, filter, encode; on the GPU also its upload, kernels and download steps.
    EXPECT_EQ(j["stages"].size(), j["device"] == "cuda" ? 6u : 3u);
    EXPECT_FALSE(j["bottleneck"].get<std::string>().empty());
}

// p010 (NVDEC's 10-bit output) has no lossless container tag to test through files, so the
// filter stage is driven directly: interleaved, MSB-aligned chroma through a chain.
TEST(EndToEnd, FilterStageHandlesP010Chains) {
    const char* chain = "gaussian=sigma=1,sobel=planes=all";
    FilterStage stage(build_chain(chain), 3);
    std::mt19937 rng(5);
    for (int i = 0; i < 3; ++i) {
        AvFramePtr in = make_frame();
        in->width = 71;
        in->height = 39;
        in->format = AV_PIX_FMT_P010LE;
        ASSERT_GE(av_frame_get_buffer(in.get(), 0), 0);
        for (const PlaneView& v : channel_views(in.get())) {
            std::uniform_int_distribution<int> d(0, v.peak());
            for (int y = 0; y < v.height; ++y)
                for (int x = 0; x < v.width; ++x) v.write(x, y, d(rng));
        }
        AvFramePtr expected = reference_filter(in.get(), chain);
        AvFramePtr out = stage.process(std::move(in));
        std::string where;
        EXPECT_EQ(frame_differences(expected.get(), out.get(), false, &where), 0) << where;
        EXPECT_EQ(out->format, AV_PIX_FMT_P010LE);
        // the low 6 bits stay zero, as p010 requires
        const auto v = channel_views(out.get());
        for (int x = 0; x < v[0].width; ++x) EXPECT_EQ(reinterpret_cast<const uint16_t*>(v[0].data)[x] & 0x3F, 0);
    }
}

TEST(EndToEnd, SyntheticSourceNeedsNoInput) {
    const std::string dir = temp_dir();
    RunOptions o;
    o.output.path = dir + "/synthetic.mkv";
    o.filter.chain = "gaussian=sigma=2";
    o.output.codec = "ffv1";
    o.pipeline.max_frames = 5;
    Job job(o);
    EXPECT_EQ(job.run().stats.frames_out, 5);
    const StreamSummary s = summarize(o.output.path);
    EXPECT_EQ(s.width, 1280);
    EXPECT_EQ(s.height, 720);
    EXPECT_EQ(s.video_pts.size(), 5u);
}

TEST(EndToEnd, TruncatedInputIsReportedAndWhatDecodedIsKept) {
    const std::string dir = temp_dir();
    ClipSpec clip;
    clip.path = dir + "/in.mkv";
    clip.width = 96;
    clip.height = 64;
    clip.frames = 50;
    write_clip(clip);
    std::ifstream in(clip.path, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string cut = dir + "/cut.mkv";
    std::ofstream(cut, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size() / 2));
    Job job(lossless(cut, dir + "/out.mkv", "sobel"));
    const JobResult r = job.run();
    EXPECT_TRUE(r.damaged);
    EXPECT_NE(r.stats.damage.find("truncated"), std::string::npos) << r.stats.damage;
    EXPECT_GT(r.stats.frames_out, 10);
    EXPECT_LT(r.stats.frames_out, 40);
    EXPECT_EQ(read_video_frames(dir + "/out.mkv").size(), static_cast<size_t>(r.stats.frames_out));
}

// 8-bit 4:2:0 frames at 25 fps, stamped in frames.
VideoInfo yuv420_at_25(int width, int height) {
    VideoInfo v;
    v.width = width;
    v.height = height;
    v.format = AV_PIX_FMT_YUV420P;
    v.time_base = {1, 25};
    v.frame_rate = {25, 1};
    return v;
}

TEST(EndToEnd, UnfinishedOutputIsRemoved) {
    const std::string dir = temp_dir();
    const VideoInfo v = yuv420_at_25(32, 32);
    OutputOptions o;
    o.path = dir + "/never.mkv";
    o.codec = "ffv1";
    {
        OutputFile out(o, v, {}, nullptr);
        AvFramePtr f = make_frame();
        f->width = 32;
        f->height = 32;
        f->format = AV_PIX_FMT_YUV420P;
        av_frame_get_buffer(f.get(), 0);
        f->pts = 0;
        out.write_frame(f.get(), Clock::now());
        EXPECT_TRUE(file_exists(o.path + ".partial"));
        EXPECT_FALSE(file_exists(o.path));
    }  // destroyed without finish(): a failure mid-run
    EXPECT_FALSE(file_exists(o.path + ".partial"));
    EXPECT_FALSE(file_exists(o.path));
}

// A segmented recording stopped before its first frame (serve stopping while a camera still
// connects) or failing mid-run: no segment is left that holds no frame or ends inside one. The
// segment muxer opens its first segment with the header, before any frame, and each later one
// when the keyframe that starts it is written, with that keyframe's fragment still in memory.
TEST(EndToEnd, SegmentsLeftBehindAllPlay) {
    struct Case {
        int frames;  // at 25 fps, in segments of 2 s and fragments of 1 s
        bool finished, low_latency;
    };
    // 60 frames: one whole segment and a second begun. 51 with low latency (no look-ahead): the
    // second segment is opened by frame 50, its header written and that frame still in memory,
    // when the output is released unfinished.
    for (const Case c : {Case{0, true, false}, Case{0, false, false}, Case{1, true, false}, Case{60, true, false},
                         Case{60, false, false}, Case{51, false, true}}) {
        const std::string dir = temp_dir();
        const VideoInfo v = yuv420_at_25(34, 18);
        OutputOptions o;
        o.path = dir + "/seg-%03d.mp4";
        o.segment_s = 2;
        o.fragmented = true;
        o.live = true;
        o.low_latency = c.low_latency;
        {
            OutputFile out(o, v, {}, nullptr);
            EXPECT_TRUE(file_exists(dir + "/seg-000.mp4"));  // opened with the header
            for (int i = 0; i < c.frames; ++i) {
                AvFramePtr f = make_frame();
                f->width = v.width;
                f->height = v.height;
                f->format = v.format;
                ASSERT_EQ(av_frame_get_buffer(f.get(), 0), 0);
                ASSERT_EQ(av_frame_make_writable(f.get()), 0);
                for (int p = 0; p < 3; ++p) std::memset(f->data[p], (i * 7 + p * 50) & 255, size_t(f->linesize[p]) * (p ? 9 : 18));
                f->pts = i;
                out.write_frame(f.get(), Clock::now());
            }
            if (c.finished) out.finish();
        }  // not finished: destroyed as on a failure mid-run
        const std::string what = std::to_string(c.frames) + " frame(s), " + (c.finished ? "finished" : "not finished") +
                                 (c.low_latency ? ", low latency" : "");
        int played = 0;
        for (const auto& e : std::filesystem::directory_iterator(dir)) {
            const RecordingCheck r = check_recording(e.path().string());
            EXPECT_TRUE(r.clean) << what << ": " << e.path() << ": " << r.errors;
            played += std::max(r.frames, 0);
        }
        if (c.frames == 0) {
            EXPECT_TRUE(std::filesystem::is_empty(dir)) << what;
        }
        if (c.finished) {
            EXPECT_EQ(played, c.frames) << what;
        } else if (c.low_latency) {
            EXPECT_EQ(played, 50) << what << ": the first segment, whole, and the second (a header alone) removed";
        } else if (c.frames > 0) {
            EXPECT_GT(played, 0) << what << ": what was whole is kept";
        }
    }
}

}  // namespace
}  // namespace vf
