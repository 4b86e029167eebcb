// The `vfilter` element with frames in flight (gst/element_in_flight.hpp), without a GPU: the
// engine the element would run on the GPU is replaced by the GPU stage's CPU stand-in
// (CpuFrameEngine, one worker per slot, each frame held a little so that frames really are in
// flight at once), so the element's own side runs as on a GPU machine: submit_input_buffer,
// generate_output, the events, the LATENCY query and the page-locked pool offered upstream.
//  - The buffers out equal the synchronous CPU element's (device=cpu) byte for byte, in order, with
//    their timestamps, formats and odd sizes included.
//  - End of stream with fewer buffers than frames in flight gives every one of them; new caps
//    mid-stream and a drain query send the buffers in flight on first.
//  - A flushing seek mid-stream leaves none of the buffers in flight behind.
//  - The LATENCY query adds frames-in-flight frame durations, and a live pipeline with a synced
//    sink is configured with it; the CPU element adds none.
//  - QoS: with a slow engine, late buffers are dropped by the element before they start.
//  - videotestsrc fills the page-locked buffers the element proposes, and the output is the same
//    as the CPU element's, which proposes none.
// (The GPU's own frames in flight against the CPU element: element_cuda_test.cpp.)
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <atomic>
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "gst/element_engine.hpp"
#include "gst/page_locked_pool.hpp"
#include "gst/video_frames.hpp"
#include "gst_test_support.hpp"
#include "pipeline/cpu_frame_engine.hpp"
#include "support/gst_element_run.hpp"

extern "C" {
#include <libavutil/imgutils.h>
}

namespace vf::in_flight_test {
namespace {

// Holds an engine's first frames until its last slot is filled, so that a test sees every slot in
// flight however slowly the element's thread runs (a fixed hold of a few ms was not always enough
// under AddressSanitizer on a busy 2-core machine). Bounded: a frame waits 2 s at most (the
// frames before the last slot wait side by side, so an element that keeps none in flight costs a
// run 2 s, and the test fails on its count).
struct FillGate {
    std::mutex mutex;
    std::condition_variable filled;
    int64_t submitted = 0;
    void on_submit(int64_t index) {
        {
            std::lock_guard<std::mutex> lock(mutex);
            submitted = std::max(submitted, index + 1);
        }
        filled.notify_all();
    }
    void wait_for(int64_t count) {
        std::unique_lock<std::mutex> lock(mutex);
        filled.wait_for(lock, std::chrono::seconds(2), [&] { return submitted >= count; });
    }
};

// The stand-in, which remembers the most frames it held at once. With fill_slots, frames before
// the last slot's wait until it is submitted.
class RecordingEngine : public CpuFrameEngine {
public:
    RecordingEngine(const std::vector<FilterPlan>& chain, int slots, std::shared_ptr<std::atomic<int>> most, int frame_ms,
                    bool fill_slots, std::shared_ptr<FillGate> gate = std::make_shared<FillGate>())
        : CpuFrameEngine(
              chain, slots,
              [frame_ms, fill_slots, slots, gate](int64_t index) {
                  std::this_thread::sleep_for(std::chrono::milliseconds(frame_ms));
                  if (fill_slots && index < slots - 1) gate->wait_for(slots);
              },
              [gate](int64_t index) { gate->on_submit(index); }),
          most_(std::move(most)) {}
    ~RecordingEngine() override {
        if (max_in_flight() > most_->load()) most_->store(max_in_flight());
    }

private:
    std::shared_ptr<std::atomic<int>> most_;
};

class GstElementInFlight : public ::testing::Test {
protected:
    void SetUp() override {
        auto most = most_in_flight_;
        auto frame_ms = frame_ms_;
        auto fill = fill_slots_;
        set_element_frame_engine_for_tests([most, frame_ms, fill](const std::vector<FilterPlan>& chain, int slots) {
            return std::make_unique<RecordingEngine>(chain, slots, most, frame_ms->load(), fill->load());
        });
    }
    void TearDown() override { set_element_frame_engine_for_tests(nullptr); }
    std::shared_ptr<std::atomic<int>> most_in_flight_ = std::make_shared<std::atomic<int>>(0);
    std::shared_ptr<std::atomic<int>> frame_ms_ = std::make_shared<std::atomic<int>>(3);  // each frame's time in the engine
    std::shared_ptr<std::atomic<bool>> fill_slots_ = std::make_shared<std::atomic<bool>>(false);
};

// A buffer's samples as vfilter's planes, rows packed (whatever the buffer's strides).
std::string samples(GstBuffer* buffer, const GstVideoInfo& info) {
    GstVideoFrame frame;
    if (!gst_video_frame_map(&frame, const_cast<GstVideoInfo*>(&info), buffer, GST_MAP_READ)) return "";
    AvFramePtr f = frame_over(frame);
    const AVPixelFormat format = static_cast<AVPixelFormat>(f->format);
    const int size = av_image_get_buffer_size(format, f->width, f->height, 1);
    std::string out(static_cast<size_t>(size), '\0');
    av_image_copy_to_buffer(reinterpret_cast<uint8_t*>(out.data()), size, f->data, f->linesize, format, f->width, f->height, 1);
    f.reset();
    gst_video_frame_unmap(&frame);
    return out;
}

struct Out {
    std::string bytes;
    GstClockTime pts, duration;
};

// A buffer out as the tests compare it.
test::BufferOut keep_in(std::vector<Out>* out, const GstVideoInfo& info) {
    return [out, &info](GstBuffer* b) { out->push_back({samples(b, info), GST_BUFFER_PTS(b), GST_BUFFER_DURATION(b)}); };
}

// appsrc ! vfilter <properties> ! appsink: the frames pushed, then end of stream; what came out.
std::vector<Out> run(const GstVideoInfo& info, const std::vector<GstBuffer*>& frames, const std::string& properties) {
    GstCaps* caps = gst_video_info_to_caps(&info);
    std::vector<Out> out;
    EXPECT_TRUE(test::run_element(caps, frames, properties, keep_in(&out, info)));
    gst_caps_unref(caps);
    return out;
}

// Random frames at 25 fps, a fresh seed each.
std::vector<GstBuffer*> random_frames(const GstVideoInfo& info, int count, uint32_t seed) {
    return test::random_frames(info, count, seed * 64, GST_SECOND / 25, 7);  // 7: not on a frame boundary, kept as it is
}

TEST_F(GstElementInFlight, GivesTheCpuElementsBuffersInOrderWithTheirTimestamps) {
    const GstVideoFormat formats[] = {GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_Y444, GST_VIDEO_FORMAT_I420_10LE,
                                      GST_VIDEO_FORMAT_P010_10LE, GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGR};
    uint32_t seed = 1;
    fill_slots_->store(true);  // every slot in flight at once, however slow the pushing thread
    for (GstVideoFormat format : formats)
        for (const auto& [w, h] : {std::pair<int, int>{75, 41}, {34, 17}})
            for (const char* filter : {"sobel", "gaussian=sigma=2,unsharp"}) {
                SCOPED_TRACE(std::string(gst_video_format_to_string(format)) + " " + std::to_string(w) + "x" + std::to_string(h) + " " + filter);
                GstVideoInfo info;
                gst_video_info_set_format(&info, format, w, h);
                const std::vector<GstBuffer*> frames = random_frames(info, 7, seed++);
                const std::string props = std::string("filter=\"") + filter + "\"";
                const std::vector<Out> expected = run(info, frames, "device=cpu " + props);
                most_in_flight_->store(0);
                const std::vector<Out> got = run(info, frames, "frames-in-flight=4 " + props);
                EXPECT_EQ(most_in_flight_->load(), 4) << "frames were in flight at once";
                ASSERT_EQ(expected.size(), frames.size());
                ASSERT_EQ(got.size(), frames.size());
                for (size_t i = 0; i < frames.size(); ++i) {
                    EXPECT_TRUE(got[i].bytes == expected[i].bytes) << "buffer " << i;
                    EXPECT_NE(got[i].bytes, samples(frames[i], info)) << "the filter changed buffer " << i;
                    EXPECT_EQ(got[i].pts, GST_BUFFER_PTS(frames[i]));
                    EXPECT_EQ(got[i].duration, GST_BUFFER_DURATION(frames[i]));
                }
                for (GstBuffer* b : frames) gst_buffer_unref(b);
            }
}

TEST_F(GstElementInFlight, EndOfStreamWithFewerBuffersThanInFlightGivesThemAll) {
    GstVideoInfo info;
    gst_video_info_set_format(&info, GST_VIDEO_FORMAT_I420, 33, 19);
    for (int n : {1, 3, 5}) {
        const std::vector<GstBuffer*> frames = random_frames(info, n, 40 + static_cast<uint32_t>(n));
        const std::vector<Out> expected = run(info, frames, "device=cpu filter=sobel");
        const std::vector<Out> got = run(info, frames, "frames-in-flight=6 filter=sobel");
        ASSERT_EQ(got.size(), static_cast<size_t>(n));
        for (size_t i = 0; i < got.size(); ++i) EXPECT_TRUE(got[i].bytes == expected[i].bytes && got[i].pts == expected[i].pts) << i;
        for (GstBuffer* b : frames) gst_buffer_unref(b);
    }
}

// New caps mid-stream (a new size): the buffers in flight leave first, at the old size, and the
// next ones are filtered at the new; each is what the CPU element gives.
std::vector<Out> run_with_new_caps(const GstVideoInfo& first, const GstVideoInfo& second, const std::vector<GstBuffer*>& a,
                                   const std::vector<GstBuffer*>& b, const std::string& properties) {
    const std::string text = "appsrc name=src format=time ! vfilter " + properties + " ! appsink name=sink sync=false";
    GstElement* pipeline = gst_parse_launch(text.c_str(), nullptr);
    GstElement* src = gst_bin_get_by_name(GST_BIN(pipeline), "src");
    GstElement* sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
    GstCaps* caps = gst_video_info_to_caps(&first);
    gst_app_src_set_caps(GST_APP_SRC(src), caps);
    gst_caps_unref(caps);
    EXPECT_NE(gst_element_set_state(pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
    for (GstBuffer* buffer : a) gst_app_src_push_buffer(GST_APP_SRC(src), gst_buffer_copy(buffer));
    caps = gst_video_info_to_caps(&second);
    gst_app_src_set_caps(GST_APP_SRC(src), caps);
    gst_caps_unref(caps);
    for (GstBuffer* buffer : b) gst_app_src_push_buffer(GST_APP_SRC(src), gst_buffer_copy(buffer));
    gst_app_src_end_of_stream(GST_APP_SRC(src));
    std::vector<Out> out;
    while (GstSample* sample = gst_app_sink_try_pull_sample(GST_APP_SINK(sink), 20 * GST_SECOND)) {
        GstVideoInfo info;
        EXPECT_TRUE(gst_video_info_from_caps(&info, gst_sample_get_caps(sample)));
        GstBuffer* buffer = gst_sample_get_buffer(sample);
        out.push_back({samples(buffer, info), GST_BUFFER_PTS(buffer), GST_BUFFER_DURATION(buffer)});
        gst_sample_unref(sample);
    }
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(src);
    gst_object_unref(sink);
    gst_object_unref(pipeline);
    return out;
}

TEST_F(GstElementInFlight, NewCapsSendTheBuffersInFlightOnFirst) {
    GstVideoInfo first, second;
    gst_video_info_set_format(&first, GST_VIDEO_FORMAT_I420, 75, 41);
    gst_video_info_set_format(&second, GST_VIDEO_FORMAT_NV12, 34, 17);
    const std::vector<GstBuffer*> a = random_frames(first, 3, 70), b = random_frames(second, 4, 71);
    const std::vector<Out> expected = run_with_new_caps(first, second, a, b, "device=cpu filter=sobel");
    const std::vector<Out> got = run_with_new_caps(first, second, a, b, "frames-in-flight=5 filter=sobel");
    ASSERT_EQ(expected.size(), 7u);
    ASSERT_EQ(got.size(), 7u);
    for (size_t i = 0; i < got.size(); ++i) EXPECT_TRUE(got[i].bytes == expected[i].bytes && got[i].pts == expected[i].pts) << "buffer " << i;
    EXPECT_EQ(got[2].bytes.size(), static_cast<size_t>(75 * 41 + 2 * 38 * 21)) << "the last of the first caps at their size";
    for (GstBuffer* buffer : a) gst_buffer_unref(buffer);
    for (GstBuffer* buffer : b) gst_buffer_unref(buffer);
}

// A drain query (as a decoder sends before it reuses its buffers) gets back every buffer in flight
// before it is answered.
TEST_F(GstElementInFlight, ADrainQueryGetsEveryBufferBack) {
    frame_ms_->store(100);
    GstVideoInfo info;
    gst_video_info_set_format(&info, GST_VIDEO_FORMAT_I420, 33, 19);
    const std::vector<GstBuffer*> frames = random_frames(info, 3, 90);
    GstElement* pipeline = gst_parse_launch("appsrc name=src format=time ! vfilter filter=sobel frames-in-flight=5 ! appsink name=sink sync=false",
                                            nullptr);
    GstElement* src = gst_bin_get_by_name(GST_BIN(pipeline), "src");
    GstElement* sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
    GstCaps* caps = gst_video_info_to_caps(&info);
    gst_app_src_set_caps(GST_APP_SRC(src), caps);
    gst_caps_unref(caps);
    ASSERT_NE(gst_element_set_state(pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
    for (GstBuffer* b : frames) gst_app_src_push_buffer(GST_APP_SRC(src), gst_buffer_copy(b));
    for (int i = 0; i < 200 && gst_app_src_get_current_level_buffers(GST_APP_SRC(src)) > 0; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    // appsink answers a drain query once what it holds is taken: asked on a thread of its own,
    // while the buffers are taken here. Without the drain nothing more comes (no more input).
    std::thread asker([src] {
        GstPad* pad = gst_element_get_static_pad(src, "src");
        GstQuery* drain = gst_query_new_drain();
        gst_pad_peer_query(pad, drain);
        gst_query_unref(drain);
        gst_object_unref(pad);
    });
    int out = 0;
    while (out < 3) {
        GstSample* sample = gst_app_sink_try_pull_sample(GST_APP_SINK(sink), 5 * GST_SECOND);
        if (!sample) break;
        ++out;
        gst_sample_unref(sample);
    }
    EXPECT_EQ(out, 3) << "every buffer in flight sent on for the drain query";
    if (out < 3) gst_app_src_end_of_stream(GST_APP_SRC(src));  // lets the stuck query end
    while (GstSample* sample = gst_app_sink_try_pull_sample(GST_APP_SINK(sink), GST_SECOND)) gst_sample_unref(sample);
    asker.join();
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(src);
    gst_object_unref(sink);
    gst_object_unref(pipeline);
    for (GstBuffer* b : frames) gst_buffer_unref(b);
}

// videotestsrc (seekable) at 25 fps; a flushing seek to 2 s while buffers are in flight: what comes
// out after it starts at 2 s and runs on frame by frame, with nothing of before the seek.
TEST_F(GstElementInFlight, AFlushLeavesNothingInFlightBehind) {
    fill_slots_->store(true);  // every slot in flight at once, however slow the pushing thread
    GstElement* pipeline = gst_parse_launch(
        "videotestsrc pattern=ball ! video/x-raw,format=I420,width=64,height=36,framerate=25/1 ! vfilter filter=sobel frames-in-flight=4 ! "
        "appsink name=sink sync=false max-buffers=2",
        nullptr);
    GstElement* sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
    ASSERT_NE(gst_element_set_state(pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
    for (int i = 0; i < 6; ++i) {
        GstSample* s = gst_app_sink_try_pull_sample(GST_APP_SINK(sink), 10 * GST_SECOND);
        ASSERT_NE(s, nullptr);
        gst_sample_unref(s);
    }
    ASSERT_TRUE(gst_element_seek_simple(pipeline, GST_FORMAT_TIME, static_cast<GstSeekFlags>(GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE),
                                        2 * GST_SECOND));
    for (int i = 0; i < 8; ++i) {
        GstSample* s = gst_app_sink_try_pull_sample(GST_APP_SINK(sink), 10 * GST_SECOND);
        ASSERT_NE(s, nullptr);
        EXPECT_EQ(GST_BUFFER_PTS(gst_sample_get_buffer(s)), 2 * GST_SECOND + static_cast<GstClockTime>(i) * GST_SECOND / 25) << "buffer " << i;
        gst_sample_unref(s);
    }
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(sink);
    gst_object_unref(pipeline);
    EXPECT_EQ(most_in_flight_->load(), 4) << "buffers were in flight";
}

GstClockTime live_latency(const std::string& element) { return test::live_latency(element, 64, 36); }

TEST_F(GstElementInFlight, TheLatencyQueryAddsTheFramesInFlight) {
    const GstClockTime source = live_latency("identity");
    ASSERT_TRUE(GST_CLOCK_TIME_IS_VALID(source));
    EXPECT_EQ(live_latency("vfilter filter=sobel frames-in-flight=3"), source + 3 * GST_SECOND / 25);
    EXPECT_EQ(live_latency("vfilter filter=sobel frames-in-flight=5"), source + 5 * GST_SECOND / 25);
    EXPECT_EQ(live_latency("vfilter filter=sobel device=cpu"), source) << "the CPU element holds no buffer";
}

// A live source at 25 fps and an engine that filters 10 a second (two frames in flight, 200 ms
// each): the sink finds buffers late, and GStreamer's QoS makes the element drop buffers before
// they start (QoS messages from it); what does come out is in order.
TEST_F(GstElementInFlight, QosDropsLateBuffersBeforeTheyStart) {
    frame_ms_->store(200);
    GstElement* pipeline = gst_parse_launch(
        "videotestsrc is-live=true num-buffers=40 ! video/x-raw,format=I420,width=64,height=36,framerate=25/1 ! "
        "vfilter name=f filter=sobel frames-in-flight=2 ! appsink name=sink sync=true qos=true max-lateness=10000000",
        nullptr);
    GstElement* sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
    GstElement* f = gst_bin_get_by_name(GST_BIN(pipeline), "f");
    ASSERT_NE(gst_element_set_state(pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
    std::vector<GstClockTime> pts;
    while (GstSample* s = gst_app_sink_try_pull_sample(GST_APP_SINK(sink), 10 * GST_SECOND)) {
        pts.push_back(GST_BUFFER_PTS(gst_sample_get_buffer(s)));
        gst_sample_unref(s);
    }
    int qos_from_element = 0;
    GstBus* bus = gst_element_get_bus(pipeline);
    while (GstMessage* m = gst_bus_pop_filtered(bus, GST_MESSAGE_QOS)) {
        if (GST_MESSAGE_SRC(m) == GST_OBJECT(f)) ++qos_from_element;
        gst_message_unref(m);
    }
    gst_object_unref(bus);
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(f);
    gst_object_unref(sink);
    gst_object_unref(pipeline);
    EXPECT_GT(qos_from_element, 0) << "the element dropped late buffers";
    EXPECT_LT(pts.size(), 40u);
    for (size_t i = 1; i < pts.size(); ++i) EXPECT_LT(pts[i - 1], pts[i]) << "in order";
}

// Buffers arriving at the element, and how many were the element's page-locked memory.
struct Arrivals {
    std::atomic<int> buffers{0}, page_locked{0};
};

GstPadProbeReturn count_arrival(GstPad*, GstPadProbeInfo* info, gpointer data) {
    auto* a = static_cast<Arrivals*>(data);
    GstBuffer* b = GST_PAD_PROBE_INFO_BUFFER(info);
    ++a->buffers;
    bool all = gst_buffer_n_memory(b) > 0;
    for (guint i = 0; i < gst_buffer_n_memory(b); ++i) all = all && element::is_page_locked_memory(gst_buffer_peek_memory(b, i));
    if (all) ++a->page_locked;
    return GST_PAD_PROBE_OK;
}

std::vector<Out> from_videotestsrc(const std::string& properties, Arrivals* arrivals, const GstVideoInfo& info) {
    std::vector<Out> out;
    test::run_source_through_element("videotestsrc num-buffers=12 pattern=zone-plate ! video/x-raw,format=I420,width=75,height=41,framerate=25/1",
                                     "filter=sobel " + properties, count_arrival, arrivals, keep_in(&out, info));
    return out;
}

TEST_F(GstElementInFlight, VideotestsrcFillsTheProposedPageLockedBuffers) {
    GstVideoInfo info;
    gst_video_info_set_format(&info, GST_VIDEO_FORMAT_I420, 75, 41);
    Arrivals with, without;
    const std::vector<Out> pinned = from_videotestsrc("frames-in-flight=3", &with, info);
    const std::vector<Out> plain = from_videotestsrc("device=cpu", &without, info);
    EXPECT_EQ(with.buffers.load(), 12);
    EXPECT_EQ(with.page_locked.load(), 12) << "every buffer was the element's page-locked memory";
    EXPECT_EQ(without.page_locked.load(), 0) << "the CPU element proposes none";
    ASSERT_EQ(pinned.size(), 12u);
    ASSERT_EQ(plain.size(), 12u);
    for (size_t i = 0; i < pinned.size(); ++i) EXPECT_TRUE(pinned[i].bytes == plain[i].bytes && pinned[i].pts == plain[i].pts) << i;
}

}  // namespace
}  // namespace vf::in_flight_test
