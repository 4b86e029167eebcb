// ClipRecorder (app/serve/watch/clip_recorder.cpp) fed as serve feeds it: an encoder's packets
// offered on the tap with the times their frames arrived, and the watch's events. A clip begins
// at the keyframe at or before its pre-roll, ends at the post-roll after the condition was left,
// or at the cap (and no second clip comes until the condition was left); a folder reached through
// a symbolic link gets no clip and is counted as failed. The gate the watch's events pass through
// lets the stream end its recorder on its own thread (ClipEventGate).
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include "app/serve/watch/clip_recorder.hpp"
#include "app/serve/watch/event_log.hpp"
#include "support/recording_check.hpp"
#include "support/run_command.hpp"

namespace vf {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using Clock = PacketTap::Clock;

constexpr int kClipRate = 10, kClipGop = 10;  // a keyframe a second

// 64x64 MPEG-4 packets of `frames` frames, each a frame interval after the last.
std::vector<AvPacketPtr> encoded(AVCodecContext** encoder, int frames) {
    const AVCodec* codec = avcodec_find_encoder(AV_CODEC_ID_MPEG4);
    AVCodecContext* enc = avcodec_alloc_context3(codec);
    enc->width = enc->height = 64;
    enc->pix_fmt = AV_PIX_FMT_YUV420P;
    enc->time_base = {1, kClipRate};
    enc->framerate = {kClipRate, 1};
    enc->gop_size = kClipGop;
    enc->max_b_frames = 0;
    enc->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    EXPECT_EQ(avcodec_open2(enc, codec, nullptr), 0);
    *encoder = enc;
    std::vector<AvPacketPtr> out;
    AvFramePtr f = make_frame();
    f->width = f->height = 64;
    f->format = AV_PIX_FMT_YUV420P;
    EXPECT_EQ(av_frame_get_buffer(f.get(), 0), 0);
    const auto drain = [&] {
        for (AvPacketPtr p = make_packet(); avcodec_receive_packet(enc, p.get()) == 0; p = make_packet()) out.push_back(std::move(p));
    };
    for (int i = 0; i < frames; ++i) {
        EXPECT_EQ(av_frame_make_writable(f.get()), 0);
        for (int p = 0; p < 3; ++p)
            for (int y = 0; y < (p ? 32 : 64); ++y)
                for (int x = 0; x < (p ? 32 : 64); ++x) f->data[p][y * f->linesize[p] + x] = static_cast<uint8_t>(x * 3 + y + i * 7 + p * 50);
        f->pts = i;
        EXPECT_EQ(avcodec_send_frame(enc, f.get()), 0);
        drain();
    }
    avcodec_send_frame(enc, nullptr);
    drain();
    return out;
}

class ClipRecorderTest : public ::testing::Test {
protected:
    void SetUp() override {
        dir = test::temp_dir();
        packets = encoded(&encoder, 200);
        ASSERT_EQ(packets.size(), 200u);
        tap = std::make_shared<PacketTap>();
        tap->open(*encoder);
        t0 = Clock::now();
    }
    void TearDown() override { avcodec_free_context(&encoder); }
    std::unique_ptr<ClipRecorder> recorder(double pre_roll_s, double post_roll_s, double max_s, const std::string& folder) {
        StreamClipFields clips;
        clips.on = {watch::Condition::Dark};
        clips.pre_roll_s = pre_roll_s;
        clips.post_roll_s = post_roll_s;
        clips.max_s = max_s;
        return std::make_unique<ClipRecorder>("cam", clips, watch::WatchSettings{}, ClipPlace{folder, ".mp4"}, tap, *tap);
    }
    // Frames [from, to) offered, each arriving at its time after t0; then a pause for the
    // recorder to take them (events sent after it come after them).
    void offer(int from, int to) {
        for (int i = from; i < to; ++i) tap->offer(packets[i].get(), at(i / double(kClipRate)));
        std::this_thread::sleep_for(300ms);
    }
    Clock::time_point at(double s) const { return t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s)); }
    void event(ClipRecorder& r, bool entered, double since_s, double time_s) {
        watch::WatchEvent e;
        e.stream = "cam";
        e.kind = watch::Condition::Dark;
        e.entered = entered;
        e.since = EventLog::steady_seconds(at(since_s));
        e.time = EventLog::steady_seconds(at(time_s));
        r.on_event(e);
        std::this_thread::sleep_for(300ms);
    }
    std::vector<std::string> clips_in(const std::string& folder) const {
        std::vector<std::string> out;
        std::error_code e;
        for (const auto& f : fs::directory_iterator(folder, e)) out.push_back(f.path().string());
        std::sort(out.begin(), out.end());
        return out;
    }
    std::string dir;
    AVCodecContext* encoder = nullptr;
    std::vector<AvPacketPtr> packets;
    std::shared_ptr<PacketTap> tap;
    Clock::time_point t0;
};

TEST_F(ClipRecorderTest, AClipHoldsItsPreRollFromAKeyframeAndEndsAtItsPostRoll) {
    const std::string folder = dir + "/clips/cam";
    auto r = recorder(2.5, 1, 300, folder);
    offer(0, 50);
    event(*r, true, 4.0, 4.9);  // the picture went dark at 4 s, entered after its hold
    offer(50, 80);
    EXPECT_TRUE(r->describe()["recording"].get<bool>());
    event(*r, false, 6.0, 7.05);  // left just after 7 s: the clip ends after 8 s
    offer(80, 120);
    const std::vector<std::string> clips = clips_in(folder);
    ASSERT_EQ(clips.size(), 1u);
    // From the keyframe at or before 1.5 s (1 s, frame 10) to the last frame at or before 8 s.
    const test::RecordingCheck check = test::check_recording(clips[0]);
    EXPECT_TRUE(check.clean) << check.errors;
    EXPECT_EQ(check.frames, 71);
    const test::CommandResult keys = test::run_command({"ffprobe", "-v", "error", "-select_streams", "v", "-show_entries",
                                                        "frame=key_frame", "-of", "csv=p=0", clips[0]});
    EXPECT_EQ(keys.output.substr(0, 1), "1") << keys.output;
    EXPECT_EQ(r->describe()["written"], 1);
    EXPECT_FALSE(r->describe()["recording"].get<bool>());
}

TEST_F(ClipRecorderTest, TheCapEndsAClipAndNoneComesAgainUntilTheConditionWasLeft) {
    const std::string folder = dir + "/clips/cam";
    auto r = recorder(0, 1, 3, folder);
    offer(0, 50);
    event(*r, true, 4.05, 4.9);
    offer(50, 120);  // still dark at 12 s: the clip ended just after 7 s, the cap
    ASSERT_EQ(clips_in(folder).size(), 1u);
    EXPECT_EQ(test::check_recording(clips_in(folder)[0]).frames, 31) << "from the keyframe at 4 s to 7 s";
    event(*r, true, 12.0, 12.0);  // entered again while capped: nothing new
    offer(120, 130);
    EXPECT_EQ(clips_in(folder).size(), 1u);
    event(*r, false, 13.0, 13.0);
    event(*r, true, 14.0, 14.0);  // a new condition after it was left: a new clip
    offer(130, 200);  // the cap again, 17 s
    EXPECT_EQ(clips_in(folder).size(), 2u);
    EXPECT_EQ(r->describe()["written"], 2);
    EXPECT_EQ(r->describe()["failed"], 0);
}

// A partial clip that a killed run left (untouched for 20 minutes) is removed when the next run's
// first clip starts; one written a moment ago (another process's clip in progress, in a folder
// the shards share) and a file not named as clips are kept.
TEST_F(ClipRecorderTest, APartialClipOfAKilledRunIsRemovedAndNothingElse) {
    const std::string folder = dir + "/clips/cam";
    fs::create_directories(folder);
    const std::string stale = folder + "/20261129T101500Z-dark.mp4.partial", fresh = folder + "/20261129T101600Z-dark.mp4.partial",
                      other = folder + "/notes.mp4.partial";
    for (const std::string& f : {stale, fresh, other}) std::ofstream(f) << "bytes";
    for (const std::string& f : {stale, other})
        fs::last_write_time(f, fs::file_time_type::clock::now() - std::chrono::minutes(20));
    auto r = recorder(1, 1, 300, folder);
    offer(0, 30);
    event(*r, true, 2.0, 2.5);
    offer(30, 60);
    EXPECT_FALSE(fs::exists(stale));
    EXPECT_TRUE(fs::exists(fresh));
    EXPECT_TRUE(fs::exists(other));
}

TEST_F(ClipRecorderTest, AFolderThroughASymbolicLinkGetsNoClip) {
    fs::create_directories(dir + "/elsewhere");
    fs::create_directories(dir + "/clips");
    fs::create_symlink(dir + "/elsewhere", dir + "/clips/cam");
    auto r = recorder(1, 1, 300, dir + "/clips/cam");
    offer(0, 30);
    event(*r, true, 2.0, 2.5);
    offer(30, 40);
    EXPECT_TRUE(clips_in(dir + "/elsewhere").empty());
    EXPECT_EQ(r->describe()["failed"], 1);
    EXPECT_EQ(r->describe()["written"], 0);
}

// clips/ itself a link: nothing is made where it points (not even the stream's folder), and a
// recording's folder that is not there is not made either.
TEST_F(ClipRecorderTest, NoFolderIsMadeThroughALinkedClipsFolderNorAMissingRecordingFolder) {
    fs::create_directories(dir + "/elsewhere");
    fs::create_directories(dir + "/rec");
    fs::create_symlink(dir + "/elsewhere", dir + "/rec/clips");
    auto linked = recorder(1, 1, 300, dir + "/rec/clips/cam");
    auto missing = recorder(1, 1, 300, dir + "/gone/clips/cam");
    offer(0, 30);
    event(*linked, true, 2.0, 2.5);
    event(*missing, true, 2.0, 2.5);
    offer(30, 40);
    EXPECT_FALSE(fs::exists(dir + "/elsewhere/cam")) << "a folder was made through clips/, a link";
    EXPECT_TRUE(fs::is_empty(dir + "/elsewhere"));
    EXPECT_FALSE(fs::exists(dir + "/gone"));
    EXPECT_EQ(linked->describe()["failed"], 1);
    EXPECT_EQ(missing->describe()["failed"], 1);
}

// A clip is written under NAME.partial: one never finished is removed, and a finished one never
// replaces a file already at its name.
TEST_F(ClipRecorderTest, AClipIsPartialUntilFinishedAndNeverReplacesAFile) {
    const PacketFormat format(*encoder);
    {
        ClipFile cut(dir + "/cut.mp4", format);
        for (int i = 0; i < 15; ++i) cut.write(*packets[i]);
        EXPECT_TRUE(fs::exists(dir + "/cut.mp4.partial"));
        EXPECT_FALSE(fs::exists(dir + "/cut.mp4")) << "not finished: it never looks finished";
    }
    EXPECT_FALSE(fs::exists(dir + "/cut.mp4.partial")) << "a clip not finished is removed";
    EXPECT_FALSE(fs::exists(dir + "/cut.mp4"));
    std::ofstream(dir + "/taken.mp4") << "someone else's";
    ClipFile clip(dir + "/taken.mp4", format);
    for (int i = 0; i < 15; ++i) clip.write(*packets[i]);
    EXPECT_EQ(clip.finish(), dir + "/taken-2.mp4");
    std::ifstream kept(dir + "/taken.mp4");
    EXPECT_EQ(std::string(std::istreambuf_iterator<char>(kept), {}), "someone else's");
    EXPECT_FALSE(fs::exists(dir + "/taken.mp4.partial"));
    EXPECT_EQ(test::check_recording(dir + "/taken-2.mp4").frames, 15);
}

}  // namespace
}  // namespace vf

namespace vf {
namespace {

// The gate between the watchers' thread and a stream's recorder: closing it waits for an event
// being passed (so that the recorder can end on the closing thread), and nothing passes after.
TEST_F(ClipRecorderTest, TheEventGateClosesOnceNoEventIsBeingPassedAndPassesNoneAfter) {
    std::mutex m;
    std::condition_variable cv;
    bool inside = false, let_go = false;
    std::atomic<int> passed{0};
    ClipEventGate gate([&](const watch::WatchEvent&) {
        std::unique_lock<std::mutex> lock(m);
        inside = true;
        cv.notify_all();
        cv.wait(lock, [&] { return let_go; });
        ++passed;
    });
    std::thread watchers([&] { gate.pass(watch::WatchEvent{}); });
    {
        std::unique_lock<std::mutex> lock(m);
        cv.wait(lock, [&] { return inside; });
    }
    std::atomic<bool> closed{false};
    std::thread owner([&] {
        gate.close();
        closed = true;
    });
    std::this_thread::sleep_for(200ms);
    EXPECT_FALSE(closed) << "close() returned while an event was still being passed";
    {
        std::lock_guard<std::mutex> lock(m);
        let_go = true;
    }
    cv.notify_all();
    owner.join();
    watchers.join();
    EXPECT_TRUE(closed);
    EXPECT_EQ(passed, 1);
    gate.pass(watch::WatchEvent{});
    EXPECT_EQ(passed, 1) << "an event passed after close()";
}

}  // namespace
}  // namespace vf
