// The `vfilter` element on GStreamer's CUDA memory (needs a GPU; skips without one): frames in
// CUDA buffers of the GPU's primary context (the context vfilter offers a pipeline) are filtered
// in place on the GPU, and what comes out equals the same element's output on system memory with
// the GPU byte for byte, every format it takes on CUDA memory (packed RGB too, filtered as its planes
// with alpha and x bytes passed through), odd sizes included. The buffers
// stay CUDA memory on the way out. (The system-memory element equals the command line, tested in
// element_test.cpp; the GPU rows against the CPU in the kernel tests.)
// On system memory the GPU keeps frames in flight: its buffers equal the CPU element's byte for
// byte with their timestamps, formats and odd sizes included, at the end of a stream shorter than
// the frames in flight too; videotestsrc writes into the pinned buffers the element proposes; a
// live pipeline's latency grows by the frames in flight. (Without a GPU: element_in_flight_test.cpp.)
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

#include "gst/cuda_memory.hpp"
#include "gst/gstvfilter.hpp"
#include "gst/page_locked_pool.hpp"
#include "gst_test_support.hpp"
#include "gst/video_frames.hpp"
#include "kernels/cuda_backend.hpp"
#include "media/host_memory.hpp"
#include "support/gst_element_run.hpp"

extern "C" {
#include <libavutil/imgutils.h>
}

namespace vf {
namespace {

// Where a buffer's planes lie: its video meta, else its CUDA memory's own layout (the pool pitches
// rows), else the default.
GstVideoInfo* layout_of(GstBuffer* buffer, const GstVideoInfo& info) {
    GstMemory* m = gst_buffer_peek_memory(buffer, 0);
    if (!gst_buffer_get_video_meta(buffer) && gst_is_cuda_memory(m)) return &GST_CUDA_MEMORY_CAST(m)->info;
    return const_cast<GstVideoInfo*>(&info);
}

std::string packed(GstBuffer* buffer, const GstVideoInfo& info) {
    GstVideoFrame frame;
    if (!gst_video_frame_map(&frame, layout_of(buffer, info), buffer, GST_MAP_READ)) return "";  // a download for CUDA memory
    AvFramePtr f = frame_over(frame);
    const AVPixelFormat format = static_cast<AVPixelFormat>(f->format);
    const int size = av_image_get_buffer_size(format, f->width, f->height, 1);
    std::string out(static_cast<size_t>(size), '\0');
    av_image_copy_to_buffer(reinterpret_cast<uint8_t*>(out.data()), size, f->data, f->linesize, format, f->width, f->height, 1);
    gst_video_frame_unmap(&frame);
    return out;
}

void fill_random(GstBuffer* buffer, const GstVideoInfo& info, uint32_t seed) {
    GstVideoFrame frame;
    ASSERT_TRUE(gst_video_frame_map(&frame, layout_of(buffer, info), buffer, GST_MAP_WRITE));  // uploaded at unmap
    test::fill_random(frame, seed);
    gst_video_frame_unmap(&frame);
}

struct Out {
    std::string bytes;
    GstClockTime pts;
};

// appsrc ! vfilter ! appsink with the given caps; the pipeline shares `cuda` when given. Every
// frame is pushed, then end of stream (on system memory the GPU keeps frames in flight), and
// everything out is taken.
std::vector<Out> run_element(GstCaps* caps, const GstVideoInfo& info, const std::vector<GstBuffer*>& frames, const std::string& props,
                             GstCudaContext* cuda, bool* stayed_on_gpu) {
    std::vector<Out> out;
    if (stayed_on_gpu) *stayed_on_gpu = true;
    const auto share_cuda = [cuda](GstElement* pipeline) {
        if (!cuda) return;
        GstContext* context = gst_context_new_cuda_context(cuda);
        gst_element_set_context(pipeline, context);
        gst_context_unref(context);
    };
    test::run_element(
        caps, frames, props,
        [&](GstBuffer* result) {
            if (stayed_on_gpu && !gst_is_cuda_memory(gst_buffer_peek_memory(result, 0))) *stayed_on_gpu = false;
            out.push_back({packed(result, info), GST_BUFFER_PTS(result)});
        },
        share_cuda);
    return out;
}

TEST(GstElementCuda, CudaMemoryGivesTheSystemMemoryElementsBytes) {
    std::string why;
    if (!gst_cuda_usable() || !cuda_device_available(&why)) GTEST_SKIP() << "no GPU: " << why;
    PrimaryCudaContext cuda(0);
    // The formats GStreamer 1.22's CUDA memory holds (the element offers these on it).
    const GstVideoFormat formats[] = {GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_YV12,      GST_VIDEO_FORMAT_NV12,
                                      GST_VIDEO_FORMAT_Y42B, GST_VIDEO_FORMAT_Y444,      GST_VIDEO_FORMAT_I420_10LE,
                                      GST_VIDEO_FORMAT_I422_10LE, GST_VIDEO_FORMAT_P010_10LE, GST_VIDEO_FORMAT_RGBA,
                                      GST_VIDEO_FORMAT_BGRx,      GST_VIDEO_FORMAT_BGRA,      GST_VIDEO_FORMAT_RGBx};
    uint32_t seed = 1;
    for (GstVideoFormat format : formats)
        for (const auto& [w, h] : {std::pair<int, int>{75, 41}, {75, 42}, {1920, 1080}})
            for (const char* filter : {"sobel", "gaussian=sigma=2,unsharp"}) {
                SCOPED_TRACE(std::string(gst_video_format_to_string(format)) + " " + std::to_string(w) + "x" + std::to_string(h) + " " + filter);
                const bool planar420 = format == GST_VIDEO_FORMAT_I420 || format == GST_VIDEO_FORMAT_YV12 || format == GST_VIDEO_FORMAT_I420_10LE;
                if (planar420 && h % 2) continue;  // not on CUDA memory (video_frames.hpp, element_cuda_caps)
                GstVideoInfo info;
                gst_video_info_set_format(&info, format, w, h);
                GstCaps* cuda_caps = gst_video_info_to_caps(&info);
                gst_caps_set_features(cuda_caps, 0, gst_caps_features_new(GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, nullptr));
                GstCaps* system_caps = gst_video_info_to_caps(&info);
                // The frames, in CUDA buffers of the primary context and in system memory.
                GstBufferPool* pool = gst_cuda_buffer_pool_new(cuda.get());
                GstStructure* config = gst_buffer_pool_get_config(pool);
                gst_buffer_pool_config_set_params(config, cuda_caps, GST_VIDEO_INFO_SIZE(&info), 0, 0);
                // A pool that adjusts the config (its pitch, its size) says FALSE once; the adjusted one is taken.
                if (!gst_buffer_pool_set_config(pool, config)) {
                    ASSERT_TRUE(gst_buffer_pool_set_config(pool, gst_buffer_pool_get_config(pool)));
                }
                ASSERT_TRUE(gst_buffer_pool_set_active(pool, TRUE));
                std::vector<GstBuffer*> on_gpu, in_memory;
                for (int n = 0; n < 3; ++n) {
                    GstBuffer* b = nullptr;
                    ASSERT_EQ(gst_buffer_pool_acquire_buffer(pool, &b, nullptr), GST_FLOW_OK);
                    fill_random(b, info, seed++);
                    GST_BUFFER_PTS(b) = n * GST_SECOND / 30;
                    on_gpu.push_back(b);
                    GstBuffer* m = gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&info), nullptr);
                    GstVideoFrame from, to;
                    ASSERT_TRUE(gst_video_frame_map(&from, layout_of(b, info), b, GST_MAP_READ));
                    ASSERT_TRUE(gst_video_frame_map(&to, &info, m, GST_MAP_WRITE));
                    gst_video_frame_copy(&to, &from);
                    gst_video_frame_unmap(&to);
                    gst_video_frame_unmap(&from);
                    GST_BUFFER_PTS(m) = GST_BUFFER_PTS(b);
                    in_memory.push_back(m);
                }
                const std::string props = std::string("filter=\"") + filter + "\"";
                const auto expected = run_element(system_caps, info, in_memory, "device=cuda " + props, nullptr, nullptr);
                bool stayed = false;
                const auto got = run_element(cuda_caps, info, on_gpu, props, cuda.get(), &stayed);
                ASSERT_EQ(expected.size(), 3u);
                ASSERT_EQ(got.size(), 3u);
                for (size_t i = 0; i < 3; ++i) EXPECT_TRUE(got[i].bytes == expected[i].bytes) << "frame " << i;
                EXPECT_TRUE(stayed) << "the buffers out are CUDA memory";
                for (GstBuffer* b : on_gpu) gst_buffer_unref(b);
                for (GstBuffer* b : in_memory) gst_buffer_unref(b);
                gst_buffer_pool_set_active(pool, FALSE);
                gst_object_unref(pool);
                gst_caps_unref(cuda_caps);
                gst_caps_unref(system_caps);
            }
}

// System memory with the GPU: frames in flight.

std::vector<GstBuffer*> system_frames(const GstVideoInfo& info, int count, uint32_t seed) {
    std::vector<GstBuffer*> frames;
    for (int n = 0; n < count; ++n) {
        GstBuffer* b = gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&info), nullptr);
        fill_random(b, info, seed * 64 + static_cast<uint32_t>(n));
        GST_BUFFER_PTS(b) = n * GST_SECOND / 30 + 3;
        frames.push_back(b);
    }
    return frames;
}

bool have_gpu(std::string* why) { return gst_cuda_usable() && cuda_device_available(why); }

// Within what the GPU's rows promise against the CPU (docs/architecture.md: the separable rows
// within 1 on at most 1 sample in 1000; unsharp over them may double that step): the largest
// difference and the share of samples that differ. Byte for byte for integer sums (sobel).
// `wide`: samples of two bytes, little-endian (the 10-bit formats).
void expect_close(const std::string& got, const std::string& expected, bool wide, int most, double share, size_t frame) {
    ASSERT_EQ(got.size(), expected.size()) << "frame " << frame;
    const auto sample = [wide](const std::string& b, size_t i) {
        const auto byte = [&b](size_t k) { return static_cast<int>(static_cast<uint8_t>(b[k])); };
        return wide ? byte(2 * i) | byte(2 * i + 1) << 8 : byte(i);
    };
    const size_t samples = wide ? got.size() / 2 : got.size();
    int largest = 0;
    size_t differing = 0;
    for (size_t i = 0; i < samples; ++i) {
        const int d = std::abs(sample(got, i) - sample(expected, i));
        largest = std::max(largest, d);
        differing += d != 0;
    }
    EXPECT_LE(largest, most) << "frame " << frame;
    EXPECT_LE(static_cast<double>(differing), share * static_cast<double>(samples)) << "frame " << frame;
}

TEST(GstElementCuda, SystemMemoryInFlightEqualsOneAtATimeAndTheCpuElement) {
    std::string why;
    if (!have_gpu(&why)) GTEST_SKIP() << "no GPU: " << why;
    const GstVideoFormat formats[] = {GST_VIDEO_FORMAT_I420,      GST_VIDEO_FORMAT_YV12,      GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_Y42B,
                                      GST_VIDEO_FORMAT_Y444,      GST_VIDEO_FORMAT_GRAY8,     GST_VIDEO_FORMAT_I420_10LE,
                                      GST_VIDEO_FORMAT_Y444_10LE, GST_VIDEO_FORMAT_P010_10LE, GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRx,
                                      GST_VIDEO_FORMAT_RGB};
    uint32_t seed = 100;
    for (GstVideoFormat format : formats)
        for (const auto& [w, h] : {std::pair<int, int>{75, 41}, {1920, 1080}})
            for (const char* filter : {"sobel", "gaussian=sigma=2,unsharp"}) {
                GstVideoInfo info;
                gst_video_info_set_format(&info, format, w, h);
                GstCaps* caps = gst_video_info_to_caps(&info);
                // More buffers than in flight, fewer (all of them at the end of stream), and one
                // frame at a time.
                for (const auto& [in_flight, count] : {std::pair<int, int>{6, 9}, {6, 5}, {1, 3}}) {
                    SCOPED_TRACE(std::string(gst_video_format_to_string(format)) + " " + std::to_string(w) + "x" + std::to_string(h) + " " +
                                 filter + ", " + std::to_string(count) + " buffers, " + std::to_string(in_flight) + " in flight");
                    const std::vector<GstBuffer*> frames = system_frames(info, count, seed++);
                    const std::string props = std::string("filter=\"") + filter + "\"";
                    const auto expected = run_element(caps, info, frames, "device=cpu " + props, nullptr, nullptr);
                    const auto got =
                        run_element(caps, info, frames, "device=cuda frames-in-flight=" + std::to_string(in_flight) + " " + props, nullptr, nullptr);
                    // The same GPU, one frame at a time: frames in flight change no byte.
                    const auto alone = run_element(caps, info, frames, "device=cuda frames-in-flight=1 " + props, nullptr, nullptr);
                    ASSERT_EQ(expected.size(), frames.size());
                    ASSERT_EQ(got.size(), frames.size());
                    ASSERT_EQ(alone.size(), frames.size());
                    const bool exact = std::string(filter) == "sobel";
                    for (size_t i = 0; i < frames.size(); ++i) {
                        EXPECT_TRUE(got[i].bytes == alone[i].bytes) << "frame " << i;
                        if (exact) EXPECT_TRUE(got[i].bytes == expected[i].bytes) << "frame " << i;
                        else expect_close(got[i].bytes, expected[i].bytes, GST_VIDEO_INFO_COMP_DEPTH(&info, 0) > 8, 2, 1.0 / 500, i);
                        EXPECT_EQ(got[i].pts, GST_BUFFER_PTS(frames[i])) << "frame " << i;
                    }
                    for (GstBuffer* b : frames) gst_buffer_unref(b);
                }
                gst_caps_unref(caps);
            }
}

struct Arrivals {
    std::atomic<int> buffers{0}, pinned{0};
};

// Counts the buffers whose memory is the element's page-locked allocator's and pinned for CUDA.
GstPadProbeReturn count_pinned(GstPad*, GstPadProbeInfo* info, gpointer data) {
    auto* a = static_cast<Arrivals*>(data);
    GstBuffer* b = GST_PAD_PROBE_INFO_BUFFER(info);
    ++a->buffers;
    GstMemory* m = gst_buffer_peek_memory(b, 0);
    GstMapInfo map;
    if (element::is_page_locked_memory(m) && gst_memory_map(m, &map, GST_MAP_READ)) {
        if (is_pinned(map.data)) ++a->pinned;
        gst_memory_unmap(m, &map);
    }
    return GST_PAD_PROBE_OK;
}

std::vector<Out> from_videotestsrc(const std::string& props, const GstVideoInfo& info, Arrivals* arrivals) {
    std::vector<Out> out;
    test::run_source_through_element("videotestsrc num-buffers=20 pattern=zone-plate ! video/x-raw,format=NV12,width=333,height=197", props,
                                     count_pinned, arrivals, [&](GstBuffer* b) { out.push_back({packed(b, info), GST_BUFFER_PTS(b)}); });
    return out;
}

TEST(GstElementCuda, VideotestsrcWritesIntoTheProposedPinnedBuffers) {
    std::string why;
    if (!have_gpu(&why)) GTEST_SKIP() << "no GPU: " << why;
    GstVideoInfo info;
    gst_video_info_set_format(&info, GST_VIDEO_FORMAT_NV12, 333, 197);
    Arrivals gpu, cpu;
    const auto got = from_videotestsrc("device=cuda filter=sobel", info, &gpu);
    const auto expected = from_videotestsrc("device=cpu filter=sobel", info, &cpu);
    EXPECT_EQ(gpu.buffers.load(), 20);
    EXPECT_EQ(gpu.pinned.load(), 20) << "every buffer was page-locked memory of the element's pool";
    EXPECT_EQ(cpu.pinned.load(), 0) << "the CPU element proposes none";
    ASSERT_EQ(got.size(), 20u);
    ASSERT_EQ(expected.size(), 20u);
    for (size_t i = 0; i < got.size(); ++i) EXPECT_TRUE(got[i].bytes == expected[i].bytes && got[i].pts == expected[i].pts) << i;
}

// A live source into a synced sink: the pipeline's latency grows by frames-in-flight frame
// durations with the GPU element, by nothing with the CPU element.
GstClockTime live_latency(const std::string& element) { return test::live_latency(element, 320, 240); }

TEST(GstElementCuda, TheLatencyOfALivePipelineCountsTheFramesInFlight) {
    std::string why;
    if (!have_gpu(&why)) GTEST_SKIP() << "no GPU: " << why;
    const GstClockTime source = live_latency("identity");
    ASSERT_TRUE(GST_CLOCK_TIME_IS_VALID(source));
    EXPECT_EQ(live_latency("vfilter device=cuda filter=sobel frames-in-flight=4"), source + 4 * GST_SECOND / 25);
    EXPECT_EQ(live_latency("vfilter device=cpu filter=sobel"), source);
}

}  // namespace
}  // namespace vf
