// vfilter_gst_bench: frames per second of the `vfilter` element at 1080p and 4K (I420), on
// GStreamer's CUDA memory (in the GPU's primary context), on system memory with the GPU (in the
// page-locked buffers the element proposes, as a decoder that asks takes them, and in ordinary
// pageable buffers), and on system memory with the CPU. Buffers come from a pool (as from a
// decoder), pass appsrc ! vfilter ! fakesink, and the time runs from the first push to end of
// stream.
//   vfilter_gst_bench [FRAMES] [FILTER]    (default 600 frames, sobel)
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#ifdef VF_GST_CUDA
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>

#include "gst/cuda_memory.hpp"
#else
typedef struct _GstCudaContext GstCudaContext;  // system memory only in a build without CUDA
#endif

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>

#include "gst/gstvfilter.hpp"

namespace {

struct Mode {
    const char* name;
    bool cuda_memory;
    const char* device;
    bool proposed_pool;  // the pool the element proposes in the allocation query, as a decoder takes it
};

// The pool the element proposes for `caps` (asked through appsrc's pad, as a decoder asks), set up
// with room for what the element holds and what waits in appsrc; nullptr where it proposes none.
GstBufferPool* proposed_pool(GstElement* src, GstCaps* caps, const GstVideoInfo& info) {
    GstPad* pad = gst_element_get_static_pad(src, "src");
    GstQuery* query = gst_query_new_allocation(caps, TRUE);
    GstBufferPool* pool = nullptr;
    guint min = 0;
    if (gst_pad_peer_query(pad, query) && gst_query_get_n_allocation_pools(query) > 0)
        gst_query_parse_nth_allocation_pool(query, 0, &pool, nullptr, &min, nullptr);
    gst_query_unref(query);
    gst_object_unref(pad);
    if (!pool) return nullptr;
    GstStructure* config = gst_buffer_pool_get_config(pool);
    gst_buffer_pool_config_set_params(config, caps, GST_VIDEO_INFO_SIZE(&info), min + 4, min + 4);
    if (!gst_buffer_pool_set_config(pool, config) || !gst_buffer_pool_set_active(pool, TRUE)) {
        gst_object_unref(pool);
        return nullptr;
    }
    return pool;
}

double frames_per_second(const GstVideoInfo& info, const Mode& mode, int frames, const std::string& filter, GstCudaContext* cuda) {
    GstCaps* caps = gst_video_info_to_caps(&info);
    GstBufferPool* pool = nullptr;
#ifdef VF_GST_CUDA
    if (mode.cuda_memory) {
        gst_caps_set_features(caps, 0, gst_caps_features_new(GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, nullptr));
        pool = gst_cuda_buffer_pool_new(cuda);
    }
#else
    (void)cuda;
#endif
    if (!pool) pool = gst_video_buffer_pool_new();
    GstStructure* config = gst_buffer_pool_get_config(pool);
    gst_buffer_pool_config_set_params(config, caps, GST_VIDEO_INFO_SIZE(&info), 8, 8);
    // A pool that adjusts the config (CUDA's pitch) says FALSE once; the adjusted one is taken.
    if (!gst_buffer_pool_set_config(pool, config) && !gst_buffer_pool_set_config(pool, gst_buffer_pool_get_config(pool))) return -1;
    if (!gst_buffer_pool_set_active(pool, TRUE)) return -1;

    const std::string text = "appsrc name=src format=time block=true max-buffers=4 ! vfilter device=" + std::string(mode.device) +
                             " filter=\"" + filter + "\" ! fakesink sync=false";
    GstElement* pipeline = gst_parse_launch(text.c_str(), nullptr);
#ifdef VF_GST_CUDA
    if (cuda) {
        GstContext* context = gst_context_new_cuda_context(cuda);
        gst_element_set_context(pipeline, context);
        gst_context_unref(context);
    }
#endif
    GstElement* src = gst_bin_get_by_name(GST_BIN(pipeline), "src");
    gst_app_src_set_caps(GST_APP_SRC(src), caps);
    gst_element_set_state(pipeline, GST_STATE_PLAYING);
    auto push = [&](int n) {
        GstBuffer* b = nullptr;
        if (gst_buffer_pool_acquire_buffer(pool, &b, nullptr) != GST_FLOW_OK) return;
        GST_BUFFER_PTS(b) = n * GST_SECOND / 30;
        gst_app_src_push_buffer(GST_APP_SRC(src), b);
    };
    for (int n = 0; n < 10; ++n) push(n);  // warm-up: the engine and its prepared chain are made
    if (mode.proposed_pool) {
        GstBufferPool* offered = proposed_pool(src, caps, info);
        if (!offered) std::fprintf(stderr, "%s: the element proposed no pool; its own buffers are used\n", mode.name);
        if (offered) std::swap(pool, offered);
        if (offered) {
            gst_buffer_pool_set_active(offered, FALSE);
            gst_object_unref(offered);
        }
    }
    const auto start = std::chrono::steady_clock::now();
    for (int n = 10; n < 10 + frames; ++n) push(n);
    gst_app_src_end_of_stream(GST_APP_SRC(src));
    GstBus* bus = gst_element_get_bus(pipeline);
    GstMessage* m = gst_bus_timed_pop_filtered(bus, GST_CLOCK_TIME_NONE, static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const bool ok = GST_MESSAGE_TYPE(m) == GST_MESSAGE_EOS;
    gst_message_unref(m);
    gst_object_unref(bus);
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(src);
    gst_object_unref(pipeline);
    gst_buffer_pool_set_active(pool, FALSE);
    gst_object_unref(pool);
    gst_caps_unref(caps);
    return ok ? frames / seconds : -1;
}

}  // namespace

int main(int argc, char** argv) {
    gst_init(&argc, &argv);
    gst_plugin_register_static(GST_VERSION_MAJOR, GST_VERSION_MINOR, "vfilter", "vfilter's filters", gst_vfilter_register, "0.1.0", "unknown",
                               "vfilter", "vfilter", "vfilter_gst_bench");
    const int frames = argc > 1 ? std::atoi(argv[1]) : 600;
    const std::string filter = argc > 2 ? argv[2] : "sobel";
    GstCudaContext* cuda = nullptr;
#ifdef VF_GST_CUDA
    std::unique_ptr<vf::PrimaryCudaContext> primary;
    if (vf::gst_cuda_usable()) {
        try {
            primary = std::make_unique<vf::PrimaryCudaContext>(0);
            cuda = primary->get();
        } catch (const std::exception& e) {
            std::fprintf(stderr, "no GPU: %s\n", e.what());
        }
    }
#endif
    const Mode modes[] = {{"cuda-memory", true, "cuda", false},
                          {"system-memory-gpu", false, "cuda", true},
                          {"system-memory-gpu-pageable", false, "cuda", false},
                          {"system-memory-cpu", false, "cpu", false}};
    std::printf("filter,size,mode,fps\n");
    for (const auto& [w, h] : {std::pair<int, int>{1920, 1080}, {3840, 2160}}) {
        GstVideoInfo info;
        gst_video_info_set_format(&info, GST_VIDEO_FORMAT_I420, w, h);
        for (const Mode& mode : modes) {
            if ((mode.cuda_memory || std::string(mode.device) == "cuda") && !cuda) continue;
            const double fps = frames_per_second(info, mode, std::string(mode.device) == "cpu" ? frames / 4 : frames, filter, cuda);
            std::printf("%s,%dx%d,%s,%.1f\n", filter.c_str(), w, h, mode.name, fps);
            std::fflush(stdout);
        }
    }
    return 0;
}
