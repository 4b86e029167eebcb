// Passwords and tokens in URLs never reach a log line, error, summary or stats file.
#include <gtest/gtest.h>

#include "common/redact.hpp"

namespace vf {
namespace {

TEST(Redact, PasswordsInUrlsAreReplaced) {
    EXPECT_EQ(redact_credentials("input: 'rtsp://admin:s3cret@cam.local:554/stream1' (rtsp)"),
              "input: 'rtsp://admin:***@cam.local:554/stream1' (rtsp)");
    EXPECT_EQ(redact_credentials("rtmp://u:p%40ss@host/live/x and http://a:b@c"), "rtmp://u:***@host/live/x and http://a:***@c");
    EXPECT_EQ(redact_credentials("rtsp://admin:pa@ss@cam/x"), "rtsp://admin:***@cam/x") << "the last @ ends the user part";
    EXPECT_EQ(redact_credentials("{\"input\": \"rtsp://admin:s3cret@cam/1\"}"), "{\"input\": \"rtsp://admin:***@cam/1\"}");
}

TEST(Redact, SecretQueryParametersAreReplaced) {
    EXPECT_EQ(redact_credentials("srt://host:9000?mode=caller&passphrase=verysecret1&latency=200"),
              "srt://host:9000?mode=caller&passphrase=***&latency=200");
    EXPECT_EQ(redact_credentials("https://cdn/x.m3u8?Token=abc123 failed"), "https://cdn/x.m3u8?Token=*** failed");
    EXPECT_EQ(redact_credentials("http://h/p?password=x#frag"), "http://h/p?password=***#frag");
}

TEST(Redact, EverythingElseIsLeftAlone) {
    for (const char* text : {"rtsp://cam.local:554/stream", "rtsp://user@cam/1", "http://h/p?mode=listener&latency=2",
                             "no URL here: a=b; c=d", "output: 'out.mp4' (mp4, libx264 yuv420p)", "keyframe=1&size=3", ""})
        EXPECT_EQ(redact_credentials(text), text);
}

}  // namespace
}  // namespace vf
