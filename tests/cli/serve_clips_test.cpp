// Clips around events (app/serve/watch/clip_recorder.hpp, docs/serve.md "Clips around events"),
// run as a user runs serve: a camera whose picture goes black for a while gets one clip that
// begins at a keyframe, holds the pre-roll before the picture went black, goes on until the
// post-roll after it was lit again, decodes cleanly, is listed and counted; a camera whose picture
// never goes black gets none. The clip fields are checked at the door.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "app/serve/serve_config.hpp"
#include "app/serve/watch/clip_recorder.hpp"
#include "serve_fixture.hpp"

namespace vf {
namespace {

using namespace serve_fixture;
namespace fs = std::filesystem;

constexpr int kInputRate = 10;  // frames a second of the inputs

class ServeClips : public Serve {
protected:
    // testsrc2 for `lit_s`, black for `dark_s`, testsrc2 again for `lit_again_s`, at kInputRate.
    std::string lit_black_lit(const std::string& name, int lit_s, int dark_s, int lit_again_s) {
        const std::string path = dir + "/" + name;
        const std::string size = "s=160x90:r=" + std::to_string(kInputRate);
        std::vector<std::string> args = {"ffmpeg", "-v", "error", "-y"};
        int parts = 0;
        for (const auto& [source, seconds] : {std::pair<std::string, int>{"testsrc2=", lit_s}, {"color=c=black:", dark_s}, {"testsrc2=", lit_again_s}})
            if (seconds > 0) {
                args.insert(args.end(), {"-f", "lavfi", "-i", source + size + ":d=" + std::to_string(seconds)});
                ++parts;
            }
        std::string inputs;
        for (int i = 0; i < parts; ++i) inputs += "[" + std::to_string(i) + ":v]";
        args.insert(args.end(), {"-filter_complex", inputs + "concat=n=" + std::to_string(parts) + ":v=1:a=0,format=yuv420p", "-c:v",
                                 "ffv1", path});
        const CommandResult made = run_command(args);
        EXPECT_EQ(made.exit_code, 0) << made.output;
        return path;
    }
    // The clips GET /streams/NAME/recordings lists.
    std::vector<std::string> clips_listed(int port, const std::string& name) {
        std::vector<std::string> out;
        const nlohmann::json r = body_json(api_request(port, "GET", "/streams/" + name + "/recordings"));
        if (r.is_object() && r.contains("recordings"))
            for (const nlohmann::json& f : r["recordings"])
                if (f.value("clip", false)) out.push_back(f["file"]);
        return out;
    }
};

// Each frame's mean luma, in order, and whether the first frame is a keyframe.
std::vector<double> luma_of_frames(const std::string& path) {
    const CommandResult r = run_command({"ffmpeg", "-v", "error", "-i", path, "-vf",
                                         "signalstats,metadata=mode=print:key=lavfi.signalstats.YAVG:file=-", "-f", "null", "-"});
    std::vector<double> out;
    std::istringstream lines(r.output);
    for (std::string line; std::getline(lines, line);)
        if (const size_t at = line.find("lavfi.signalstats.YAVG="); at != std::string::npos) out.push_back(std::atof(line.c_str() + at + 23));
    return out;
}

TEST_F(ServeClips, APictureGoingBlackGivesOneClipFromAKeyframeWithItsPreRollAndPostRoll) {
    // Black from 3 s to 5 s of 10 s: dark is entered about 4 s in (its hold) and left about 7 s
    // in; the clip ends a second after that, before the input does.
    const std::string changing = lit_black_lit("changing.mkv", 3, 2, 5);
    const std::string lit = lit_black_lit("lit.mkv", 10, 0, 0);
    fs::create_directories(dir + "/rec");
    write("streams.yaml", "streams:\n"
                          "  - {name: cam, input: " + changing + ", output: " + dir + "/rec/cam.mp4, realtime: true, "
                          "clips.on: 'dark, covered', clips.pre_roll_s: 2, clips.post_roll_s: 1, clips.only: true}\n"
                          "  - {name: calm, input: " + lit + ", output: " + dir + "/rec/calm.mp4, realtime: true, clips.on: dark}\n");
    auto p = serve({"--api-port", "0"});
    const int port = api_port(*p);
    ASSERT_GT(port, 0) << p->log();
    std::vector<std::string> listed;
    for (int i = 0; i < 300 && listed.empty(); ++i) {
        listed = clips_listed(port, "cam");
        if (listed.empty()) std::this_thread::sleep_for(50ms);
    }
    ASSERT_EQ(listed.size(), 1u) << p->log();
    EXPECT_EQ(listed[0].rfind("clips/cam/", 0), 0u) << listed[0];
    EXPECT_NE(listed[0].find("-dark.mp4"), std::string::npos) << listed[0];
    const std::string clip = dir + "/rec/" + listed[0];
    ASSERT_TRUE(fs::exists(clip)) << clip;
    // (a) It begins at a keyframe.
    const CommandResult keys = run_command({"ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "frame=key_frame",
                                            "-of", "csv=p=0", clip});
    EXPECT_EQ(keys.output.substr(0, 1), "1") << keys.output;
    // (c) It decodes cleanly, its timestamps in order.
    const RecordingCheck check = check_recording(clip);
    EXPECT_TRUE(check.clean) << check.errors;
    const CommandResult decoded = run_command({"ffmpeg", "-v", "error", "-i", clip, "-f", "null", "-"});
    EXPECT_EQ(decoded.exit_code, 0);
    EXPECT_EQ(decoded.output, "");
    // (b) At least the pre-roll of lit frames before the first black one, then the black ones,
    // then lit frames again (the leave hold and the post-roll), and it ended before the input.
    const std::vector<double> luma = luma_of_frames(clip);
    ASSERT_FALSE(luma.empty());
    size_t first_black = 0;
    while (first_black < luma.size() && luma[first_black] > 40) ++first_black;
    EXPECT_GE(first_black, static_cast<size_t>(2 * kInputRate)) << "the pre-roll: 2 s before the picture went black";
    size_t black = first_black;
    while (black < luma.size() && luma[black] < 28) ++black;
    EXPECT_GE(black - first_black, static_cast<size_t>(2 * kInputRate - 1)) << "the black part whole";
    EXPECT_GE(luma.size() - black, static_cast<size_t>(2 * kInputRate)) << "lit again: the leave hold and the post-roll";
    EXPECT_LT(luma.size(), static_cast<size_t>(10 * kInputRate - 3)) << "the clip ended at its post-roll, before the input did";
    EXPECT_EQ(check.frames, static_cast<int>(luma.size()));
    // clips.only: the output itself was encoded for the clips and not written.
    EXPECT_FALSE(fs::exists(dir + "/rec/cam.mp4"));
    const nlohmann::json cam = stream(port, "cam");
    ASSERT_TRUE(cam.contains("clips")) << cam.dump();
    EXPECT_EQ(cam["clips"]["written"], 1);
    EXPECT_EQ(cam["clips"]["failed"], 0);
    EXPECT_EQ(cam["clips"]["last"], listed[0]);
    // (d) The picture that never went black: no clip, its own recording written.
    ASSERT_TRUE(wait_state(port, "calm", "stopped")) << p->log();
    EXPECT_TRUE(clips_listed(port, "calm").empty());
    EXPECT_FALSE(fs::exists(dir + "/rec/clips/calm"));
    EXPECT_TRUE(fs::exists(dir + "/rec/calm.mp4"));
    const std::string m = api_request(port, "GET", "/metrics");
    EXPECT_NE(m.find("vfilter_clips_written_total{stream=\"cam\"} 1"), std::string::npos) << m;
    EXPECT_NE(m.find("vfilter_clips_written_total{stream=\"calm\"} 0"), std::string::npos) << m;
    EXPECT_NE(m.find("vfilter_clips_failed_total{stream=\"cam\"} 0"), std::string::npos) << m;
    EXPECT_EQ(clips_listed(port, "cam").size(), 1u) << "one clip: the input ended with no second event";
}

// A stream added through the API is listed as one of the file is: its clips and its recording
// while it serves, and no longer once it was removed through the API.
TEST_F(ServeClips, AStreamAddedThroughTheApiHasItsClipsListedUntilRemoved) {
    const std::string changing = lit_black_lit("api.mkv", 2, 2, 3);
    fs::create_directories(dir + "/rec");
    write("streams.yaml", "streams: []\n");
    auto p = serve({"--api-port", "0"});
    const int port = api_port(*p);
    ASSERT_GT(port, 0) << p->log();
    const nlohmann::json entry = {{"name", "added"}, {"input", changing}, {"output", dir + "/rec/added.mp4"}, {"realtime", true},
                                  {"clips.on", "dark"}, {"clips.pre_roll_s", 1}, {"clips.post_roll_s", 1}};
    ASSERT_EQ(status_of(api_request(port, "POST", "/streams", entry.dump())), 201) << p->log();
    ASSERT_TRUE(wait_state(port, "added", "stopped")) << p->log();
    const std::string answer = api_request(port, "GET", "/streams/added/recordings");
    ASSERT_EQ(status_of(answer), 200) << answer;
    const std::vector<std::string> listed = clips_listed(port, "added");
    ASSERT_EQ(listed.size(), 1u) << answer;
    EXPECT_TRUE(fs::exists(dir + "/rec/" + listed[0])) << listed[0];
    bool recording_listed = false;
    const nlohmann::json body = body_json(answer);
    for (const nlohmann::json& f : body["recordings"]) recording_listed = recording_listed || f["file"] == "added.mp4";
    EXPECT_TRUE(recording_listed) << answer;
    ASSERT_EQ(status_of(api_request(port, "DELETE", "/streams/added")), 200);
    EXPECT_EQ(status_of(api_request(port, "GET", "/streams/added/recordings")), 404) << "a stream removed is no longer listed";
}

// serve: clips-memory bounds the pre-roll the process's streams hold together: each stream with clips
// reserves its ring's bound when it starts; one beyond runs and records without clips and says
// why (one with clips.only fails, saying so), and a stream that leaves gives its share back.
TEST_F(ServeClips, AStreamBeyondClipsMemoryRunsWithoutClipsAndSaysWhy) {
    settings["clips-memory"] = "60M";  // one ring's bound, not two
    const std::string input = lit_black_lit("short.mkv", 1, 0, 0);
    fs::create_directories(dir + "/rec");
    write("streams.yaml", "streams:\n"
                          "  - {name: first, input: " + input + ", output: " + dir + "/rec/first.mp4, clips.on: dark}\n"
                          "  - {name: second, input: " + input + ", output: " + dir + "/rec/second.mp4, clips.on: dark}\n"
                          "  - {name: only, input: " + input + ", output: " + dir + "/rec/only.mp4, clips.on: dark, clips.only: true}\n");
    auto p = serve({"--api-port", "0"});
    const int port = api_port(*p);
    ASSERT_GT(port, 0) << p->log();
    ASSERT_TRUE(wait_state(port, "second", "stopped")) << p->log();
    const nlohmann::json first = stream(port, "first"), second = stream(port, "second");
    ASSERT_TRUE(first.contains("clips")) << first.dump();
    EXPECT_FALSE(first["clips"].contains("refused")) << first.dump();
    EXPECT_EQ(first["clips"]["failed"], 0);
    ASSERT_TRUE(second.contains("clips")) << second.dump();
    ASSERT_TRUE(second["clips"].contains("refused")) << second.dump();
    EXPECT_NE(second["clips"]["refused"].get<std::string>().find("serve: clips-memory"), std::string::npos) << second.dump();
    EXPECT_TRUE(fs::exists(dir + "/rec/second.mp4")) << "it recorded all the same";
    // clips.only, which would record nothing: failed, saying why.
    ASSERT_TRUE(wait_state(port, "only", "failed")) << p->log();
    EXPECT_NE(stream(port, "only")["last_error"].get<std::string>().find("serve: clips-memory"), std::string::npos)
        << stream(port, "only").dump();
    // The first stream gone, a stream added takes its share.
    ASSERT_EQ(status_of(api_request(port, "DELETE", "/streams/first")), 200);
    const nlohmann::json entry = {{"name", "third"}, {"input", input}, {"output", dir + "/rec/third.mp4"}, {"clips.on", "dark"}};
    ASSERT_EQ(status_of(api_request(port, "POST", "/streams", entry.dump())), 201) << p->log();
    const nlohmann::json third = stream(port, "third");
    ASSERT_TRUE(third.contains("clips")) << third.dump();
    EXPECT_FALSE(third["clips"].contains("refused")) << third.dump();
    EXPECT_TRUE(third["clips"].contains("written")) << third.dump();
    const std::string m = api_request(port, "GET", "/metrics");
    const std::string reserved = "\nvfilter_clips_memory_reserved_bytes ";
    const size_t at = m.find(reserved);
    ASSERT_NE(at, std::string::npos) << m;
    EXPECT_NEAR(std::atof(m.c_str() + at + reserved.size()), static_cast<double>(ClipRecorder::kRingBytes), 1e3) << "the third's alone";
}

// An entry's fields through the operator's door (the YAML file), read as the option table reads them.
StreamConfig clip_entry_with(const std::string& fields, const std::string& output = "rec/c.mp4") {
    return parse_serve_config("streams:\n  - {name: c, input: x.mp4, output: '" + output + "'" + fields + "}\n", "streams.yaml").streams.at(0);
}

TEST(ServeClipFields, AreTypedAndCheckedAtTheDoor) {
    const StreamConfig ok = clip_entry_with(", clips.on: 'dark,motion', clips.pre_roll_s: 30, clips.post_roll_s: 0, clips.max_s: 60, "
                                       "clips.only: true, retain: 7d");
    EXPECT_EQ(ok.clips.on, (std::vector<watch::Condition>{watch::Condition::Dark, watch::Condition::Motion}));
    EXPECT_EQ(ok.clips.pre_roll_s, 30);
    EXPECT_EQ(ok.clips.post_roll_s, 0);
    EXPECT_EQ(ok.clips.max_s, 60);
    EXPECT_TRUE(ok.clips.only);
    EXPECT_TRUE(ok.options.output.packets_only) << "encoded for the clips, not written";
    EXPECT_FALSE(clip_entry_with("").clips.enabled()) << "off by default";
    EXPECT_FALSE(clip_entry_with(", clips.on: covered").options.output.packets_only) << "recorded too unless clips.only";
    EXPECT_EQ(field_type("clips.pre_roll_s"), FieldType::Number);
    EXPECT_EQ(field_type("clips.only"), FieldType::Boolean);
    const std::pair<const char*, const char*> bad[] = {
        {", clips.on: foggy", "clips.on"},
        {", clips.on: ''", "clips.on"},
        {", clips.on: 5", "clips.on"},
        {", clips.on: dark, clips.pre_roll_s: 31", "clips.pre_roll_s"},
        {", clips.on: dark, clips.pre_roll_s: -1", "clips.pre_roll_s"},
        {", clips.on: dark, clips.post_roll_s: soon", "clips.post_roll_s"},
        {", clips.on: dark, clips.max_s: 0", "clips.max_s"},
        {", clips.on: dark, clips.only: 3", "clips.only"},
        {", clips.pre_roll_s: 3", "clips.on"},
        {", clips.on: dark, watch: false", "watch"},
        {", clips.on: dark, clips.only: true, segment: 60", "clips.only"},
        {", retain: 7d", "segment"},
    };
    for (const auto& [field, named] : bad) {
        try {
            clip_entry_with(field);
            ADD_FAILURE() << field << " was taken";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find(named), std::string::npos) << field << ": " << e.what();
            EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << "one line";
        }
    }
    for (const char* output : {"null", "rtsp://127.0.0.1/x", "rec/c.m3u8"}) {
        try {
            clip_entry_with(", clips.on: dark", output);
            ADD_FAILURE() << output << " was taken";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("clips.on"), std::string::npos) << e.what();
        }
    }
    // A single run does not watch, so it writes no clips.
    EXPECT_THROW(stream_options_from_fields({{"input", "x.mp4"}, {"output", "y.mp4"}, {"clips.on", "dark"}}), Error);
}

}  // namespace
}  // namespace vf
