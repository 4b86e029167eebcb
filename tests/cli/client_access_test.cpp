// What an API client may name (app/serve/client_access.hpp): each way out of the operator's folders that
// an attacker tried is refused as Forbidden with the field and the reason, and what stays inside is
// resolved under its root. The whole service is tried in serve_security_test.cpp.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "app/serve/client_access.hpp"
#include "app/serve/serve_config.hpp"
#include "common/error.hpp"
#include "support/run_command.hpp"

namespace vf {
namespace {

namespace fs = std::filesystem;

class ClientFields : public ::testing::Test {
protected:
    void SetUp() override {
        dir = fs::canonical(test::temp_dir()).string();
        fs::create_directories(dir + "/media/sub");
        fs::create_directories(dir + "/rec");
        fs::create_directories(dir + "/outside");
        std::ofstream(dir + "/media/cam.mp4") << "x";
        std::ofstream(dir + "/media/sub/b.mp4") << "x";
        std::ofstream(dir + "/outside/secret.mp4") << "x";
        std::ofstream(dir + "/outside/app.conf") << "keep me";
        fs::create_symlink(dir + "/outside/secret.mp4", dir + "/media/link.mp4");
        fs::create_directory_symlink(dir + "/outside", dir + "/rec/out");
        ::mkfifo((dir + "/media/fifo.mp4").c_str(), 0600);
        access.media_root = dir + "/media";
        access.recordings_root = dir + "/rec";
        access.output_hosts = {"relay.example"};
        access = checked_client_access(access);
    }
    // The Forbidden refusal's text for these fields, or "(allowed)" / "(usage: ...)".
    std::string refusal(StreamFields fields) {
        try {
            check_client_fields(std::move(fields), access);
        } catch (const Forbidden& e) {
            return e.what();
        } catch (const Error& e) {
            return std::string("(usage: ") + e.what() + ")";
        }
        return "(allowed)";
    }
    std::string dir;
    ClientAccess access;
};

TEST_F(ClientFields, InputsAreNetworkUrlsPatternsOrFilesUnderTheMediaRoot) {
    for (const std::string& in : std::vector<std::string>{"rtsp://user:pw@cam.local/x", "srt://h:9000", "https://h/x.m3u8", "pattern://?size=64x48", "cam.mp4",
                                 "sub/b.mp4"})
        EXPECT_EQ(refusal({{"input", in}, {"output", "null"}}), "(allowed)") << in;
    const auto resolved = check_client_fields({{"input", "sub/b.mp4"}}, access);
    EXPECT_EQ(resolved.at("input"), dir + "/media/sub/b.mp4");
    EXPECT_EQ(resolved.at("allow-protocols"), "file") << "a client's file is read as a file and nothing else";
    const std::map<std::string, std::string> why = {
        {"/etc/passwd", "outside the folder"},
        {dir + "/outside/secret.mp4", "outside the folder"},
        {"../outside/secret.mp4", "'..'"},
        {"link.mp4", "symbolic link"},
        {"fifo.mp4", "not a regular file"},
        {"/dev/video0", "outside the folder"},
        {"-", "not stdin"},
        {"concat:cam.mp4|sub/b.mp4", "concat:"},
        {"subfile:,start,0,end,0,:cam.mp4", "concat:"},
        {"file:cam.mp4", "concat:"},
        {"file:///etc/passwd", "file:// is not an input"},
        {"v4l2:///dev/video0", "v4l2:// is not an input"},
    };
    for (const auto& [in, reason] : why) {
        const std::string r = refusal({{"input", in}});
        EXPECT_NE(r.find("field 'input'"), std::string::npos) << in << ": " << r;
        EXPECT_NE(r.find(reason), std::string::npos) << in << ": " << r;
    }
    EXPECT_NE(refusal({{"input", "missing.mp4"}}).find("(usage: field 'input': no file"), std::string::npos);
    ClientAccess none;
    EXPECT_THROW(check_client_fields({{"input", "cam.mp4"}}, none), Forbidden) << "no --media-root: no local files at all";
}

TEST_F(ClientFields, OutputsAreNullFilesUnderTheRecordingsRootOrListedHosts) {
    for (const std::string& out : std::vector<std::string>{"null", "cam.mp4", "cams/%Y/cam-%H%M%S.mp4", dir + "/rec/x.mkv", "rtsp://relay.example:8554/x",
                                  "srt://RELAY.example:9000"})
        EXPECT_EQ(refusal({{"output", out}}), "(allowed)") << out;
    EXPECT_EQ(check_client_fields({{"out", "a/b.mp4"}}, access).at("out"), dir + "/rec/a/b.mp4") << "either name of the option";
    const std::map<std::string, std::string> why = {
        {dir + "/outside/app.conf", "outside the folder"},
        {"../outside/app.conf", "'..'"},
        {"out/app.conf", "symbolic link"},
        {"-", "clients write null"},
        {"udp://203.0.113.9:1234", "not among the hosts"},
        {"rtmp://evil.example/live", "not among the hosts"},
        {"rtsp://user@relay.example.evil.example/x", "not among the hosts"},
        {"file:///etc/x", "file:// is not an output"},
        {"pipe:1", "clients write null"},
    };
    for (const auto& [out, reason] : why)
        for (const char* name : {"output", "out"}) {
            const std::string r = refusal({{name, out}});
            EXPECT_NE(r.find(reason), std::string::npos) << name << "=" << out << ": " << r;
        }
    EXPECT_EQ(std::ifstream(dir + "/outside/app.conf").rdbuf() != nullptr, true);
}

TEST_F(ClientFields, OperatorOnlyFieldsAreRefusedByName) {
    for (const char* field : {"allow-protocols", "overwrite", "queue", "decoder"}) {
        const std::string r = refusal({{field, "1"}});
        EXPECT_NE(r.find(std::string("field '") + field + "' is set only in serve's config file"), std::string::npos) << r;
    }
    EXPECT_EQ(refusal({{"crf", "20"}, {"filter", "sobel"}, {"segment", "10"}}), "(allowed)");
}

TEST_F(ClientFields, AStreamFromTheApiReadsKernelFilesOnlyUnderTheKernelFolder) {
    const std::string json = R"({"name": "c", "input": "cam.mp4", "output": "null", "filter": "convolution=file=/etc/passwd"})";
    EXPECT_THROW(stream_from_json(json, {}, access), Forbidden) << "no --kernel-dir";
    access.kernel_dir = dir + "/media";
    std::ofstream(dir + "/media/k.txt") << "0 -1 0\n-1 5 -1\n0 -1 0\n";
    EXPECT_THROW(stream_from_json(json, {}, access), Forbidden) << "outside --kernel-dir";
    const StreamConfig ok =
        stream_from_json(R"({"name": "c", "input": "cam.mp4", "output": "null", "filter": "convolution=file=k.txt"})", {}, access);
    EXPECT_FALSE(ok.options.filter.kernel_files.anywhere) << "the stream keeps the client's limit for later rebuilds";
    EXPECT_THROW(stream_from_json(R"({"name": "c", "input": "cam.mp4", "output": "-"})", {}, access), Forbidden);
    try {
        stream_from_json(R"({"name": "c", "input": "cam.mp4", "output": "null", "segment": 1e-9})", {}, access);
        ADD_FAILURE() << "a file a frame";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("at least 1 second"), std::string::npos) << e.what();
    }
}

TEST(ClientUrls, HostsAreReadAsTheNetworkSeesThem) {
    EXPECT_EQ(url_host("rtsp://user:pw@Cam.Local:554/x"), "cam.local");
    EXPECT_EQ(url_host("srt://[::1]:9000?mode=caller"), "::1");
    EXPECT_EQ(url_host("udp://203.0.113.9:1234"), "203.0.113.9");
    EXPECT_EQ(url_host("rtmp://a@b@relay.example/live"), "relay.example");
}

}  // namespace
}  // namespace vf
