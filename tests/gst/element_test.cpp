// The `vfilter` GStreamer element (gst/): what a pipeline gets out of it.
//  - Every format at odd sizes, 8 and 10 bit, YUV and packed RGB (RGBA, BGRx, ...: filtered as RGB,
//    x bytes passed through): the buffers out are byte for byte what the vfilter command writes
//    for the same frames and filter (through raw video files).
//  - `filter` changed while playing applies from the next buffer; a bad string is refused with
//    the command line's reason (an error at start, a warning while playing with the old filter
//    going on).
//  - The plugin as GStreamer loads it from the build tree (GST_PLUGIN_PATH): a real RTSP camera
//    through rtspsrc ... vfilter ! x264enc ! mp4mux gives a file that plays.
//  - GStreamer's leaks tracer finds nothing of a run alive after it.
// The element is registered in this process (so the sanitizer builds check its code too); the
// plugin tests use the built plugin and skip where it was not built (sanitizer builds).
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>

#include "config/filter_spec.hpp"
#include "gst/gstvfilter.hpp"
#include "gst_test_support.hpp"
#include "gst/video_frames.hpp"
#include "support/child_process.hpp"
#include "support/gst_element_run.hpp"
#include "support/recording_check.hpp"
#include "support/run_command.hpp"
#include "support/sanitizer_build.hpp"

extern "C" {
#include <libavutil/imgutils.h>
}

// Under AddressSanitizer: whole stacks for allocations, so that what GLib allocates in its
// constructors when it loads (kept for the process, reported as leaked) is told apart from leaks.
#if defined(__SANITIZE_ADDRESS__)
extern "C" const char* __asan_default_options() { return "fast_unwind_on_malloc=0"; }
extern "C" const char* __lsan_default_suppressions() { return "leak:_dl_init\n"; }
#endif

namespace vf {
namespace {

namespace fs = std::filesystem;
const std::string kVfilter = VFILTER_BIN;
const std::string kPluginDir = VF_GST_PLUGIN_BUILD_DIR;
const std::string kRtspServer = std::string(VF_SOURCE_DIR) + "/tests/live/rtsp_server.py";

// `ffmpeg`: the planar layout of the same samples, as FFmpeg's rawvideo names it. The command
// line gets NV12 and P010 frames as planar ones, converted here: FFmpeg's own conversion of P010
// loses the last chroma column at odd widths (p010le -> yuv420p16le and back differs there).
struct Format {
    GstVideoFormat gst;
    const char* ffmpeg;
};
const Format kFormats[] = {
    {GST_VIDEO_FORMAT_I420, "yuv420p"},          {GST_VIDEO_FORMAT_YV12, "yuv420p"},
    {GST_VIDEO_FORMAT_NV12, "yuv420p"},          {GST_VIDEO_FORMAT_Y42B, "yuv422p"},
    {GST_VIDEO_FORMAT_Y444, "yuv444p"},          {GST_VIDEO_FORMAT_GRAY8, "gray"},
    {GST_VIDEO_FORMAT_I420_10LE, "yuv420p10le"}, {GST_VIDEO_FORMAT_I422_10LE, "yuv422p10le"},
    {GST_VIDEO_FORMAT_Y444_10LE, "yuv444p10le"}, {GST_VIDEO_FORMAT_P010_10LE, "yuv420p10le"},
    {GST_VIDEO_FORMAT_RGBA, "rgba"},             {GST_VIDEO_FORMAT_BGRx, "bgr0"},
    {GST_VIDEO_FORMAT_BGRA, "bgra"},             {GST_VIDEO_FORMAT_RGBx, "rgb0"},
    {GST_VIDEO_FORMAT_RGB, "rgb24"},             {GST_VIDEO_FORMAT_BGR, "bgr24"},
};

// A frame's samples, Y then U then V, rows packed: FFmpeg's rawvideo layout of its planar format
// (NV12's and P010's chroma taken apart, P010's samples shifted down to their 10 bits).
std::string packed(const GstVideoFrame& frame) {
    AvFramePtr f = frame_over(frame);
    const AVPixelFormat format = static_cast<AVPixelFormat>(f->format);
    if (format == AV_PIX_FMT_NV12 || format == AV_PIX_FMT_P010LE) {
        const bool deep = format == AV_PIX_FMT_P010LE;
        const int w = f->width, h = f->height, cw = (w + 1) / 2, ch = (h + 1) / 2;
        std::string out;
        auto put = [&](const uint8_t* row, int x) {
            if (!deep) {
                out += static_cast<char>(row[x]);
                return;
            }
            const uint16_t v = static_cast<uint16_t>(reinterpret_cast<const uint16_t*>(row)[x] >> 6);
            out += static_cast<char>(v & 0xff);
            out += static_cast<char>(v >> 8);
        };
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) put(f->data[0] + y * f->linesize[0], x);
        for (int c = 0; c < 2; ++c)
            for (int y = 0; y < ch; ++y)
                for (int x = 0; x < cw; ++x) put(f->data[1] + y * f->linesize[1], 2 * x + c);
        return out;
    }
    const int size = av_image_get_buffer_size(format, f->width, f->height, 1);
    std::string out(static_cast<size_t>(size), '\0');
    av_image_copy_to_buffer(reinterpret_cast<uint8_t*>(out.data()), size, f->data, f->linesize, format, f->width, f->height, 1);
    return out;
}

// Random frames of `info` (GStreamer's default layout) at 10 fps, a fresh seed each.
std::vector<GstBuffer*> random_frames(const GstVideoInfo& info, int count, uint32_t seed) {
    return test::random_frames(info, count, seed * 16, GST_SECOND / 10);
}

// appsrc ! vfilter ! appsink, started; `setup` sets the element's properties first.
class ElementRun {
public:
    explicit ElementRun(const GstVideoInfo& info, const std::string& properties = "") {
        const std::string text = "appsrc name=src format=time ! vfilter name=f " + properties + " ! appsink name=sink sync=false";
        GError* error = nullptr;
        pipeline_ = gst_parse_launch(text.c_str(), &error);
        EXPECT_EQ(error, nullptr) << (error ? error->message : "");
        if (error) g_error_free(error);
        src_ = gst_bin_get_by_name(GST_BIN(pipeline_), "src");
        sink_ = gst_bin_get_by_name(GST_BIN(pipeline_), "sink");
        element_ = gst_bin_get_by_name(GST_BIN(pipeline_), "f");
        GstCaps* caps = gst_video_info_to_caps(&info);
        gst_app_src_set_caps(GST_APP_SRC(src_), caps);
        gst_caps_unref(caps);
        info_ = info;
    }
    ~ElementRun() {
        gst_element_set_state(pipeline_, GST_STATE_NULL);
        gst_object_unref(element_);
        gst_object_unref(sink_);
        gst_object_unref(src_);
        gst_object_unref(pipeline_);
    }
    // FAILURE when the element refused to start (its start() runs in the call); SUCCESS
    // otherwise, though the sink prerolls only once a buffer comes.
    GstStateChangeReturn play() {
        const GstStateChangeReturn r = gst_element_set_state(pipeline_, GST_STATE_PLAYING);
        return r == GST_STATE_CHANGE_FAILURE ? r : GST_STATE_CHANGE_SUCCESS;
    }
    void push(GstBuffer* buffer) { EXPECT_EQ(gst_app_src_push_buffer(GST_APP_SRC(src_), gst_buffer_ref(buffer)), GST_FLOW_OK); }
    void end() { gst_app_src_end_of_stream(GST_APP_SRC(src_)); }
    // The next buffer out, packed; empty at the end or after 10 s.
    std::string pull() {
        GstSample* sample = gst_app_sink_try_pull_sample(GST_APP_SINK(sink_), 10 * GST_SECOND);
        if (!sample) return "";
        GstVideoFrame frame;
        std::string out;
        if (gst_video_frame_map(&frame, &info_, gst_sample_get_buffer(sample), GST_MAP_READ)) {
            out = packed(frame);
            gst_video_frame_unmap(&frame);
        }
        gst_sample_unref(sample);
        return out;
    }
    // The first bus message of these types within `timeout`, as "TYPE: text", or "".
    std::string message(GstMessageType types, GstClockTime timeout = GST_SECOND) {
        GstBus* bus = gst_element_get_bus(pipeline_);
        GstMessage* m = gst_bus_timed_pop_filtered(bus, timeout, types);
        gst_object_unref(bus);
        if (!m) return "";
        GError* error = nullptr;
        gchar* debug = nullptr;
        std::string text = GST_MESSAGE_TYPE_NAME(m);
        if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_ERROR) gst_message_parse_error(m, &error, &debug);
        if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_WARNING) gst_message_parse_warning(m, &error, &debug);
        if (error) text += std::string(": ") + error->message;
        if (error) g_error_free(error);
        g_free(debug);
        gst_message_unref(m);
        return text;
    }
    GstElement* element() { return element_; }

private:
    GstElement *pipeline_ = nullptr, *src_ = nullptr, *sink_ = nullptr, *element_ = nullptr;
    GstVideoInfo info_;
};

// What the vfilter command writes for these frames: raw video in and out, so nothing is lost on
// the way (rgb0's padding bytes included).
std::string command_line_output(const std::string& dir, const Format& f, int w, int h, const std::string& raw, const std::string& filter,
                                const std::string& compat) {
    std::ofstream(dir + "/in.raw", std::ios::binary) << raw;
    const std::string size = std::to_string(w) + "x" + std::to_string(h);
    test::CommandResult r = test::run_command({"ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", f.ffmpeg, "-s", size,
                                               "-r", "10", "-i", dir + "/in.raw", "-c:v", "rawvideo", dir + "/in.nut"},
                                              60);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    std::vector<std::string> cmd = {kVfilter, "-y", "-i", dir + "/in.nut", "-f", filter, "--device", "cpu", "-o", dir + "/out.nut",
                                    "--codec", "rawvideo", "--no-progress", "-q"};
    if (!compat.empty()) cmd.insert(cmd.end(), {"--compat", compat});
    r = test::run_command(cmd, 60);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    r = test::run_command({"ffmpeg", "-nostdin", "-v", "error", "-y", "-i", dir + "/out.nut", "-f", "rawvideo", "-pix_fmt", f.ffmpeg,
                           dir + "/out.raw"},
                          60);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    std::ifstream in(dir + "/out.raw", std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string first_difference(const std::string& a, const std::string& b) {
    if (a.size() != b.size()) return "sizes " + std::to_string(a.size()) + " and " + std::to_string(b.size());
    for (size_t i = 0; i < a.size(); ++i)
        if (a[i] != b[i])
            return "byte " + std::to_string(i) + ": " + std::to_string(uint8_t(a[i])) + " against " + std::to_string(uint8_t(b[i]));
    return "";
}

bool have(const std::string& command) { return test::run_command({"sh", "-c", command + " >/dev/null 2>&1"}, 30).exit_code == 0; }

TEST(GstElement, EveryFormatGivesTheCommandLinesBytes) {
    if (!have("ffmpeg -hide_banner -version")) GTEST_SKIP() << "needs the ffmpeg command";
    struct Case {
        const char* filter;
        const char* compat;
    };
    const Case cases[] = {{"sobel", ""}, {"gaussian=sigma=1.5,unsharp", ""}, {"avgblur=sizeX=4:sizeY=2", "ffmpeg"}};
    const std::pair<int, int> sizes[] = {{75, 41}, {34, 17}};
    uint32_t seed = 1;
    // Under a sanitizer (several times slower) a third of the product: every format at both sizes,
    // each with one of the filters in turn; the release run checks every combination.
    for (size_t fi = 0; fi < std::size(kFormats); ++fi)
        for (size_t si = 0; si < std::size(sizes); ++si)
            for (size_t ci = 0; ci < std::size(cases); ++ci) {
                if (test::kSanitizerBuild && (fi + si + ci) % 3 != 0) continue;
                const Format& f = kFormats[fi];
                const auto& [w, h] = sizes[si];
                const Case& c = cases[ci];
                SCOPED_TRACE(std::string(gst_video_format_to_string(f.gst)) + " " + std::to_string(w) + "x" + std::to_string(h) + " " +
                             c.filter + (c.compat[0] ? " --compat " : "") + c.compat);
                GstVideoInfo info;
                gst_video_info_set_format(&info, f.gst, w, h);
                const std::vector<GstBuffer*> frames = random_frames(info, 3, seed++);
                std::string raw;
                for (GstBuffer* b : frames) {
                    GstVideoFrame frame;
                    ASSERT_TRUE(gst_video_frame_map(&frame, &info, b, GST_MAP_READ));
                    raw += packed(frame);
                    gst_video_frame_unmap(&frame);
                }
                const std::string dir = test::temp_dir();
                const std::string expected = command_line_output(dir, f, w, h, raw, c.filter, c.compat);
                ASSERT_EQ(expected.size(), raw.size()) << "the command line's output";

                const std::string properties = std::string("device=cpu filter=\"") + c.filter + "\"" + (c.compat[0] ? " compat=" : "") + c.compat;
                ElementRun run(info, properties);
                ASSERT_EQ(run.play(), GST_STATE_CHANGE_SUCCESS) << run.message(GST_MESSAGE_ERROR);
                std::string got;
                for (GstBuffer* b : frames) {
                    run.push(b);
                    got += run.pull();
                    gst_buffer_unref(b);
                }
                run.end();
                EXPECT_EQ(first_difference(got, expected), "");
                EXPECT_NE(got, raw) << "the filter changed the frames";
            }
}

TEST(GstElement, FilterChangedWhilePlayingAppliesFromTheNextBuffer) {
    GstVideoInfo info;
    gst_video_info_set_format(&info, GST_VIDEO_FORMAT_I420, 97, 55);
    const std::vector<GstBuffer*> frames = random_frames(info, 3, 7);
    // What each filter makes of each frame, from runs that never change it.
    auto through = [&](const std::string& filter) {
        ElementRun run(info, "device=cpu filter=" + filter);
        EXPECT_EQ(run.play(), GST_STATE_CHANGE_SUCCESS);
        std::vector<std::string> out;
        for (GstBuffer* b : frames) {
            run.push(b);
            out.push_back(run.pull());
        }
        return out;
    };
    const std::vector<std::string> sobel = through("sobel"), blur = through("gaussian=sigma=3");
    ASSERT_NE(sobel[1], blur[1]);

    ElementRun run(info, "device=cpu filter=sobel");
    ASSERT_EQ(run.play(), GST_STATE_CHANGE_SUCCESS);
    run.push(frames[0]);
    EXPECT_EQ(run.pull(), sobel[0]);
    g_object_set(run.element(), "filter", "gaussian=sigma=3", nullptr);
    run.push(frames[1]);
    EXPECT_EQ(run.pull(), blur[1]) << "the next buffer has the new filter";
    g_object_set(run.element(), "filter", "identity", nullptr);
    run.push(frames[2]);
    GstVideoFrame in;
    ASSERT_TRUE(gst_video_frame_map(&in, &info, frames[2], GST_MAP_READ));
    const std::string unchanged = packed(in);
    gst_video_frame_unmap(&in);
    EXPECT_EQ(run.pull(), unchanged) << "identity passes the buffer through";
    for (GstBuffer* b : frames) gst_buffer_unref(b);
}

// The filter property is compiled once when set; the engine plans that chain for the negotiated
// frames (and again for new ones) without parsing it again, and reading the property parses nothing.
TEST(GstElement, TheFilterPropertyIsParsedOnceASetting) {
    GstVideoInfo info;
    gst_video_info_set_format(&info, GST_VIDEO_FORMAT_I420, 41, 23);
    const std::vector<GstBuffer*> frames = random_frames(info, 2, 5);
    uint64_t before = filter_parse_count();
    ElementRun run(info, "device=cpu filter=\"boxblur=w/20:1\"");
    ASSERT_EQ(run.play(), GST_STATE_CHANGE_SUCCESS);
    run.push(frames[0]);
    EXPECT_FALSE(run.pull().empty());
    EXPECT_EQ(filter_parse_count() - before, 1u) << "the chain given at start, planned for 41x23";
    before = filter_parse_count();
    g_object_set(run.element(), "filter", "gaussian=sigma=3,sobel", nullptr);
    run.push(frames[1]);
    EXPECT_FALSE(run.pull().empty());
    gchar* now = nullptr;
    g_object_get(run.element(), "filter", &now, nullptr);
    EXPECT_STREQ(now, "gaussian=sigma=3,sobel");
    g_free(now);
    EXPECT_EQ(filter_parse_count() - before, 1u);
    for (GstBuffer* b : frames) gst_buffer_unref(b);
}

TEST(GstElement, ABadFilterIsRefusedWithItsReason) {
    GstVideoInfo info;
    gst_video_info_set_format(&info, GST_VIDEO_FORMAT_NV12, 64, 36);
    const std::vector<GstBuffer*> frames = random_frames(info, 2, 3);
    {
        ElementRun run(info, "device=cpu filter=bogus");
        EXPECT_EQ(run.play(), GST_STATE_CHANGE_FAILURE);
        const std::string error = run.message(GST_MESSAGE_ERROR);
        EXPECT_NE(error.find("unknown filter 'bogus'; available: identity, sobel"), std::string::npos) << error;
    }
    {
        ElementRun run(info, "device=cpu filter=sobel");
        ASSERT_EQ(run.play(), GST_STATE_CHANGE_SUCCESS);
        run.push(frames[0]);
        const std::string first = run.pull();
        g_object_set(run.element(), "filter", "gaussian=sigma=-2", nullptr);
        const std::string warning = run.message(GST_MESSAGE_WARNING);
        EXPECT_NE(warning.find("sigma"), std::string::npos) << warning;
        gchar* now = nullptr;
        g_object_get(run.element(), "filter", &now, nullptr);
        EXPECT_STREQ(now, "sobel") << "the previous filter is kept";
        g_free(now);
        run.push(frames[1]);
        const std::string second = run.pull();
        EXPECT_FALSE(second.empty()) << "the stream goes on";
        EXPECT_EQ(run.message(GST_MESSAGE_ERROR, 0), "");
        // Still sobel: a frame of one value filters to flat edges, so compare with a fresh run.
        ElementRun sobel_run(info, "device=cpu filter=sobel");
        ASSERT_EQ(sobel_run.play(), GST_STATE_CHANGE_SUCCESS);
        sobel_run.push(frames[1]);
        EXPECT_EQ(second, sobel_run.pull());
    }
    for (GstBuffer* b : frames) gst_buffer_unref(b);
}

// Whether gst-launch's output holds errors and every one is rtspsrc's failure to send to a server
// that closed the connection (gst_rtspsrc_try_send, _pause, _close: "Received end-of-file").
bool only_rtspsrc_teardown_errors(const std::string& output) {
    std::istringstream lines(output);
    std::string line;
    int errors = 0;
    bool end_of_file = false;
    while (std::getline(lines, line)) {
        if (line.find("Received end-of-file") != std::string::npos) end_of_file = true;
        if (line.rfind("ERROR:", 0) != 0) continue;
        ++errors;
        if (line.find("GstRTSPSrc") == std::string::npos || line.find("Could not write to resource") == std::string::npos) return false;
    }
    return errors > 0 && end_of_file;
}

TEST(GstLaunchOutput, OnlyRtspsrcTeardownErrorsAreLetThrough) {
    const std::string race =  // as CI's run printed it
        "ERROR: from element /GstPipeline:pipeline0/GstRTSPSrc:rtspsrc0: Could not write to resource.\n"
        "Additional debug info:\n"
        "../gst/rtsp/gstrtspsrc.c(6766): gst_rtspsrc_try_send (): /GstPipeline:pipeline0/GstRTSPSrc:rtspsrc0:\n"
        "Could not send message. (Received end-of-file)\n"
        "ERROR: from element /GstPipeline:pipeline0/GstRTSPSrc:rtspsrc0: Could not write to resource.\n"
        "Additional debug info:\n"
        "../gst/rtsp/gstrtspsrc.c(9240): gst_rtspsrc_pause (): /GstPipeline:pipeline0/GstRTSPSrc:rtspsrc0:\n"
        "Could not send message. (Received end-of-file)\n";
    EXPECT_TRUE(only_rtspsrc_teardown_errors(race));
    EXPECT_FALSE(only_rtspsrc_teardown_errors(""));
    EXPECT_FALSE(only_rtspsrc_teardown_errors(race + "ERROR: from element /GstPipeline:pipeline0/GstVfilter:vfilter0: Internal data stream error.\n"));
    EXPECT_FALSE(only_rtspsrc_teardown_errors(
        "ERROR: from element /GstPipeline:pipeline0/GstRTSPSrc:rtspsrc0: Could not write to resource.\nCould not send message. (Timeout)\n"));
}

// The plugin as GStreamer loads it, in a gst-launch-1.0 of its own.
class GstPluginFromBuild : public ::testing::Test {
protected:
    void SetUp() override {
        if (!fs::exists(kPluginDir + "/libgstvfilter.so")) GTEST_SKIP() << "the plugin is not built in this configuration (sanitizers)";
        if (!have("gst-launch-1.0 --version")) GTEST_SKIP() << "gst-launch-1.0 is missing (gstreamer1.0-tools: scripts/install_deps.sh --test)";
        dir = test::temp_dir();
    }
    test::CommandResult launch(const std::string& pipeline, const std::string& env = "") {
        return test::run_command({"sh", "-c", "GST_PLUGIN_PATH='" + kPluginDir + "' " + env + " gst-launch-1.0 -q " + pipeline}, 120);
    }
    std::string dir;
};

TEST_F(GstPluginFromBuild, InspectDocumentsTheElement) {
    const test::CommandResult r = test::run_command({"sh", "-c", "GST_PLUGIN_PATH='" + kPluginDir + "' gst-inspect-1.0 vfilter"}, 60);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    for (const char* expected : {"filter", "compat", "device", "gpu-id", "kernel", "I420_10LE", "P010_10LE", "changeable in NULL, READY, PAUSED or PLAYING"})
        EXPECT_NE(r.output.find(expected), std::string::npos) << expected << "\n" << r.output;
}

TEST_F(GstPluginFromBuild, RtspCameraThroughTheElementToAnMp4ThatPlays) {
    if (!have("/usr/bin/python3 -c \"import gi; gi.require_version('GstRtspServer', '1.0')\"") || !have("gst-inspect-1.0 avdec_h264") ||
        !have("gst-inspect-1.0 x264enc"))
        GTEST_SKIP() << "needs GStreamer's RTSP server, avdec_h264 and x264enc (scripts/install_deps.sh --test)";
    const int port = test::free_port();
    test::ChildProcess camera({"/usr/bin/python3", kRtspServer, std::to_string(port), "--size", "320x240"}, dir + "/camera.log");
    ASSERT_TRUE(camera.wait_for_log("ready", 20)) << camera.log();
    const std::string out = dir + "/camera.mp4";
    const test::CommandResult r =
        launch("rtspsrc location=rtsp://127.0.0.1:" + std::to_string(port) + "/cam latency=0 ! rtph264depay ! h264parse ! avdec_h264 ! "
               "identity eos-after=60 ! vfilter filter=sobel ! x264enc speed-preset=ultrafast ! mp4mux ! filesink location=" + out);
    // After the EOS, as gst-launch takes the pipeline down, rtspsrc may find that the server has
    // already closed the session's connection and post "Could not send message. (Received
    // end-of-file)" (seen once on a 2-core CI machine): GStreamer's teardown race, after the file
    // was finished. That error alone is let through; any other fails, and the file must play.
    ASSERT_TRUE(r.exit_code == 0 || (r.exit_code == 1 && only_rtspsrc_teardown_errors(r.output))) << r.output << camera.log();
    const test::RecordingCheck c = test::check_recording(out, false);
    EXPECT_TRUE(c.clean) << c.errors;
    EXPECT_GE(c.frames, 55) << "about the 60 frames let through";
}

// GStreamer's leaks tracer, at the end of a gst-launch-1.0 run: every object (buffers, caps,
// pads, the element) made during the run is gone, or it says "Leaks detected".
TEST_F(GstPluginFromBuild, LeaksTracerFindsNothingAliveAfterARun) {
    const test::CommandResult r = launch("videotestsrc num-buffers=30 ! video/x-raw,format=I420_10LE,width=161,height=91 ! "
                                         "vfilter filter=gaussian=sigma=2 ! tee name=t ! queue ! fakesink t. ! queue ! "
                                         "vfilter filter=sobel ! fakesink",
                                         "GST_TRACERS=leaks GST_DEBUG=GST_TRACER:7");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    ASSERT_NE(r.output.find("new format string: object-alive"), std::string::npos) << "the tracer ran: " << r.output;
    EXPECT_EQ(r.output.find("Leaks detected"), std::string::npos) << r.output;
    // Its records of objects still alive (the format line above names the fields with %s).
    EXPECT_FALSE(std::regex_search(r.output, std::regex("object-alive, type-name=\\(string\\)[A-Za-z]"))) << r.output;
}

}  // namespace
}  // namespace vf
