// What the tests of `vfilter serve` run as a user runs it share: HTTP to its API, and a fixture
// that writes the config file (its serve: block included) and starts serve on it.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/child_process.hpp"
#include "support/clip_writer.hpp"
#include "support/http_client.hpp"
#include "support/recording_check.hpp"
#include "support/run_command.hpp"

namespace vf::serve_fixture {

using namespace test;
using namespace std::chrono_literals;

// HTTP with a body and a method, for the API.
inline std::string api_request(int port, const std::string& method, const std::string& path, const std::string& body = "",
                 const std::string& token = "") {
    std::string req = method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n";
    if (!token.empty()) req += "Authorization: Bearer " + token + "\r\n";
    if (method == "POST" || method == "PUT") req += "Content-Type: application/json\r\n";
    req += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
    return http_exchange(port, req);
}
inline int status_of(const std::string& response) {
    return response.size() > 12 && response.rfind("HTTP/1.1 ", 0) == 0 ? std::atoi(response.c_str() + 9) : -1;
}
inline nlohmann::json body_json(const std::string& response) {
    const size_t at = response.find("\r\n\r\n");
    if (at == std::string::npos) return nullptr;
    return nlohmann::json::parse(response.substr(at + 4), nullptr, false);
}

inline bool same_pixels(const AVFrame* a, const AVFrame* b) {
    if (a->width != b->width || a->height != b->height || a->format != b->format) return false;
    for (int p = 0; p < 3; ++p) {
        const int h = p == 0 ? a->height : (a->height + 1) / 2, w = p == 0 ? a->width : (a->width + 1) / 2;
        for (int y = 0; y < h; ++y)
            if (std::memcmp(a->data[p] + y * a->linesize[p], b->data[p] + y * b->linesize[p], static_cast<size_t>(w)) != 0)
                return false;
    }
    return true;
}

class Serve : public ::testing::Test {
protected:
    // The operator lets API clients read and write files in the test's folder.
    void SetUp() override {
        dir = temp_dir();
        settings = {{"media-root", dir}, {"recordings-root", dir}, {"kernel-dir", dir}};
    }
    std::string clip(const std::string& name, int frames, unsigned seed = 1, int w = 96, int h = 64) {
        ClipSpec c;
        c.path = dir + "/" + name;
        c.frames = frames;
        c.width = w;
        c.height = h;
        c.seed = seed;
        c.audio = false;
        write_clip(c);
        return c.path;
    }
    // The config file's serve: block, from `settings`, set before the file is written.
    std::string serve_block() const {
        std::string block = "serve:\n";
        for (const auto& [key, value] : settings) block += "  " + key + ": '" + value + "'\n";
        return block;
    }
    // A streams.yaml gets the serve: block after the test's text.
    void write(const std::string& name, const std::string& text) {
        std::ofstream(dir + "/" + name) << text << (name == "streams.yaml" ? "\n" + serve_block() : "");
    }
    std::unique_ptr<ChildProcess> serve(std::vector<std::string> extra, const std::string& log = "serve.log") {
        std::vector<std::string> args = {VFILTER_BIN, "serve", "--config", dir + "/streams.yaml"};
        args.insert(args.end(), extra.begin(), extra.end());
        return std::make_unique<ChildProcess>(args, dir + "/" + log);
    }
    int api_port(ChildProcess& p) {
        if (!p.wait_for_log("control API: http://127.0.0.1:", 30)) return -1;
        const std::string log = p.log();
        const size_t at = log.find("control API: http://127.0.0.1:") + std::string("control API: http://127.0.0.1:").size();
        return std::atoi(log.c_str() + at);
    }
    nlohmann::json streams(int port, const std::string& token = "") { return body_json(api_request(port, "GET", "/streams", "", token)); }
    nlohmann::json stream(int port, const std::string& name) {
        for (const auto& s : streams(port))
            if (s["name"] == name) return s;
        return nullptr;
    }
    bool wait_state(int port, const std::string& name, const std::string& state, double timeout_s = 30) {
        for (int i = 0; i < timeout_s * 20; ++i) {
            const nlohmann::json s = stream(port, name);
            if (!s.is_null() && s["state"] == state) return true;
            std::this_thread::sleep_for(50ms);
        }
        return false;
    }
    std::string dir;
    std::map<std::string, std::string> settings;
};

}  // namespace vf::serve_fixture
