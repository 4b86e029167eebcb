// The protocol whitelist: what an input may open, itself and through what it references.
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "media/protocols.hpp"

namespace vf {
namespace {

TEST(InputPolicy, ProtocolOfAnInput) {
    EXPECT_EQ(input_protocol("clip.mp4"), "file");
    EXPECT_EQ(input_protocol("/data/cam 1.mkv"), "file");
    EXPECT_EQ(input_protocol("C:\\video.mp4"), "file");
    EXPECT_EQ(input_protocol("./a:b.mp4"), "file");
    EXPECT_EQ(input_protocol("file:clip.mp4"), "file");
    EXPECT_EQ(input_protocol("-"), "pipe");
    EXPECT_EQ(input_protocol("pipe:0"), "pipe");
    EXPECT_EQ(input_protocol("RTSP://cam/stream"), "rtsp");
    EXPECT_EQ(input_protocol("https://example.com/a.m3u8"), "https");
    EXPECT_EQ(input_protocol("concat:a.ts|b.ts"), "concat");
}

TEST(InputPolicy, LocalAndNetworkInputsNeverMix) {
    EXPECT_EQ(protocol_whitelist("clip.mp4", ""), "file,pipe");
    EXPECT_EQ(protocol_whitelist("-", ""), "file,pipe");
    const std::string net = protocol_whitelist("rtsp://127.0.0.1/x", "");
    EXPECT_EQ(net.find("file"), std::string::npos) << "a network input must not open local files";
    EXPECT_NE(net.find("rtp"), std::string::npos);
    EXPECT_NE(net.find("tls"), std::string::npos) << "https needs tls underneath";
}

TEST(InputPolicy, RefusedProtocolsSayHowToAllowThem) {
    for (const char* url : {"concat:a.ts|b.ts", "subfile:,start,0,end,10,:x.mp4", "data:,abc", "gopher://h/x"}) {
        try {
            protocol_whitelist(url, "");
            FAIL() << url;
        } catch (const Error& e) {
            EXPECT_EQ(e.category(), ErrorCategory::Input);
            EXPECT_NE(std::string(e.what()).find("--allow-protocols"), std::string::npos) << e.what();
        }
    }
    EXPECT_THROW(protocol_whitelist("clip.mp4", "http,https"), Error);
    EXPECT_EQ(protocol_whitelist("http://h/x.m3u8", "http,file"), "http,file") << "the user's list is used as given";
}

}  // namespace
}  // namespace vf
