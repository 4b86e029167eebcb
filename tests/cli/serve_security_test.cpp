// `vfilter serve` tried as an attacker tried it (issue: trust boundaries): each finding against a
// running service, asserting what the attacker gets (the status and reason, nothing of a file's
// content, nothing written, deleted or started) and that the service keeps answering.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "support/child_process.hpp"
#include "support/http_client.hpp"
#include "support/run_command.hpp"

namespace vf {
namespace {

using namespace test;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

const std::string kAdmin = "admin-token-0123456789";
const std::string kViewer = "viewer-token-0123456789";

struct Reply {
    int status = -1;
    std::string text;  // the whole answer
    nlohmann::json body;
};

// One request with the headers a browser, curl or an attacker would send.
Reply request(int port, const std::string& method, const std::string& path, const std::string& body = "",
              const std::string& headers = "Host: 127.0.0.1\r\nContent-Type: application/json\r\n") {
    const std::string raw = method + " " + path + " HTTP/1.1\r\n" + headers + "Connection: close\r\nContent-Length: " +
                            std::to_string(body.size()) + "\r\n\r\n" + body;
    Reply r;
    r.text = http_exchange(port, raw);
    if (r.text.rfind("HTTP/1.1 ", 0) != 0) return r;
    r.status = std::atoi(r.text.c_str() + 9);
    const size_t at = r.text.find("\r\n\r\n");
    if (at != std::string::npos) r.body = nlohmann::json::parse(r.text.substr(at + 4), nullptr, false);
    return r;
}
std::string with_token(const std::string& token) {
    return "Host: 127.0.0.1\r\nContent-Type: application/json\r\nAuthorization: Bearer " + token + "\r\n";
}
std::string error_of(const Reply& r) { return r.body.is_object() && r.body.contains("error") ? r.body["error"].get<std::string>() : r.text; }

class ServeSecurity : public ::testing::Test {
protected:
    void SetUp() override {
        dir = fs::canonical(temp_dir()).string();
        for (const char* d : {"media", "rec", "kernels", "outside"}) fs::create_directories(dir + "/" + d);
        std::ofstream(dir + "/outside/app.conf") << "keep me\n";
    }
    // serve with the folders the operator gives clients (and `settings`, more of the file's serve:
    // block); the API's port once it listens.
    int start(std::vector<std::string> extra = {}, const std::string& settings = "") {
        std::ofstream(dir + "/streams.yaml") << streams << "serve:\n  media-root: " << dir << "/media\n  recordings-root: " << dir
                                             << "/rec\n  kernel-dir: " << dir << "/kernels\n" << settings;
        std::vector<std::string> args = {VFILTER_BIN, "serve", "--config", dir + "/streams.yaml", "--api-port", "0"};
        args.insert(args.end(), extra.begin(), extra.end());
        serve = std::make_unique<ChildProcess>(args, dir + "/serve.log");
        if (!serve->wait_for_log("control API: http://127.0.0.1:", 30)) return -1;
        const std::string log = serve->log();
        const std::string mark = "control API: http://127.0.0.1:";
        return std::atoi(log.c_str() + log.find(mark) + mark.size());
    }
    // Whether stream `name` runs within 30 s (a filter is changed only on a running stream).
    bool running(int port, const std::string& name, const std::string& headers = "Host: 127.0.0.1\r\n") {
        for (int i = 0; i < 300; ++i) {
            const Reply r = request(port, "GET", "/streams/" + name, "", headers);
            if (r.body.is_object() && r.body.value("state", "") == "running") return true;
            std::this_thread::sleep_for(100ms);
        }
        return false;
    }
    size_t stream_count(int port, const std::string& headers = "Host: 127.0.0.1\r\n") {
        const Reply r = request(port, "GET", "/streams", "", headers);
        return r.body.is_array() ? r.body.size() : 0;
    }
    // The config file's streams, written by start() before its serve: block.
    std::string streams = "streams:\n  - {name: demo1, input: 'pattern://?size=64x48&rate=10', output: 'null'}\n";
    std::string dir;
    std::unique_ptr<ChildProcess> serve;
};

TEST_F(ServeSecurity, FilterChangesReadNoFileOfTheMachineAndNeverEchoOne) {
    ::setenv("VFILTER_API_TOKEN", kAdmin.c_str(), 1);
    const int port = start();
    ::unsetenv("VFILTER_API_TOKEN");
    ASSERT_GT(port, 0) << serve->log();
    for (const std::string& file : std::vector<std::string>{"/etc/passwd", "/proc/self/environ", "/dev/zero", dir + "/outside/app.conf", "../outside/app.conf"}) {
        const Reply r = request(port, "PUT", "/streams/demo1/filter", nlohmann::json{{"filter", "convolution=file=" + file}}.dump(),
                                with_token(kAdmin));
        EXPECT_EQ(r.status, 403) << file << ": " << r.text;
        EXPECT_EQ(r.text.find("root:"), std::string::npos) << file;
        EXPECT_EQ(r.text.find(kAdmin), std::string::npos) << file;
        EXPECT_EQ(r.text.find("keep me"), std::string::npos) << file;
    }
    std::ofstream(dir + "/kernels/edge.txt") << "0 -1 0\n-1 5 -1\n0 -1 0\n";
    fs::create_symlink("/etc/passwd", dir + "/kernels/passwd.txt");
    Reply r = request(port, "PUT", "/streams/demo1/filter", R"({"filter": "convolution=file=passwd.txt"})", with_token(kAdmin));
    EXPECT_EQ(r.status, 400) << r.text;
    EXPECT_NE(error_of(r).find("symbolic link"), std::string::npos) << r.text;
    ASSERT_TRUE(running(port, "demo1", with_token(kAdmin))) << serve->log();
    r = request(port, "PUT", "/streams/demo1/filter", R"({"filter": "convolution=file=edge.txt"})", with_token(kAdmin));
    EXPECT_EQ(r.status, 200) << "a kernel of the operator's folder: " << r.text;
    EXPECT_EQ(serve->log().find(kAdmin), std::string::npos) << "the token never reaches the log";
    EXPECT_EQ(serve->log().find("root:x"), std::string::npos);
}

TEST_F(ServeSecurity, AnExpressionThatLoopsIsRefusedAndTheServiceKeepsAnswering) {
    const int port = start();
    ASSERT_GT(port, 0) << serve->log();
    const auto began = std::chrono::steady_clock::now();
    const Reply r = request(port, "PUT", "/streams/demo1/filter", R"x({"filter": "gaussian=sigma=while(1\\,1)"})x");
    EXPECT_EQ(r.status, 400) << r.text;
    EXPECT_NE(error_of(r).find("while()"), std::string::npos) << r.text;
    EXPECT_LT(std::chrono::steady_clock::now() - began, 2s);
    EXPECT_EQ(stream_count(port), 1u) << "/streams answers";
    EXPECT_TRUE(running(port, "demo1")) << "the stream runs on: " << serve->log();
    EXPECT_EQ(request(port, "GET", "/readyz").status, 200) << "ready once its stream opened";
    serve->signal(SIGTERM);
    EXPECT_EQ(serve->wait(20), 0) << "SIGTERM still stops it";
}

TEST_F(ServeSecurity, AClientWritesOnlyNewFilesUnderTheRecordingsRoot) {
    fs::create_directory_symlink(dir + "/outside", dir + "/rec/out");
    const int port = start();
    ASSERT_GT(port, 0) << serve->log();
    const auto post = [&](nlohmann::json entry) {
        entry["name"] = "cam";
        entry["input"] = "pattern://?size=64x48&rate=10";
        return request(port, "POST", "/streams", entry.dump());
    };
    const std::vector<std::pair<nlohmann::json, std::string>> tries = {
        {{{"output", dir + "/outside/app.conf"}}, "outside the folder"},
        {{{"output", "../outside/app.conf"}}, "'..'"},
        {{{"output", "out/app.conf"}}, "symbolic link"},
        {{{"output", "x.mp4"}, {"overwrite", true}}, "field 'overwrite' is set only in serve's config file"},
        {{{"output", "udp://198.51.100.7:1234"}}, "not among the hosts"},
        {{{"output", "null"}, {"allow-protocols", "file,concat"}}, "field 'allow-protocols'"},
    };
    for (const auto& [entry, reason] : tries) {
        const Reply r = post(entry);
        EXPECT_EQ(r.status, 403) << entry.dump() << ": " << r.text;
        EXPECT_NE(error_of(r).find(reason), std::string::npos) << entry.dump() << ": " << r.text;
    }
    EXPECT_EQ(read_file(dir + "/outside/app.conf"), "keep me\n") << "nothing outside the root was touched";
    EXPECT_EQ(std::distance(fs::directory_iterator(dir + "/outside"), fs::directory_iterator()), 1);
    EXPECT_EQ(post({{"output", "-"}}).status, 403) << "standard output is serve's log";
    EXPECT_EQ(post({{"output", "null"}, {"segment", 1e-9}}).status, 400) << "a file a frame";
    EXPECT_EQ(stream_count(port), 1u) << "no refused request started a stream";
    fs::create_directories(dir + "/rec/cams");
    const Reply ok = post({{"output", "cams/cam.mkv"}, {"codec", "ffv1"}, {"frames", 20}});
    EXPECT_EQ(ok.status, 201) << ok.text;
    EXPECT_EQ(ok.body["output"], dir + "/rec/cams/cam.mkv") << "resolved under the root: " << ok.text;
}

TEST_F(ServeSecurity, AClientReadsOnlyNetworkUrlsPatternsAndFilesUnderTheMediaRoot) {
    const int port = start();
    ASSERT_GT(port, 0) << serve->log();
    std::ofstream(dir + "/outside/secret.mp4") << "x";
    ::mkfifo((dir + "/media/fifo.mp4").c_str(), 0600);
    for (const std::string& in : std::vector<std::string>{dir + "/outside/secret.mp4", std::string("/dev/video0"), std::string("-"), std::string("fifo.mp4"),
                                 "concat:" + dir + "/outside/secret.mp4", std::string("file:///etc/passwd")}) {
        const Reply r = request(port, "POST", "/streams", nlohmann::json{{"name", "cam"}, {"input", in}, {"output", "null"}}.dump());
        EXPECT_EQ(r.status, 403) << in << ": " << r.text;
    }
    EXPECT_EQ(stream_count(port), 1u);
    const auto began = std::chrono::steady_clock::now();
    EXPECT_EQ(request(port, "DELETE", "/streams/demo1").status, 200) << "no FIFO could be named to hang a DELETE";
    EXPECT_LT(std::chrono::steady_clock::now() - began, 10s);
}

TEST_F(ServeSecurity, APageOfAnotherSiteCannotDriveTheServiceNorRebindItsName) {
    const int port = start();
    ASSERT_GT(port, 0) << serve->log();
    const std::string entry = R"({"name": "csrf", "input": "pattern://?size=64x48", "output": "null"})";
    Reply r = request(port, "POST", "/streams", entry, "Host: 127.0.0.1\r\nContent-Type: text/plain\r\n");
    EXPECT_EQ(r.status, 415) << "a text/plain fetch needs no preflight: " << r.text;
    r = request(port, "POST", "/streams", entry,
                "Host: 127.0.0.1\r\nContent-Type: application/json\r\nOrigin: http://evil.example\r\n");
    EXPECT_EQ(r.status, 403) << r.text;
    EXPECT_NE(error_of(r).find("another site"), std::string::npos);
    r = request(port, "DELETE", "/streams/demo1", "", "Host: 127.0.0.1\r\nOrigin: null\r\n");
    EXPECT_EQ(r.status, 403) << "a sandboxed page's Origin: " << r.text;
    const std::string rebound = "Host: evil.example:" + std::to_string(port) + "\r\nContent-Type: application/json\r\n";
    EXPECT_EQ(request(port, "GET", "/streams", "", rebound).status, 403) << "DNS rebinding reads nothing";
    EXPECT_EQ(request(port, "POST", "/streams", entry, rebound).status, 403);
    // The cameras' watch reads pictures' measures and events: guarded as the list is.
    for (const char* path : {"/streams/demo1/watch", "/events", "/events?scope=fleet", "/events/stream"})
        EXPECT_EQ(request(port, "GET", path, "", rebound).status, 403) << path;
    EXPECT_EQ(request(port, "GET", "/healthz", "", rebound).status, 200) << "probes answer any name";
    EXPECT_EQ(stream_count(port), 1u) << "nothing was added or removed";
    const std::string own = "Host: localhost:" + std::to_string(port) + "\r\nContent-Type: application/json\r\nOrigin: http://localhost:" +
                            std::to_string(port) + "\r\n";
    EXPECT_EQ(request(port, "POST", "/streams", entry, own).status, 201) << "the page's own origin may";
}

TEST_F(ServeSecurity, TheViewerLooksTheAdminChangesAndTokensAreReadFromFiles) {
    std::ofstream(dir + "/admin.token") << kAdmin << "\n";
    std::ofstream(dir + "/viewer.token") << kViewer << "\n";
    const int port = start({}, "  api-token-file: " + dir + "/admin.token\n  viewer-token-file: " + dir + "/viewer.token\n");
    ASSERT_GT(port, 0) << serve->log();
    EXPECT_EQ(request(port, "GET", "/streams").status, 401);
    EXPECT_EQ(request(port, "GET", "/streams", "", with_token(kViewer)).status, 200);
    EXPECT_EQ(request(port, "GET", "/streams/demo1", "", with_token(kViewer)).status, 200);
    for (const char* path : {"/streams/demo1/watch", "/events?scope=fleet"}) {
        EXPECT_EQ(request(port, "GET", path).status, 401) << path;
        EXPECT_EQ(request(port, "GET", path, "", with_token("not-the-token-0123456789")).status, 401) << path;
        const Reply looked = request(port, "GET", path, "", with_token(kViewer));
        EXPECT_EQ(looked.status, 200) << path << ": " << looked.text;
    }
    const std::string entry = R"({"name": "v", "input": "pattern://?size=64x48", "output": "null"})";
    Reply r = request(port, "POST", "/streams", entry, with_token(kViewer));
    EXPECT_EQ(r.status, 403) << r.text;
    EXPECT_EQ(request(port, "DELETE", "/streams/demo1", "", with_token(kViewer)).status, 403);
    EXPECT_EQ(request(port, "PUT", "/streams/demo1/filter", R"({"filter": "sobel"})", with_token(kViewer)).status, 403);
    EXPECT_EQ(request(port, "POST", "/streams", entry, with_token(kAdmin)).status, 201);
    EXPECT_EQ(serve->log().find(kViewer), std::string::npos);
}

TEST_F(ServeSecurity, WeakTokensAndTooManyStreamsAreRefused) {
    std::ofstream(dir + "/streams.yaml") << "streams:\n  - {name: demo1, input: 'pattern://?size=64x48&rate=10', output: 'null'}\n";
    std::ofstream(dir + "/viewer.token") << kViewer << "\n";
    std::ofstream(dir + "/viewer.yaml") << "streams: []\nserve: {viewer-token-file: " << dir << "/viewer.token}\n";
    for (const std::vector<std::string>& bad : std::vector<std::vector<std::string>>{
             {"--api-token", " "}, {"--api-token", "short"}, {"--api-token", "sixteen chars ok"}, {"--config", dir + "/viewer.yaml"}}) {
        auto r = run_vfilter([&] {
            std::vector<std::string> a = {"serve", "--api-port", "0"};
            if (bad[0] != "--config") a.insert(a.end(), {"--config", dir + "/streams.yaml"});
            a.insert(a.end(), bad.begin(), bad.end());
            return a;
        }());
        EXPECT_EQ(r.exit_code, 2) << bad[0] << " '" << bad[1] << "': " << r.output;
    }
    std::ofstream(dir + "/three.yaml") << "defaults: {input: 'pattern://?size=64x48', output: 'null'}\n"
                                       << "streams: [{name: a}, {name: b}, {name: c}]\nserve: {max-streams: 2}\n";
    const auto many = run_vfilter({"serve", "--config", dir + "/three.yaml", "--api-port", "0"});
    EXPECT_EQ(many.exit_code, 2) << many.output;
    EXPECT_NE(many.output.find("more than serve: max-streams 2"), std::string::npos) << many.output;
    const int port = start({}, "  max-streams: 2\n");
    ASSERT_GT(port, 0) << serve->log();
    const auto add = [&](const std::string& name) {
        return request(port, "POST", "/streams", R"({"name": ")" + name + R"(", "input": "pattern://?size=64x48", "output": "null"})");
    };
    EXPECT_EQ(add("two").status, 201);
    const Reply third = add("three");
    EXPECT_EQ(third.status, 503) << third.text;
    EXPECT_NE(error_of(third).find("max-streams"), std::string::npos);
}

// The process's options (its summary file, metrics endpoint, disk floor, log) are the operator's,
// set once for the whole process: a client's stream entry naming one is refused with where it is
// set, and neither a stream nor a file comes of it.
TEST_F(ServeSecurity, AStreamEntryCannotSetAnOptionOfTheProcess) {
    const int port = start({}, "  stats-json: " + dir + "/serve-stats.json\n");
    ASSERT_GT(port, 0) << serve->log();
    const std::string their_stats = dir + "/rec/their-stats.json";
    const std::vector<std::pair<nlohmann::json, std::string>> tries = {
        {{{"stats-json", their_stats}}, "field 'stats-json' belongs to the process, not to one stream"},
        {{{"metrics-port", 0}}, "field 'metrics-port' belongs to the process"},
        {{{"metrics-bind", "0.0.0.0"}}, "field 'metrics-bind' belongs to the process"},
        {{{"min-free", "99%"}}, "field 'min-free' belongs to the process"},
        {{{"log-format", "json"}}, "field 'log-format' belongs to the process"},
        {{{"quiet", true}}, "field 'quiet' belongs to the process"},
    };
    for (size_t k = 0; k < tries.size(); ++k) {
        nlohmann::json entry = tries[k].first;
        entry["name"] = "p" + std::to_string(k);
        entry["input"] = "pattern://?size=64x48&rate=10";
        entry["output"] = "null";
        const Reply r = request(port, "POST", "/streams", entry.dump());
        EXPECT_EQ(r.status, 400) << entry.dump() << ": " << r.text;
        EXPECT_NE(error_of(r).find(tries[k].second), std::string::npos) << entry.dump() << ": " << r.text;
    }
    EXPECT_EQ(stream_count(port), 1u) << "no refused request started a stream";
    serve->signal(SIGTERM);
    ASSERT_EQ(serve->wait(20), 0) << serve->log();
    EXPECT_FALSE(fs::exists(their_stats)) << "nothing was written where a client asked";
    const nlohmann::json stats = nlohmann::json::parse(read_file(dir + "/serve-stats.json"), nullptr, false);
    ASSERT_TRUE(stats.is_object()) << "the operator's summary is written where the serve: block says";
    EXPECT_TRUE(stats.contains("demo1")) << stats.dump(2);
    EXPECT_EQ(stats.size(), 1u) << "and lists no refused stream: " << stats.dump(2);
}

// A recording that never started deletes nothing, whatever its pattern and retention say.
TEST_F(ServeSecurity, RetentionOfAStreamThatNeverStartedDeletesNothing) {
    fs::create_directories(dir + "/rec/cams");
    for (const char* old : {"cam-20200101-000000.mp4", "cam-20200101-000001.mp4", "2020"}) {
        std::ofstream(dir + "/rec/cams/" + old) << "old";
        fs::last_write_time(dir + "/rec/cams/" + old, fs::file_time_type::clock::now() - std::chrono::hours(24));
    }
    streams = "streams:\n  - {name: gone, input: " + dir + "/media/missing.mp4, wait-for-input: false, output: '" + dir +
              "/rec/cams/cam-%Y%m%d-%H%M%S.mp4', segment: 1, retain: 1s}\n"
              "  - {name: years, input: " + dir + "/media/missing.mp4, wait-for-input: false, output: '" + dir +
              "/rec/cams/%Y', segment: 1, retain: 1s}\n";
    const int port = start();
    ASSERT_GT(port, 0) << serve->log();
    std::this_thread::sleep_for(3s);
    for (const char* old : {"cam-20200101-000000.mp4", "cam-20200101-000001.mp4", "2020"})
        EXPECT_TRUE(fs::exists(dir + "/rec/cams/" + old)) << old << "\n" << serve->log();
}

}  // namespace
}  // namespace vf
