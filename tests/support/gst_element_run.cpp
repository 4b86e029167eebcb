#include "support/gst_element_run.hpp"

#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gtest/gtest.h>

#include <chrono>
#include <random>
#include <thread>

namespace vf::test {
namespace {

void pull_until_end(GstElement* sink, const BufferOut& each) {
    while (GstSample* sample = gst_app_sink_try_pull_sample(GST_APP_SINK(sink), 20 * GST_SECOND)) {
        each(gst_sample_get_buffer(sample));
        gst_sample_unref(sample);
    }
}

}  // namespace

void fill_random(GstVideoFrame& frame, uint32_t seed) {
    std::mt19937 rng(seed);
    const bool deep = GST_VIDEO_FORMAT_INFO_DEPTH(frame.info.finfo, 0) > 8;
    const bool msb = GST_VIDEO_FRAME_FORMAT(&frame) == GST_VIDEO_FORMAT_P010_10LE;
    for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES(&frame); ++p) {
        auto* data = static_cast<uint8_t*>(GST_VIDEO_FRAME_PLANE_DATA(&frame, p));
        const int stride = GST_VIDEO_FRAME_PLANE_STRIDE(&frame, p);
        const int rows = GST_VIDEO_FRAME_COMP_HEIGHT(&frame, p == 0 ? 0 : 1);
        for (int y = 0; y < rows; ++y)
            for (int x = 0; x < stride / (deep ? 2 : 1); ++x) {
                if (!deep) data[y * stride + x] = static_cast<uint8_t>(rng());
                else reinterpret_cast<uint16_t*>(data + y * stride)[x] = static_cast<uint16_t>(msb ? (rng() & 1023) << 6 : rng() & 1023);
            }
    }
}

std::vector<GstBuffer*> random_frames(const GstVideoInfo& info, int count, uint32_t first_seed, GstClockTime duration, GstClockTime offset) {
    std::vector<GstBuffer*> frames;
    for (int n = 0; n < count; ++n) {
        GstBuffer* buffer = gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&info), nullptr);
        GstVideoFrame frame;
        EXPECT_TRUE(gst_video_frame_map(&frame, const_cast<GstVideoInfo*>(&info), buffer, GST_MAP_WRITE));
        fill_random(frame, first_seed + static_cast<uint32_t>(n));
        gst_video_frame_unmap(&frame);
        GST_BUFFER_PTS(buffer) = static_cast<GstClockTime>(n) * duration + offset;
        GST_BUFFER_DURATION(buffer) = duration;
        frames.push_back(buffer);
    }
    return frames;
}

bool run_element(GstCaps* caps, const std::vector<GstBuffer*>& frames, const std::string& properties, const BufferOut& each,
                 const std::function<void(GstElement*)>& before_play) {
    const std::string text = "appsrc name=src format=time ! vfilter " + properties + " ! appsink name=sink sync=false";
    GstElement* pipeline = gst_parse_launch(text.c_str(), nullptr);
    if (before_play) before_play(pipeline);
    GstElement* src = gst_bin_get_by_name(GST_BIN(pipeline), "src");
    GstElement* sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
    gst_app_src_set_caps(GST_APP_SRC(src), caps);
    EXPECT_NE(gst_element_set_state(pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
    for (GstBuffer* b : frames) gst_app_src_push_buffer(GST_APP_SRC(src), gst_buffer_copy(b));  // a buffer of its own: filtered in place
    gst_app_src_end_of_stream(GST_APP_SRC(src));
    pull_until_end(sink, each);
    const bool ended = gst_app_sink_is_eos(GST_APP_SINK(sink));
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(src);
    gst_object_unref(sink);
    gst_object_unref(pipeline);
    return ended;
}

void run_source_through_element(const std::string& source, const std::string& properties, GstPadProbeCallback probe, void* probe_data,
                                const BufferOut& each) {
    const std::string text = source + " ! vfilter name=f " + properties + " ! appsink name=sink sync=false";
    GstElement* pipeline = gst_parse_launch(text.c_str(), nullptr);
    GstElement* element = gst_bin_get_by_name(GST_BIN(pipeline), "f");
    GstPad* pad = gst_element_get_static_pad(element, "sink");
    gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, probe, probe_data, nullptr);
    GstElement* sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
    EXPECT_NE(gst_element_set_state(pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
    pull_until_end(sink, each);
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(pad);
    gst_object_unref(element);
    gst_object_unref(sink);
    gst_object_unref(pipeline);
}

GstClockTime live_latency(const std::string& element, int width, int height) {
    const std::string text = "videotestsrc is-live=true ! video/x-raw,format=I420,width=" + std::to_string(width) +
                             ",height=" + std::to_string(height) + ",framerate=25/1 ! " + element + " ! fakesink sync=true";
    GstElement* pipeline = gst_parse_launch(text.c_str(), nullptr);
    EXPECT_NE(gst_element_set_state(pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
    GstClockTime min = GST_CLOCK_TIME_NONE;
    for (int i = 0; i < 500 && !GST_CLOCK_TIME_IS_VALID(min); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        GstQuery* q = gst_query_new_latency();
        gboolean live = FALSE;
        if (gst_element_query(pipeline, q)) gst_query_parse_latency(q, &live, &min, nullptr);
        if (!live) min = GST_CLOCK_TIME_NONE;
        gst_query_unref(q);
    }
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(pipeline);
    return min;
}

}  // namespace vf::test
