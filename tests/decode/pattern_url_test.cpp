// pattern:// inputs: what they parse to, and a one-line refusal naming the parameter for anything
// else. What they produce (moving, paced, endless) is tested on the command line (cli_test.cpp).
#include <gtest/gtest.h>

#include <chrono>

#include "common/error.hpp"
#include "decode/pattern_url.hpp"
#include "decode/synthetic_source.hpp"
#include "media/frame.hpp"

namespace vf {
namespace {

std::string refusal(const std::string& url) {
    try {
        parse_pattern_url(url);
    } catch (const Error& e) {
        EXPECT_EQ(e.category(), ErrorCategory::Usage);
        EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << "one line: " << e.what();
        return e.what();
    }
    ADD_FAILURE() << url << " was accepted";
    return "";
}

TEST(PatternUrl, DefaultsAndEveryParameter) {
    EXPECT_TRUE(is_pattern_url("pattern://"));
    EXPECT_FALSE(is_pattern_url("patterns://x"));
    EXPECT_FALSE(is_pattern_url("/tmp/pattern://x"));
    const PatternOptions d = parse_pattern_url("pattern://");
    EXPECT_EQ(d.width, 1280);
    EXPECT_EQ(d.height, 720);
    EXPECT_EQ(d.rate, 30);
    EXPECT_EQ(d.motion, PatternMotion::Ball);
    const PatternOptions p = parse_pattern_url("pattern://?size=320x240&rate=50&motion=checker&seed=7");
    EXPECT_EQ(p.width, 320);
    EXPECT_EQ(p.height, 240);
    EXPECT_EQ(p.rate, 50);
    EXPECT_EQ(p.motion, PatternMotion::Checker);
    EXPECT_EQ(p.seed, 7u);
    EXPECT_EQ(parse_pattern_url("pattern://?motion=bars").motion, PatternMotion::Bars);
}

TEST(PatternUrl, RefusalsNameTheParameterAndWhatItTakes) {
    EXPECT_NE(refusal("pattern://?size=320").find("WIDTHxHEIGHT"), std::string::npos);
    EXPECT_NE(refusal("pattern://?size=321x240").find("even"), std::string::npos);
    EXPECT_NE(refusal("pattern://?size=8x8").find("16.."), std::string::npos);
    EXPECT_NE(refusal("pattern://?rate=0").find("rate=0"), std::string::npos);
    EXPECT_NE(refusal("pattern://?rate=fast").find("whole number"), std::string::npos);
    EXPECT_NE(refusal("pattern://?motion=spin").find("ball, bars or checker"), std::string::npos);
    EXPECT_NE(refusal("pattern://?colour=red").find("unknown parameter 'colour'"), std::string::npos);
    EXPECT_NE(refusal("pattern://?rate=30&rate=25").find("twice"), std::string::npos);
    EXPECT_NE(refusal("pattern://x").find("'?'"), std::string::npos);
    EXPECT_NE(refusal("pattern://?rate").find("NAME=VALUE"), std::string::npos);
    EXPECT_NE(refusal("pattern://?rate=0").find("pattern:// takes size=WxH"), std::string::npos) << "says what it takes";
}

// Live and paced at its rate; endless until stopped; every motion moves, and two seeds of one
// motion differ.
TEST(PatternSource, PacedEndlessAndMoving) {
    PatternOptions o = parse_pattern_url("pattern://?size=64x48&rate=100&motion=bars");
    SyntheticSource source(o);
    EXPECT_TRUE(source.live());
    const auto start = std::chrono::steady_clock::now();
    std::vector<AvFramePtr> frames;
    for (int i = 0; i < 20; ++i) {
        auto item = source.read();
        ASSERT_TRUE(item.has_value());
        frames.push_back(std::move(std::get<VideoFrame>(*item).frame));
    }
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_GE(took, 0.18) << "20 frames at 100 fps take at least 0.19 s";
    EXPECT_EQ(frames.back()->pts, 19);
    source.stop();
    EXPECT_FALSE(source.read().has_value());
    for (const char* motion : {"ball", "bars", "checker"}) {
        SyntheticSource a(parse_pattern_url(std::string("pattern://?size=64x48&rate=240&motion=") + motion));
        SyntheticSource b(parse_pattern_url(std::string("pattern://?size=64x48&rate=240&seed=9&motion=") + motion));
        auto first = std::get<VideoFrame>(*a.read()).frame;
        for (int i = 0; i < 20; ++i) a.read();
        auto later = std::get<VideoFrame>(*a.read()).frame;
        auto other = std::get<VideoFrame>(*b.read()).frame;
        auto differ = [](const AVFrame* x, const AVFrame* y) {
            long n = 0;
            for (int r = 0; r < x->height; ++r)
                for (int c = 0; c < x->width; ++c) n += std::abs(x->data[0][r * x->linesize[0] + c] - y->data[0][r * y->linesize[0] + c]) > 20;
            return n;
        };
        EXPECT_GT(differ(first.get(), later.get()), 64 * 48 / 20) << motion << " does not move";
        EXPECT_GT(differ(first.get(), other.get()), 64 * 48 / 20) << motion << ": two seeds gave one picture";
    }
}

}  // namespace
}  // namespace vf
