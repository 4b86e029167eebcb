// The config file's serve: block (app/serve/serve_settings.hpp): every key typed and
// range-checked, refused with the file, line:column and key; the environment over the file; and
// what serve chooses by default where streams decode: cameras by load, files on NVDEC.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <string>
#include <tuple>

#include <nlohmann/json.hpp>

#include "app/serve/decoder_balance.hpp"
#include "app/serve/serve_config.hpp"
#include "app/serve/serve_settings.hpp"
#include "app/serve/stream_service.hpp"
#include "common/error.hpp"
#include "support/run_command.hpp"

namespace vf {
namespace {

using namespace test;

std::string refused(const std::string& yaml) {
    try {
        parse_serve_settings(yaml, "streams.yaml");
    } catch (const Error& e) {
        EXPECT_EQ(e.category(), ErrorCategory::Usage);
        return e.what();
    }
    return "(accepted)";
}

TEST(ServeSettings, ReadsEveryKeyTyped) {
    const ServeSettings s = parse_serve_settings(R"(
streams: []
serve:
  media-root: /srv/media
  output-hosts: [a.example, b.example]
  api-hosts: vfilter.ns.svc, vfilter
  max-streams: 40
  gpu-frames: 8
  min-free: 5%
  watch-config: 2.5
  stats-json: /tmp/s.json
  decoder-placement: load
  nvdec-capacity: 90
  nvdec-slots: 32
  nvdec-share: on
  clips-memory: 256M
)", "streams.yaml");
    EXPECT_EQ(s.media_root, "/srv/media");
    EXPECT_EQ(s.output_hosts, (std::vector<std::string>{"a.example", "b.example"}));
    EXPECT_EQ(s.api_hosts, (std::vector<std::string>{"vfilter.ns.svc", "vfilter"}));
    EXPECT_EQ(s.max_streams, 40);
    EXPECT_EQ(s.gpu_frames, 8);
    EXPECT_DOUBLE_EQ(s.min_free.fraction, 0.05);
    EXPECT_DOUBLE_EQ(s.watch_config_s, 2.5);
    EXPECT_EQ(s.stats_json, "/tmp/s.json");
    EXPECT_EQ(s.decoder_placement, DecoderPlacementRule::Load);
    EXPECT_DOUBLE_EQ(s.nvdec_capacity, 90);
    EXPECT_EQ(s.nvdec_slots, 32);
    EXPECT_TRUE(s.nvdec_share);
    EXPECT_EQ(s.clips_memory, int64_t(256) << 20);
    const ServeSettings none = parse_serve_settings("streams: []\n", "streams.yaml");
    EXPECT_EQ(none.max_streams, 512);
    EXPECT_EQ(none.decoder_placement, DecoderPlacementRule::ByKind) << "cameras by load, files on NVDEC";
    EXPECT_FALSE(none.nvdec_share);
    EXPECT_TRUE(none.watch) << "streams watch themselves unless told";
    EXPECT_EQ(none.clips_memory, int64_t(1) << 30);
    EXPECT_FALSE(parse_serve_settings("serve:\n  watch: off\n", "s.yaml").watch);
    EXPECT_NO_THROW(parse_serve_config("serve:\n  max-streams: 3\nstreams:\n  - {name: a, input: x, output: 'null'}\n", "s.yaml"))
        << "the streams' reader leaves the serve: block to its own";
}

TEST(ServeSettings, ABadKeyOrValueIsRefusedWithItsLine) {
    const std::string type = refused("streams: []\nserve:\n  max-streams: lots\n");
    EXPECT_NE(type.find("streams.yaml:3:16: serve: max-streams: 'lots': expected a whole number from 1 to 100000"), std::string::npos)
        << type;
    const std::string range = refused("streams: []\nserve:\n  gpu-frames: 1\n");
    EXPECT_NE(range.find("streams.yaml:3:15: serve: gpu-frames: '1': expected a whole number from 2 to 1024"), std::string::npos)
        << range;
    const std::string unknown = refused("streams: []\nserve:\n  max-streams: 4\n  batch-wait: 5\n");
    EXPECT_NE(unknown.find("streams.yaml:4:3: serve: unknown key 'batch-wait' (expected media-root, "), std::string::npos) << unknown;
    EXPECT_NE(unknown.find("nvdec-share, watch, clips-memory)"), std::string::npos) << "the allowed list is whole: " << unknown;
    for (const std::string& key : serve_setting_keys()) EXPECT_NE(unknown.find(key), std::string::npos) << key;
    EXPECT_NE(refused("serve:\n  decoder-placement: cpu\n").find("serve: decoder-placement: 'cpu': expected auto, nvdec or load"),
              std::string::npos);
    EXPECT_NE(refused("serve:\n  nvdec-share: maybe\n").find("expected true or false"), std::string::npos);
    EXPECT_NE(refused("serve:\n  watch: sometimes\n").find("serve: watch: 'sometimes': expected true or false"), std::string::npos);
    EXPECT_NE(refused("serve:\n  min-free: 150%\n").find("such as 5%"), std::string::npos);
    EXPECT_NE(refused("serve:\n  clips-memory: lots\n").find("serve: clips-memory: 'lots': expected a size such as 1G or 512M"),
              std::string::npos);
    EXPECT_NE(refused("serve:\n  watch-config: -1\n").find("expected a number from 0 to 86400"), std::string::npos);
    EXPECT_NE(refused("serve:\n  media-root: {a: b}\n").find("serve: media-root: expected a single value"), std::string::npos);
    EXPECT_NE(refused("serve: [1, 2]\n").find("streams.yaml:1:8: serve: must be a mapping"), std::string::npos);
}

// Deployments set some of the block through the environment (docs/kubernetes.md): the variable
// wins over the file, and a bad one is refused by its name.
TEST(ServeSettings, TheEnvironmentWinsOverTheFile) {
    ServeSettings s = parse_serve_settings("serve:\n  recordings-root: /a\n  watch-config: 5\n  max-streams: 7\n", "s.yaml");
    const std::map<std::string, std::string> env = {{"VFILTER_RECORDINGS_ROOT", "/b"}, {"VFILTER_STATS_JSON", "/b/s.json"}};
    apply_serve_environment(s, [&](const char* name) {
        const auto it = env.find(name);
        return it == env.end() ? nullptr : it->second.c_str();
    });
    EXPECT_EQ(s.recordings_root, "/b");
    EXPECT_EQ(s.stats_json, "/b/s.json");
    EXPECT_DOUBLE_EQ(s.watch_config_s, 5) << "unset in the environment: the file's";
    EXPECT_EQ(s.max_streams, 7);
    try {
        apply_serve_environment(s, [](const char* name) { return std::string(name) == "VFILTER_WATCH_CONFIG" ? "soon" : nullptr; });
        ADD_FAILURE() << "a bad variable was taken";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("VFILTER_WATCH_CONFIG 'soon': expected a number"), std::string::npos) << e.what();
    }
}

// serve itself refuses a bad block before anything starts: exit 2, the line named, no output.
TEST(ServeSettings, ServeRefusesABadBlockBeforeAnythingStarts) {
    const std::string dir = temp_dir();
    std::ofstream(dir + "/s.yaml") << "streams:\n  - {name: a, input: 'pattern://?size=64x48&rate=25', output: " << dir
                                    << "/a.mkv, frames: 5}\nserve:\n  max-previews: 1000\n";
    const CommandResult r = run_vfilter({"serve", "--config", dir + "/s.yaml"});
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("s.yaml:4:17: serve: max-previews: '1000': expected a whole number from 1 to 256"), std::string::npos)
        << r.output;
    EXPECT_FALSE(file_exists(dir + "/a.mkv"));
}

// Streams that may decode on NVDEC, placed with serve's default settings (and capacities small
// enough to fill): files read as fast as they decode all go to NVDEC, even beyond its capacity
// (the CPU-decoded ones would finish last); cameras (here files paced as live) by load, NVDEC and
// the CPU filling together. Nominal where no GPU answers, as GET /streams shows it.
TEST(ServeSettings, ByDefaultFilesDecodeOnNvdecAndCamerasByLoad) {
    ServeSettings settings;
    settings.nvdec_capacity = 4;
    settings.cpu_decode_capacity = 4;
    StreamService service(2);
    service.set_gpus({0}, decoder_capacity_of(settings));
    const auto add = [&](const std::string& name, bool paced) {
        service.add(make_stream_config(name,
                                       {{"input", "/nonexistent/" + name + ".mp4"}, {"output", "null"}, {"wait-for-input", "false"},
                                        {"realtime", paced ? "true" : "false"}},
                                       {}));
    };
    for (int i = 0; i < 6; ++i) add("file" + std::to_string(i), false);
    for (int i = 0; i < 4; ++i) add("cam" + std::to_string(i), true);
    std::map<std::string, int> files, cameras;
    for (const nlohmann::json& s : service.list()) {
        const std::string name = s["name"], decoder = s["decoding"]["decoder"];
        ++(name.rfind("file", 0) == 0 ? files : cameras)[decoder];
    }
    EXPECT_EQ(files["nvdec"], 6) << "every file on NVDEC";
    EXPECT_EQ(files["cpu"], 0);
    EXPECT_EQ(cameras["cpu"], 4) << "NVDEC is over its capacity: the cameras go to the CPU decoders";
    // The same cameras alone: NVDEC takes them until half full, then both sides fill together.
    StreamService cameras_only(2);
    cameras_only.set_gpus({0}, decoder_capacity_of(settings));
    for (int i = 0; i < 6; ++i)
        cameras_only.add(make_stream_config("cam" + std::to_string(i),
                                            {{"input", "/nonexistent/c.mp4"}, {"output", "null"}, {"wait-for-input", "false"},
                                             {"realtime", "true"}},
                                            {}));
    std::map<std::string, int> on;
    for (const nlohmann::json& s : cameras_only.list()) ++on[s["decoding"]["decoder"].get<std::string>()];
    EXPECT_EQ(on["nvdec"], 3);
    EXPECT_EQ(on["cpu"], 3);
}


// The same rule in DecoderBalance: serve's default capacity places a camera (paced) by load, with
// moves, and a file on NVDEC beyond its capacity, without; `nvdec` and `load` put every stream the
// one way, whatever its kind.
TEST(ServeSettings, TheDefaultCapacityPlacesByTheStreamsKind) {
    ServeSettings settings;
    settings.nvdec_capacity = 2;
    settings.cpu_decode_capacity = 2;
    DecoderBalance balance(decoder_capacity_of(settings), 16, {0});
    for (int i = 0; i < 3; ++i) EXPECT_TRUE(balance.place("file" + std::to_string(i), 0, 1, kNvdecFeederCoresVfilter, false).nvdec);
    const DecoderPlacement file = *balance.placement("file2");
    EXPECT_TRUE(file.over_capacity);
    EXPECT_NE(file.why.find("a file: NVDEC decodes it fastest"), std::string::npos) << file.why;
    EXPECT_FALSE(balance.place("cam", 0, 1, kNvdecFeederCoresVfilter, true).nvdec) << "NVDEC is full: the camera goes to the CPU";
    EXPECT_TRUE(balance.moves_streams(true));
    EXPECT_FALSE(balance.moves_streams(false)) << "a file placed on NVDEC is never moved";
    // Six files, then six cameras, under each rule: how many the CPU decoders took of each.
    for (const auto& [rule, files_on_cpu, cameras_on_cpu] : {std::tuple{"auto", false, true}, std::tuple{"nvdec", false, false},
                                                               std::tuple{"load", true, true}}) {
        const ServeSettings other = parse_serve_settings(std::string("serve:\n  decoder-placement: ") + rule +
                                                             "\n  nvdec-capacity: 4\n  cpu-decode-capacity: 4\n", "s.yaml");
        int files = 0, cameras = 0;
        for (const bool camera : {false, true}) {
            DecoderBalance b(decoder_capacity_of(other), 16, {0});
            for (int i = 0; i < 6; ++i) (camera ? cameras : files) += !b.place("s" + std::to_string(i), 0, 1, kNvdecFeederCoresVfilter, camera).nvdec;
        }
        EXPECT_EQ(files > 0, files_on_cpu) << rule << ": " << files << " files on the CPU";
        EXPECT_EQ(cameras > 0, cameras_on_cpu) << rule << ": " << cameras << " cameras on the CPU";
    }
}

// H.264 decodes on NVDEC through vfilter's decoder in serve unless the stream's entry or the
// defaults name FFmpeg's; shared decoders are always vfilter's.
TEST(ServeSettings, VfiltersNvdecDecoderUnlessTheEntrySaysOtherwise) {
    const ServeConfig c = parse_serve_config("defaults: {output: 'null'}\nstreams:\n  - {name: a, input: a.mp4}\n"
                                             "  - {name: b, input: b.mp4, nvdec-decoder: ffmpeg}\n  - {name: c, input: c.mp4, nvdec-decoder: vfilter}\n",
                                             "s.yaml");
    EXPECT_EQ(serve_nvdec_decoder(c.streams[0], false), NvdecDecoderKind::Vfilter);
    EXPECT_EQ(serve_nvdec_decoder(c.streams[1], false), NvdecDecoderKind::Ffmpeg);
    EXPECT_EQ(serve_nvdec_decoder(c.streams[2], false), NvdecDecoderKind::Vfilter);
    EXPECT_EQ(serve_nvdec_decoder(c.streams[1], true), NvdecDecoderKind::Vfilter);
    const ServeConfig d = parse_serve_config("defaults: {output: 'null', nvdec-decoder: ffmpeg}\nstreams:\n  - {name: a, input: a.mp4}\n",
                                             "s.yaml");
    EXPECT_EQ(serve_nvdec_decoder(d.streams[0], false), NvdecDecoderKind::Ffmpeg);
}

}  // namespace
}  // namespace vf
