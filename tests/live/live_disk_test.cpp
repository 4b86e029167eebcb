// Recordings on a small disk (a tmpfs in a mount namespace of its own): retention limits, a full
// disk that fails one recording alone, and partial recordings a killed run left.
#include "live/live_fixture.hpp"

using namespace vf::test;
using namespace vf::test::live;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

// The files of `folder` whose names start with `prefix`, oldest name first, with their sizes.
std::vector<std::pair<std::string, int64_t>> files_named(const std::string& folder, const std::string& prefix) {
    std::vector<std::pair<std::string, int64_t>> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(folder, ec))
        if (e.path().filename().string().rfind(prefix, 0) == 0) out.emplace_back(e.path().string(), static_cast<int64_t>(e.file_size(ec)));
    std::sort(out.begin(), out.end());
    return out;
}

int64_t total_bytes(const std::vector<std::pair<std::string, int64_t>>& files) {
    int64_t sum = 0;
    for (const auto& f : files) sum += f.second;
    return sum;
}

int64_t free_bytes(const std::string& folder) {
    std::error_code ec;
    return static_cast<int64_t>(fs::space(folder, ec).available);
}

// A stream's retention counts after a minute of 2 s segments under a `limit` of kept bytes, in
// GET /streams (`stream`) and in /metrics: files deleted, the bytes kept within the limit.
void expect_retention_counted(const nlohmann::json& stream, const std::string& metrics, int64_t limit) {
    const std::string name = stream["name"];
    const nlohmann::json r = stream["recordings"];
    std::smatch m;
    EXPECT_GT(r["deleted_files"].get<int>(), 5) << name << ": " << r.dump();
    EXPECT_GT(r["deleted_bytes"].get<int64_t>(), 10 << 20) << name << ": " << r.dump();
    EXPECT_GT(r["kept_bytes"].get<int64_t>(), 4 << 20) << name << ": " << r.dump();
    EXPECT_LE(r["kept_bytes"].get<int64_t>(), limit) << name << ": " << r.dump();
    ASSERT_TRUE(std::regex_search(metrics, m, std::regex(std::string("vfilter_recordings_deleted_files_total\\{stream=\"") + name +
                                                         "\"\\} ([0-9]+)")))
        << metrics;
    EXPECT_GT(std::stoi(m[1]), 5) << metrics;
}

}  // namespace

// Two cameras recording 2 s segments onto a 40 MiB disk for a minute, each keeping at most
// 16 MiB of finished files, the process keeping 25% (10 MiB) free (so both limits bind): no write error, the kept files
// stay within both limits, every kept file plays, the newest are the ones kept, the counts say
// what was deleted. A file left by an earlier run counts too: cam-a's numbering goes on after it,
// and it is deleted for being older than cam-a's retain (1 h).
TEST_F(Live, ServeRetentionKeepsRecordingsWithinTheirLimitsOnASmallDisk) {
    NEED_RTSP_CAMERA();
    NEED_SMALL_DISK();
    std::vector<std::unique_ptr<RtspCamera>> cams;
    for (const char* name : {"a", "b"}) {
        cams.push_back(std::make_unique<RtspCamera>(dir, free_port(), std::string("cam-") + name + ".log",
                                                    std::vector<std::string>{"--pattern", "snow", "--size", "320x240"}));
        ASSERT_TRUE(cams.back()->ready()) << cams.back()->log();
    }
    const std::string disk = dir + "/disk";
    fs::create_directories(disk);
    const std::string earlier = clip("earlier.mp4", "320x240", 1);
    const std::string yaml = "defaults: {filter: sobel, preset: ultrafast, segment: 2, retain-size: 16M, reconnect-delay: 0.5}\n"
                             "streams:\n"
                             "  - {name: cam-a, input: '" + cams[0]->url() + "', output: " + disk + "/a-%05d.mp4, retain: 1h}\n"
                             "  - {name: cam-b, input: '" + cams[1]->url() + "', output: " + disk + "/b-%Y%m%d-%H%M%S.mp4}\n";
    ServeProcess serve(dir, yaml + "serve:\n  min-free: 25%\n", {}, "40m",
                       "cp '" + earlier + "' '" + disk + "/a-00041.mp4' && touch -d '2 hours ago' '" + disk + "/a-00041.mp4' &&");
    ASSERT_TRUE(serve.ready()) << serve.log();
    const std::string seen = serve.seen(disk);
    ASSERT_TRUE(serve.wait_for("cam-a", "running")) << serve.log();
    ASSERT_TRUE(serve.wait_for("cam-b", "running")) << serve.log();
    // The earlier run's file goes for its age (older than cam-a's retain): within 20 s, before
    // either stream's 16 MiB or the free-space floor can bind (20 s of segments each stay below
    // both).
    const std::string earlier_file = seen + "/a-00041.mp4";
    const auto age_deadline = std::chrono::steady_clock::now() + 20s;
    while (file_exists(earlier_file) && std::chrono::steady_clock::now() < age_deadline) std::this_thread::sleep_for(100ms);
    EXPECT_FALSE(file_exists(earlier_file)) << "the earlier run's file is deleted for its age";

    // A segment (about 1.3 MiB here) may finish between two looks (once a second).
    const int64_t limit = 16 << 20, slack = 2 << 20;
    int64_t least_free = INT64_MAX, most_a = 0, most_b = 0;
    // A minute writes about 40 MiB a stream: 30 MiB more than the disk leaves them together, so
    // both the limit and the floor have bound for most of it.
    const auto until = std::chrono::steady_clock::now() + 60s;
    while (std::chrono::steady_clock::now() < until) {
        std::this_thread::sleep_for(2s);
        for (const auto& s : serve.streams()) ASSERT_EQ(s["state"], "running") << s.dump() << serve.log();
        auto a = files_named(seen, "a-"), b = files_named(seen, "b-");
        // Finished files: all but each stream's newest (being written).
        if (!a.empty()) a.pop_back();
        if (!b.empty()) b.pop_back();
        most_a = std::max(most_a, total_bytes(a));
        most_b = std::max(most_b, total_bytes(b));
        least_free = std::min(least_free, free_bytes(seen));
    }
    EXPECT_LE(most_a, limit + slack);
    EXPECT_LE(most_b, limit + slack);
    EXPECT_GE(least_free, (10 << 20) - slack) << "the floor of 25% of 40 MiB, less what two streams write in a second";
    const std::string metrics = http_get(serve.api(), "/metrics");
    for (const char* name : {"cam-a", "cam-b"}) expect_retention_counted(serve.stream(name), metrics, limit);
    // No write error; the floor's part is the free space above (without it the two 16 MiB limits
    // would leave less than 10 MiB of the 40 free).
    for (const char* name : {"cam-a", "cam-b"}) EXPECT_EQ(serve.stream(name)["last_error"], "") << name;

    // Both streams removed (their last files finalised): every kept file plays, and they are the
    // newest: cam-a's numbers run without a gap up to its last segment.
    for (const char* name : {"cam-a", "cam-b"})
        ASSERT_NE(http_exchange(serve.api(), std::string("DELETE /streams/") + name + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                      .find("200 OK"),
                  std::string::npos);
    const auto a = files_named(seen, "a-"), b = files_named(seen, "b-");
    ASSERT_GE(a.size(), 5u);
    ASSERT_GE(b.size(), 5u);
    int previous = -1;
    for (const auto& [path, bytes] : a) {
        const int number = std::stoi(path.substr(path.size() - 9, 5));
        EXPECT_GT(number, 41) << path << ": cam-a's numbers go on after the earlier run's";
        if (previous >= 0) {
            EXPECT_EQ(number, previous + 1) << path << ": the oldest go first";
        }
        previous = number;
    }
    for (const auto* files : {&a, &b})
        for (const auto& [path, bytes] : *files) {
            const Decoded d = decode(path);
            EXPECT_TRUE(d.clean) << path << ": " << d.errors;
        }
    serve.process().signal(SIGINT);
    EXPECT_EQ(serve.process().wait(30), kOk) << serve.log();
}

// A disk that fills with nothing to delete: the stream recording there is `failed: disk full`
// while the other stream goes on; what it wrote stays playable; once space is freed it records
// again in new files.
TEST_F(Live, ServeRecordingOnAFullDiskFailsAloneAndRecordsAgainWhenSpaceReturns) {
    NEED_RTSP_CAMERA();
    NEED_SMALL_DISK();
    RtspCamera cam(dir, free_port(), "cam.log", {"--pattern", "snow", "--size", "320x240"});
    ASSERT_TRUE(cam.ready()) << cam.log();
    const std::string disk = dir + "/disk";
    fs::create_directories(disk);
    const std::string yaml = "defaults: {filter: sobel, preset: ultrafast, segment: 2, input: '" + cam.url() + "'}\n"
                             "streams:\n"
                             "  - {name: full, output: " + disk + "/full-%03d.mp4}\n"
                             "  - {name: fine, output: " + dir + "/fine-%03d.mp4}\n";
    // 24 MiB of which 20 are taken: about 15 s of this camera fit.
    ServeProcess serve(dir, yaml, {}, "24m", "head -c 20971520 /dev/zero > '" + disk + "/ballast' &&");
    ASSERT_TRUE(serve.ready()) << serve.log();
    const std::string seen = serve.seen(disk);
    ASSERT_TRUE(serve.wait_for("full", "failed", 0, 90)) << serve.log() << "\ncamera:\n" << cam.log();
    const nlohmann::json failed = serve.stream("full");
    const std::string why = failed["last_error"];
    EXPECT_EQ(why.rfind("disk full: ", 0), 0u) << why;
    EXPECT_NE(why.find("recording again once space returns"), std::string::npos) << why;
    const nlohmann::json fine = serve.stream("fine");
    EXPECT_EQ(fine["state"], "running") << fine.dump();
    // Every file plays without one error, the one the disk filled in included: it is cut back to
    // its last whole fragment (or removed had it none, as is a segment opened after the disk filled),
    // which may finish just after the stream shows as failed.
    std::vector<std::pair<std::string, int64_t>> written;
    std::vector<std::string> unplayable;
    for (const auto until = std::chrono::steady_clock::now() + 15s; std::chrono::steady_clock::now() < until;) {
        written = files_named(seen, "full-");
        unplayable.clear();
        for (const auto& [path, bytes] : written)
            if (const Decoded d = decode(path); !d.clean) unplayable.push_back(path + ": " + d.errors);
        if (unplayable.empty()) break;
        std::this_thread::sleep_for(500ms);
    }
    ASSERT_GE(written.size(), 3u);
    for (const std::string& why : unplayable) ADD_FAILURE() << why << "\n" << serve.log();
    std::this_thread::sleep_for(3s);
    EXPECT_EQ(serve.stream("full")["state"], "failed") << "no space yet: it does not run";
    EXPECT_GT(serve.stream("fine")["frames_out"].get<int>(), fine["frames_out"].get<int>()) << "the other stream goes on";

    ASSERT_TRUE(fs::remove(seen + "/ballast"));  // space returns
    ASSERT_TRUE(serve.wait_for("full", "running", 0, 30)) << serve.log();
    std::this_thread::sleep_for(5s);
    ASSERT_NE(http_exchange(serve.api(), "DELETE /streams/full HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").find("200 OK"),
              std::string::npos);
    const auto after = files_named(seen, "full-");
    ASSERT_GT(after.size(), written.size()) << "new files after the space returned";
    for (size_t i = 0; i < written.size(); ++i) {
        EXPECT_EQ(after[i].first, written[i].first);
        EXPECT_EQ(after[i].second, written[i].second) << after[i].first << ": what was written is not touched";
    }
    for (size_t i = written.size(); i < after.size(); ++i) {
        const Decoded d = decode(after[i].first);
        EXPECT_TRUE(d.clean) << after[i].first << ": " << d.errors;
    }
    serve.process().signal(SIGINT);
    EXPECT_EQ(serve.process().wait(30), kOk) << serve.log();
    const auto fine_files = files_named(dir, "fine-");
    ASSERT_GE(fine_files.size(), 5u);
    for (const auto& [path, bytes] : fine_files) {
        const Decoded d = decode(path);
        EXPECT_TRUE(d.clean) << path << ": " << d.errors;
    }
}

// The single-stream command recording a fragmented MP4 when the disk fills: exit 4 with the disk
// full reason, and the recording kept, cut back to its last whole fragment, plays without an error.
TEST_F(Live, RecordingCutByAFullDiskEndsAfterItsLastWholeFragment) {
    NEED_SMALL_DISK();
    const std::string disk = dir + "/disk";
    fs::create_directories(disk);
    // Noise: sobel of it encodes to about 1 MiB a second, so 3 MiB fill mid-fragment.
    const std::string noisy = dir + "/noisy.mkv";
    const CommandResult made = run_command({"ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30",
                                            "-vf", "noise=alls=80:allf=t", "-t", "10", "-c:v", "libx264", "-preset", "ultrafast", noisy},
                                           120);
    ASSERT_EQ(made.exit_code, 0) << made.output;
    const std::vector<std::string> args = {
        "unshare", "-rm", "sh", "-c",
        "mount -t tmpfs -o size=3m tmpfs '" + disk + "' && \"$0\" \"$@\"; code=$?; cp -r '" + disk + "' '" + dir + "/kept'; exit $code",
        kVfilter, "-i", noisy, "-f", "sobel", "-o", disk + "/rec.mp4", "--fragmented", "yes", "--preset", "ultrafast", "--no-progress"};
    ChildProcess v(args, dir + "/vfilter.log");
    ASSERT_EQ(v.wait(120), kOutput) << v.log();
    // The reason for exit 4, on the error line the user reads.
    EXPECT_NE(v.log().find("disk full: "), std::string::npos) << v.log();
    const Decoded d = decode(dir + "/kept/rec.mp4");
    EXPECT_TRUE(d.clean) << d.errors;
    EXPECT_GE(d.frames, 30) << "at least its first one-second fragment";
}

// serve starting again after it was killed: the single-file recordings it left as OUT.partial are
// made usable before the streams write again. One that holds complete fragments is kept under a
// name of its own (and plays); one that nothing can play (a plain MP4 cut before its index) is
// removed; both are said in the log.
TEST_F(Live, ServeRecoversThePartialRecordingsAKilledRunLeft) {
    // A fragmented MP4 of 3 s, as a killed recorder leaves it, and a plain one cut in half.
    const CommandResult fragmented =
        run_command({"ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-t", "3", "-c:v", "libx264",
                     "-preset", "ultrafast", "-g", "30", "-movflags", "+frag_keyframe+empty_moov", "-f", "mp4", dir + "/cam-a.mp4.partial"});
    ASSERT_EQ(fragmented.exit_code, 0) << fragmented.output;
    const std::string plain = clip("plain.mp4", "320x240", 3);
    const auto plain_size = fs::file_size(plain);
    fs::copy_file(plain, dir + "/cam-b.mp4.partial");
    fs::resize_file(dir + "/cam-b.mp4.partial", plain_size / 2);

    const std::string yaml = "defaults: {input: 'pattern://?size=320x240&rate=30', frames: 30, preset: ultrafast}\nstreams:\n"
                             "  - {name: cam-a, output: " + dir + "/cam-a.mp4}\n"
                             "  - {name: cam-b, output: " + dir + "/cam-b.mp4}\n";
    std::ofstream(dir + "/streams.yaml") << yaml;
    const CommandResult r = run_command({kVfilter, "serve", "--config", dir + "/streams.yaml"}, 120);
    ASSERT_EQ(r.exit_code, kOk) << r.output;

    std::smatch m;
    ASSERT_TRUE(std::regex_search(r.output, m, std::regex("kept as '([^']*cam-a-recovered-[0-9]{8}-[0-9]{6}\\.mp4)'"))) << r.output;
    const Decoded recovered = decode(m[1]);
    EXPECT_TRUE(recovered.clean) << recovered.errors;
    EXPECT_EQ(recovered.frames, 90) << "all 3 s of it";
    EXPECT_NE(r.output.find("cam-b.mp4.partial"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("removed"), std::string::npos) << r.output;
    EXPECT_FALSE(file_exists(dir + "/cam-a.mp4.partial"));
    EXPECT_FALSE(file_exists(dir + "/cam-b.mp4.partial"));
    for (const char* name : {"cam-a.mp4", "cam-b.mp4"}) {
        const Decoded d = decode(dir + "/" + name);
        EXPECT_TRUE(d.clean) << name << ": " << d.errors;
        EXPECT_EQ(d.frames, 30) << name << ": the streams recorded as usual after";
    }
}
