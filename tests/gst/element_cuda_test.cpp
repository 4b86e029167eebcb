// The `vfilter` element on GStreamer's CUDA memory (needs a GPU; skips without one): frames in
// CUDA buffers of the GPU's primary context (the context vfilter offers a pipeline) are filtered
// in place on the GPU, and what comes out equals the same element's output on system memory with
// the GPU byte for byte, every format it takes on CUDA memory (packed RGB too, filtered as its planes
// with alpha and x bytes passed through), odd sizes included. The buffers
// stay CUDA memory on the way out. (The system-memory element equals the command line, tested in
// element_test.cpp; the GPU rows against the CPU in the kernel tests.)
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <memory>

#include "gst/cuda_memory.hpp"
#include "gst/gstvfilter.hpp"
#include "gst_test_support.hpp"
#include "gst/video_frames.hpp"
#include "kernels/cuda_backend.hpp"

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

// appsrc ! vfilter ! appsink with the given caps; the pipeline shares `cuda` when given.
std::vector<std::string> run_element(GstCaps* caps, const GstVideoInfo& info, const std::vector<GstBuffer*>& frames, const std::string& props,
                                     GstCudaContext* cuda, bool* stayed_on_gpu) {
    const std::string text = "appsrc name=src format=time ! vfilter " + props + " ! appsink name=sink sync=false";
    GstElement* pipeline = gst_parse_launch(text.c_str(), nullptr);
    if (cuda) {
        GstContext* context = gst_context_new_cuda_context(cuda);
        gst_element_set_context(pipeline, context);
        gst_context_unref(context);
    }
    GstElement* src = gst_bin_get_by_name(GST_BIN(pipeline), "src");
    GstElement* sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
    gst_app_src_set_caps(GST_APP_SRC(src), caps);
    gst_element_set_state(pipeline, GST_STATE_PLAYING);
    std::vector<std::string> out;
    if (stayed_on_gpu) *stayed_on_gpu = true;
    for (GstBuffer* b : frames) {
        gst_app_src_push_buffer(GST_APP_SRC(src), gst_buffer_copy(b));  // a buffer of its own: filtered in place
        GstSample* sample = gst_app_sink_try_pull_sample(GST_APP_SINK(sink), 20 * GST_SECOND);
        if (!sample) break;
        GstBuffer* result = gst_sample_get_buffer(sample);
        if (stayed_on_gpu && !gst_is_cuda_memory(gst_buffer_peek_memory(result, 0))) *stayed_on_gpu = false;
        out.push_back(packed(result, info));
        gst_sample_unref(sample);
    }
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(src);
    gst_object_unref(sink);
    gst_object_unref(pipeline);
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
                for (size_t i = 0; i < 3; ++i) EXPECT_TRUE(got[i] == expected[i]) << "frame " << i;
                EXPECT_TRUE(stayed) << "the buffers out are CUDA memory";
                for (GstBuffer* b : on_gpu) gst_buffer_unref(b);
                for (GstBuffer* b : in_memory) gst_buffer_unref(b);
                gst_buffer_pool_set_active(pool, FALSE);
                gst_object_unref(pool);
                gst_caps_unref(cuda_caps);
                gst_caps_unref(system_caps);
            }
}

}  // namespace
}  // namespace vf
