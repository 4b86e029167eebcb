// Streams of `vfilter serve` that watch themselves (app/serve/watch/, docs/serve.md "Cameras that
// watch themselves"), run as a user runs them: a camera whose picture goes black is reported dark
// within 2 s in GET /events, GET /streams and /metrics; the events' parameters are refused with
// the parameter named and nothing changed; a stream's watch fields are checked at the door.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <thread>

#include "app/serve/serve_config.hpp"
#include "app/serve/webhook_sender.hpp"
#include "support/recording_peer.hpp"
#include "support/sanitizer_build.hpp"
#include "serve_fixture.hpp"

namespace vf {
namespace {

using namespace serve_fixture;

double wall_seconds() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

class ServeWatch : public Serve {
protected:
    // A clip of testsrc2 for `lit_s` seconds, then black for `dark_s`, at 10 frames a second.
    std::string lit_then_black(int lit_s, int dark_s) {
        const std::string path = dir + "/lit_then_black.mkv";
        const std::string size = "s=160x90:r=10";
        const CommandResult made = run_command(
            {"ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=" + size + ":d=" + std::to_string(lit_s), "-f", "lavfi", "-i",
             "color=c=black:" + size + ":d=" + std::to_string(dark_s), "-filter_complex", "[0:v][1:v]concat=n=2:v=1:a=0,format=yuv420p",
             "-c:v", "ffv1", path});
        EXPECT_EQ(made.exit_code, 0) << made.output;
        return path;
    }
    nlohmann::json events(int port, const std::string& query, const std::string& token = "") {
        return body_json(api_request(port, "GET", "/events" + query, "", token));
    }
    std::string metrics(int port) {
        const std::string r = api_request(port, "GET", "/metrics");
        return r.substr(r.find("\r\n\r\n") + 4);
    }
};

TEST_F(ServeWatch, APictureGoingBlackIsReportedDarkWithinTwoSeconds) {
    const std::string clip = lit_then_black(4, 5);
    // A webhook's receiver that fails its first call: the event comes again, signed.
    std::atomic<int> hook_calls{0};
    test::RecordingPeer hook([&hook_calls](const HttpRequest&) {
        HttpResponse r;
        r.status = ++hook_calls == 1 ? 503 : 200;
        return r;
    });
    const std::string secret = "webhook-secret-of-the-test";
    std::ofstream(dir + "/hook.secret") << secret << "\n";
    settings["webhook"] = "http://127.0.0.1:" + std::to_string(hook.port()) + "/hooks/cam";
    settings["webhook-secret-file"] = dir + "/hook.secret";
    write("streams.yaml", "streams:\n  - {name: cam, input: " + clip + ", output: 'null', realtime: true}\n");
    auto p = serve({"--api-port", "0"});
    const int port = api_port(*p);
    ASSERT_GT(port, 0) << p->log();
    // The clip's first frame is read about when the stream counts its first frame in.
    double started = 0;
    for (int i = 0; i < 400 && started == 0; ++i) {
        const nlohmann::json s = stream(port, "cam");
        if (!s.is_null() && s.value("frames_in", 0) > 0) started = wall_seconds();
        else std::this_thread::sleep_for(25ms);
    }
    ASSERT_GT(started, 0) << p->log();
    HttpConnection live(port, "GET /events/stream?stream=cam&kind=dark HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    const double black_from = started - 0.1 + 4;  // its first frame was read up to a poll before it was seen
    nlohmann::json dark;
    for (int i = 0; i < 160 && dark.is_null(); ++i) {
        const nlohmann::json found = events(port, "?stream=cam&kind=dark");
        if (found.is_object() && !found["events"].empty()) dark = found["events"][0];
        else std::this_thread::sleep_for(50ms);
    }
    ASSERT_FALSE(dark.is_null()) << p->log();
    EXPECT_EQ(dark["change"], "entered");
    EXPECT_EQ(dark["stream"], "cam");
    EXPECT_LT(dark["value"].get<double>(), 28) << "the luma mean of a black picture";
    EXPECT_GE(dark["time"].get<double>(), black_from) << "not before the picture went black";
    // Within 2 s of the change (the target; 1.3 s in the release build here). A sanitizer build on
    // a loaded machine measures late, not wrongly: 4 s there, which a hold that kept restarting misses.
    EXPECT_LE(dark["time"].get<double>(), black_from + (test::kSanitizerBuild ? 4.0 : 2.2)) << "within 2 s of the change";
    // The event stream opened before the change carries the same event, as Server-Sent Events.
    const std::string sent = live.read_until("\"kind\":\"dark\"", 5s);
    EXPECT_NE(sent.find("text/event-stream"), std::string::npos) << sent;
    const std::string boot = events(port, "")["boot"];
    EXPECT_NE(sent.find("id: " + boot + "-" + std::to_string(dark["id"].get<int>()) + "\nevent: condition\ndata: {"), std::string::npos) << sent;
    EXPECT_NE(sent.find("\"change\":\"entered\""), std::string::npos) << sent;
    // A reader that reconnects with Last-Event-ID gets the events it missed, at once.
    HttpConnection resumed(port, "GET /events/stream?stream=cam HTTP/1.1\r\nHost: 127.0.0.1\r\nLast-Event-ID: " + boot + "-" +
                                         std::to_string(dark["id"].get<int>() - 1) + "\r\n\r\n");
    const std::string again = resumed.read_until("\"kind\":\"dark\"", 3s);
    EXPECT_NE(again.find("id: " + boot + "-" + std::to_string(dark["id"].get<int>()) + "\nevent: condition\n"), std::string::npos) << again;
    // The measures' recent history, for the page's graphs: lit, then black.
    const nlohmann::json watched = body_json(api_request(port, "GET", "/streams/cam/watch"));
    ASSERT_TRUE(watched.is_object() && watched.contains("history")) << watched.dump();
    const nlohmann::json& luma = watched["history"]["luma_mean"];
    ASSERT_GE(luma.size(), 8u) << watched.dump();
    EXPECT_EQ(watched["history"]["time"].size(), luma.size());
    EXPECT_GT(luma[0].get<double>(), 40) << "testsrc2's first seconds";
    EXPECT_LT(luma.back().get<double>(), 28) << "black now";
    EXPECT_NE(watched["conditions"].dump().find("\"dark\""), std::string::npos) << watched.dump();
    const nlohmann::json last_second = body_json(api_request(port, "GET", "/streams/cam/watch?seconds=1"));
    EXPECT_LE(last_second["history"]["time"].size(), 6u) << "a second of samples, four a second";
    const nlohmann::json entry = stream(port, "cam");
    ASSERT_TRUE(entry.contains("watch")) << entry.dump();
    EXPECT_NE(entry["watch"]["conditions"].dump().find("\"dark\""), std::string::npos) << entry.dump();
    EXPECT_LT(entry["watch"]["measures"]["luma_mean"].get<double>(), 28);
    const std::string m = metrics(port);
    EXPECT_NE(m.find("vfilter_stream_condition{stream=\"cam\",kind=\"dark\"} 1"), std::string::npos) << m;
    EXPECT_NE(m.find("vfilter_stream_events_total{stream=\"cam\",kind=\"dark\"} 1"), std::string::npos) << m;
    EXPECT_NE(m.find("vfilter_stream_condition{stream=\"cam\",kind=\"bright\"} 0"), std::string::npos) << m;
    // Nothing else of the lit picture was taken for a fault (motion is what testsrc2 shows).
    for (const char* kind : {"blurred", "covered", "frozen", "bright", "moved"})
        EXPECT_TRUE(events(port, std::string("?stream=cam&kind=") + kind)["events"].empty()) << kind;
    EXPECT_TRUE(events(port, "?stream=other")["events"].empty());
    EXPECT_TRUE(events(port, "?stream=cam&kind=dark&since=" + std::to_string(wall_seconds() + 60))["events"].empty());
    // The webhook got it: the same event, signed with the secret, after its first call failed.
    std::string posted;
    for (int i = 0; i < 100 && posted.empty(); ++i) {
        for (const std::string& r : hook.requests())
            if (r.find("\"kind\":\"dark\"") != std::string::npos && hook_calls >= 2) posted = r;
        if (posted.empty()) std::this_thread::sleep_for(50ms);
    }
    ASSERT_FALSE(posted.empty()) << hook.requests().size() << " calls; " << p->log();
    const auto header = [&posted](const std::string& name) {
        const size_t at = posted.find("\r\n" + name + ": ");
        return at == std::string::npos ? std::string() : posted.substr(at + name.size() + 4, posted.find("\r\n", at + 2) - at - name.size() - 4);
    };
    const std::string body = posted.substr(posted.find("\r\n\r\n") + 4);
    EXPECT_EQ(posted.rfind("POST /hooks/cam HTTP/1.1", 0), 0u) << posted;
    EXPECT_EQ(nlohmann::json::parse(body)["id"], dark["id"]);
    EXPECT_EQ(header("X-Vfilter-Signature"), webhook_signature(secret, header("X-Vfilter-Timestamp"), body));
    EXPECT_EQ(p->log().find(secret), std::string::npos) << "the secret is never logged";
    EXPECT_NE(metrics(port).find("vfilter_webhook_retries_total 1"), std::string::npos) << metrics(port);
}

TEST_F(ServeWatch, EventParametersAreCheckedAndChangeNothing) {
    const std::string token = "a-token-of-twenty-chars", viewer = "a-viewer-token-of-twenty";
    std::ofstream(dir + "/viewer.token") << viewer << "\n";
    settings["viewer-token-file"] = dir + "/viewer.token";
    write("streams.yaml", "streams:\n  - {name: cam, input: 'pattern://?size=160x90&rate=10&motion=ball', output: 'null', "
                          "realtime: true, watch.dark.enter: 20}\n"
                          "  - {name: quiet, input: 'pattern://?size=160x90&rate=10', output: 'null', realtime: true, watch: false}\n");
    auto p = serve({"--api-port", "0", "--api-token", token});
    const int port = api_port(*p);
    ASSERT_GT(port, 0) << p->log();
    const nlohmann::json before = events(port, "", token);
    ASSERT_TRUE(before.is_object() && before.contains("events")) << before.dump();
    EXPECT_EQ(status_of(api_request(port, "GET", "/events")), 401) << "the token, as for /streams";
    EXPECT_EQ(status_of(api_request(port, "GET", "/events/stream")), 401);
    EXPECT_EQ(status_of(api_request(port, "GET", "/events", "", "not-the-token-of-serve")), 401);
    EXPECT_EQ(status_of(api_request(port, "GET", "/events?kind=dark", "", viewer)), 200) << "the viewer reads events";
    const std::pair<const char*, const char*> refused[] = {
        {"?kind=foggy", "kind"},           {"?since=soon", "since"},         {"?since=1e300", "since"},
        {"?since=-5", "since"},            {"?after=-1", "after"},           {"?after=99999999999999999999999", "after"},
        {"?limit=0", "limit"},             {"?limit=100000000", "limit"},    {"?stream=a%2Fb", "stream"},
        {"?colour=red", "unknown parameter"}, {"?kind=dark&kind=dark", "kind"},
        {"?stream=a-name-longer-than-sixty-four-characters-is-no-stream-name-of-vfilter-serve", "stream"},
    };
    for (const auto& [query, named] : refused) {
        const std::string r = api_request(port, "GET", std::string("/events") + query, "", token);
        EXPECT_EQ(status_of(r), 400) << query << ": " << r;
        const std::string error = body_json(r).value("error", "");
        EXPECT_NE(error.find(named), std::string::npos) << query << ": " << error;
        EXPECT_EQ(error.find("foggy"), std::string::npos) << "a refusal does not echo what it read";
    }
    EXPECT_EQ(status_of(api_request(port, "GET", "/events/stream?limit=5", "", token)), 400) << "an event stream takes no limit";
    EXPECT_EQ(status_of(api_request(port, "POST", "/events", "{}", token)), 405);
    // Last-Event-ID, read at the door: digits only, bounded, never echoed.
    for (const std::string& bad : std::vector<std::string>{"abc", "-1", "99999999999999999", "1e3", std::string(3000, '7')}) {
        HttpConnection c(port, "GET /events/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + token +
                                       "\r\nLast-Event-ID: " + bad + "\r\n\r\n");
        const std::string r = c.read_until("\r\n\r\n{", 5s);
        EXPECT_EQ(status_of(r), 400) << bad << ": " << r;
        EXPECT_NE(body_json(c.read_until("}", 2s)).value("error", "").find("Last-Event-ID"), std::string::npos) << r;
        EXPECT_EQ(r.find(bad, r.find("\r\n\r\n")), std::string::npos) << "a refusal does not echo what it read";
    }
    // The measures' history: the token of /streams, a typed query, and only for a watched stream.
    EXPECT_EQ(status_of(api_request(port, "GET", "/streams/cam/watch")), 401);
    EXPECT_EQ(status_of(api_request(port, "GET", "/streams/cam/watch", "", viewer)), 200) << "the viewer reads the graphs";
    EXPECT_EQ(status_of(api_request(port, "GET", "/streams/quiet/watch", "", token)), 404) << "watch: false";
    EXPECT_EQ(status_of(api_request(port, "GET", "/streams/nobody/watch", "", token)), 404);
    for (const char* query : {"?seconds=0", "?seconds=121", "?seconds=ten", "?seconds=5&seconds=6", "?side=input"})
        EXPECT_EQ(status_of(api_request(port, "GET", std::string("/streams/cam/watch") + query, "", token)), 400) << query;
    EXPECT_EQ(status_of(api_request(port, "PUT", "/streams/cam/watch", "{}", token)), 405);
    EXPECT_EQ(status_of(api_request(port, "DELETE", "/events", "", token)), 405);
    // Event streams are bounded in number; a place comes back once its reader leaves.
    const std::string open_stream = "GET /events/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + token + "\r\n\r\n";
    std::vector<std::unique_ptr<HttpConnection>> readers;
    for (int i = 0; i < 4; ++i) {
        readers.push_back(std::make_unique<HttpConnection>(port, open_stream));
        EXPECT_NE(readers.back()->read_until(": vfilter events", 5s).find("HTTP/1.1 200"), std::string::npos) << i;
    }
    EXPECT_EQ(status_of(api_request(port, "GET", "/events/stream", "", token)), 503) << "a fifth reader waits";
    EXPECT_EQ(status_of(api_request(port, "GET", "/events", "", token)), 200) << "the list still answers";
    readers.back()->close_now();
    bool place_back = false;
    for (int i = 0; i < 40 && !place_back; ++i) {
        HttpConnection again(port, open_stream);
        place_back = again.read_until(": vfilter events", 2s).find("HTTP/1.1 200") != std::string::npos;
        if (!place_back) std::this_thread::sleep_for(100ms);
    }
    EXPECT_TRUE(place_back) << "the place of the reader that left is given back";
    const nlohmann::json after = events(port, "?stream=cam&kind=dark", token);
    EXPECT_TRUE(after["events"].empty()) << after.dump();
    ASSERT_EQ(streams(port, token).size(), 2u) << "the streams are still the two of the file";
    // A stream whose entry says watch: false is not watched; the other one is.
    for (const nlohmann::json& s : streams(port, token)) EXPECT_EQ(s.contains("watch"), s["name"] == "cam") << s.dump();
    const std::string m = metrics(port);
    EXPECT_NE(m.find("vfilter_stream_condition{stream=\"cam\",kind=\"dark\"}"), std::string::npos) << m;
    EXPECT_EQ(m.find("vfilter_stream_condition{stream=\"quiet\""), std::string::npos) << m;
}

// An entry's fields through the operator's door (the YAML file), read as the option table reads them.
StreamConfig entry_with(const std::string& fields) {
    return parse_serve_config("streams:\n  - {name: c, input: x.mp4, output: 'null'" + fields + "}\n", "streams.yaml").streams.at(0);
}

TEST(ServeWatchFields, AreTypedAndCheckedAtTheDoor) {
    const StreamConfig ok = entry_with(", watch: false, watch.dark.enter: 20, watch.measure_rate_hz: 2");
    EXPECT_FALSE(ok.watch.enabled);
    EXPECT_EQ(ok.watch.settings.of(watch::Condition::Dark).enter.value_or(0), 20);
    EXPECT_EQ(ok.watch.settings.measure_rate_hz.value_or(0), 2);
    EXPECT_TRUE(entry_with("").watch.enabled) << "on by default";
    EXPECT_EQ(field_type("watch.dark.enter"), FieldType::Number);
    EXPECT_EQ(field_type("watch.frozen.enabled"), FieldType::Boolean);
    const std::pair<const char*, const char*> bad[] = {
        {", watch.dark.enter: 300", "watch.dark.enter"},
        {", watch.dark.enter: dim", "watch.dark.enter"},
        {", watch.dark.leave: 10", "watch.dark.leave"},
        {", watch.motion.enabled: 3", "watch.motion.enabled"},
        {", watch.motion_noise_levels: 2.5", "watch.motion_noise_levels"},
        {", watch.measure_rate_hz: 100", "watch.measure_rate_hz"},
        {", watch.fog.enter: 1", "watch.fog.enter"},
        {", watch: sometimes", "watch"},
    };
    for (const auto& [field, named] : bad) {
        try {
            entry_with(field);
            ADD_FAILURE() << field << " was taken";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find(named), std::string::npos) << e.what();
            EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << "one line";
        }
    }
}

// A webhook is refused at start, in one line naming what to set, when its receiver could not
// check it (no secret) or its URL is not one; nothing runs.
TEST_F(ServeWatch, AWebhookWithoutASecretOrWithABadUrlIsRefusedAtStart) {
    std::ofstream(dir + "/hook.secret") << "webhook-secret-of-the-test\n";
    const std::vector<std::pair<std::map<std::string, std::string>, std::string>> cases = {
        {{{"webhook", "http://127.0.0.1:9/hook"}}, "webhook-secret-file"},
        {{{"webhook-secret-file", dir + "/hook.secret"}}, "webhook"},
        {{{"webhook", "ftp://127.0.0.1/hook"}, {"webhook-secret-file", dir + "/hook.secret"}}, "webhook"},
        {{{"webhook", "http://127.0.0.1:9/hook"}, {"webhook-secret-file", dir + "/missing.secret"}}, "webhook-secret-file"},
    };
    for (const auto& [extra, named] : cases) {
        for (const auto& [k, v] : extra) settings[k] = v;
        write("streams.yaml", "streams:\n  - {name: cam, input: 'pattern://?size=160x90&rate=10', output: 'null'}\n");
        const CommandResult r = run_vfilter({"serve", "--config", dir + "/streams.yaml"}, 30);
        EXPECT_EQ(r.exit_code, 2) << r.output;
        EXPECT_NE(r.output.find(named), std::string::npos) << r.output;
        EXPECT_EQ(lines_containing(r.output, "error"), 1) << r.output;
        for (const auto& [k, v] : extra) settings.erase(k);
    }
}

}  // namespace
}  // namespace vf
