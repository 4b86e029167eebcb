// The `vfilter` element's timeline editing (FFmpeg's enable=): t is the buffer's PTS in seconds and
// n counts the buffers filtered, so a filter with enable= passes the buffers where its expression
// is false unchanged and filters the others, as the command line does by the frames' timestamps.
// One videotestsrc feeds, through a tee, the unfiltered frames, the element with enable= and the
// element filtering every frame, each into an appsink; the element is registered in this process.
#include <gst/app/gstappsink.h>
#include <gst/gst.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gst_test_support.hpp"

namespace vf {
namespace {

struct Sunk {
    std::vector<std::string> bytes;  // each buffer's bytes
    std::vector<GstClockTime> pts;
};

// Every buffer of appsink `name` of a pipeline that has reached its end.
Sunk drain(GstElement* pipeline, const char* name) {
    GstElement* sink = gst_bin_get_by_name(GST_BIN(pipeline), name);
    Sunk sunk;
    while (GstSample* sample = gst_app_sink_try_pull_sample(GST_APP_SINK(sink), 0)) {
        GstBuffer* buffer = gst_sample_get_buffer(sample);
        GstMapInfo map;
        if (gst_buffer_map(buffer, &map, GST_MAP_READ)) {
            sunk.bytes.emplace_back(reinterpret_cast<const char*>(map.data), map.size);
            gst_buffer_unmap(buffer, &map);
        }
        sunk.pts.push_back(GST_BUFFER_PTS(buffer));
        gst_sample_unref(sample);
    }
    gst_object_unref(sink);
    return sunk;
}

// Plays `pipeline` to its end (an error fails the test), for 30 s at most.
void run_to_end(GstElement* pipeline) {
    ASSERT_NE(gst_element_set_state(pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
    GstBus* bus = gst_element_get_bus(pipeline);
    GstMessage* msg = gst_bus_timed_pop_filtered(bus, 30 * GST_SECOND, static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
    ASSERT_NE(msg, nullptr) << "the pipeline did not end within 30 s";
    if (GST_MESSAGE_TYPE(msg) == GST_MESSAGE_ERROR) {
        GError* error = nullptr;
        gst_message_parse_error(msg, &error, nullptr);
        ADD_FAILURE() << "pipeline error: " << error->message;
        g_error_free(error);
    }
    gst_message_unref(msg);
    gst_object_unref(bus);
}

// 10 frames a second from t = 0 (frame i at i/10 s): enable='gte(t,0.5)' leaves 0-4, filters 5-9.
TEST(GstElementTimeline, EnableReadsTheBuffersTimestamp) {
    const std::string source =
        "videotestsrc num-buffers=10 pattern=ball ! video/x-raw,format=I420,width=97,height=55,framerate=10/1 ! tee name=split ";
    const std::string sink = " ! appsink sync=false wait-on-eos=false name=";
    const std::string description = source + "split. ! queue" + sink + "raw " + "split. ! queue ! vfilter device=cpu filter=\"sobel=enable='gte(t,0.5)'\"" +
                                    sink + "timed " + "split. ! queue ! vfilter device=cpu filter=sobel" + sink + "every";
    GError* error = nullptr;
    GstElement* pipeline = gst_parse_launch(description.c_str(), &error);
    ASSERT_NE(pipeline, nullptr) << (error ? error->message : "gst_parse_launch failed");
    run_to_end(pipeline);
    const Sunk raw = drain(pipeline, "raw"), timed = drain(pipeline, "timed"), every = drain(pipeline, "every");
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(pipeline);

    ASSERT_EQ(raw.bytes.size(), 10u);
    ASSERT_EQ(timed.bytes.size(), 10u);
    ASSERT_EQ(every.bytes.size(), 10u);
    for (size_t i = 0; i < raw.bytes.size(); ++i) {
        ASSERT_EQ(timed.pts[i], i * GST_SECOND / 10) << "frame " << i;
        ASSERT_NE(every.bytes[i], raw.bytes[i]) << "sobel changes frame " << i;
        if (i < 5)
            EXPECT_EQ(timed.bytes[i], raw.bytes[i]) << "frame " << i << " (t < 0.5) passes unchanged";
        else
            EXPECT_EQ(timed.bytes[i], every.bytes[i]) << "frame " << i << " (t >= 0.5) is filtered";
    }
}

// n is the buffer's number (from 0) and a buffer without a timestamp has t unknown (NAN), which
// no comparison holds for: enable='between(n,2,3)+gte(t,0)' filters only frames 2 and 3 once the
// timestamps are gone.
TEST(GstElementTimeline, EnableCountsBuffersAndAMissingTimestampIsNan) {
    const std::string description =
        "videotestsrc num-buffers=6 pattern=ball ! video/x-raw,format=I420,width=33,height=21,framerate=10/1 ! tee name=split "
        "split. ! queue ! appsink sync=false wait-on-eos=false name=raw "
        "split. ! queue ! identity name=untimed ! vfilter device=cpu filter=\"sobel=enable='between(n,2,3)+gte(t,0)'\" ! "
        "appsink sync=false wait-on-eos=false name=timed "
        "split. ! queue ! vfilter device=cpu filter=sobel ! appsink sync=false wait-on-eos=false name=every";
    GError* error = nullptr;
    GstElement* pipeline = gst_parse_launch(description.c_str(), &error);
    ASSERT_NE(pipeline, nullptr) << (error ? error->message : "gst_parse_launch failed");
    // The buffers reach the timed element without timestamps.
    GstElement* untimed = gst_bin_get_by_name(GST_BIN(pipeline), "untimed");
    GstPad* pad = gst_element_get_static_pad(untimed, "src");
    gst_pad_add_probe(
        pad, GST_PAD_PROBE_TYPE_BUFFER,
        [](GstPad*, GstPadProbeInfo* info, gpointer) {
            GstBuffer* buffer = gst_buffer_make_writable(GST_PAD_PROBE_INFO_BUFFER(info));
            GST_BUFFER_PTS(buffer) = GST_CLOCK_TIME_NONE;
            GST_BUFFER_DTS(buffer) = GST_CLOCK_TIME_NONE;
            GST_PAD_PROBE_INFO_DATA(info) = buffer;
            return GST_PAD_PROBE_OK;
        },
        nullptr, nullptr);
    gst_object_unref(pad);
    gst_object_unref(untimed);
    run_to_end(pipeline);
    const Sunk raw = drain(pipeline, "raw"), timed = drain(pipeline, "timed"), every = drain(pipeline, "every");
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(pipeline);

    ASSERT_EQ(raw.bytes.size(), 6u);
    ASSERT_EQ(timed.bytes.size(), 6u);
    ASSERT_EQ(every.bytes.size(), 6u);
    for (size_t i = 0; i < raw.bytes.size(); ++i) {
        EXPECT_FALSE(GST_CLOCK_TIME_IS_VALID(timed.pts[i]));
        const bool filtered = i == 2 || i == 3;
        EXPECT_EQ(timed.bytes[i], filtered ? every.bytes[i] : raw.bytes[i]) << "frame " << i;
    }
}

}  // namespace
}  // namespace vf
