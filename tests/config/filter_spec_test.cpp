#include <gtest/gtest.h>

#include "common/error.hpp"
#include "config/filter_spec.hpp"

namespace vf {

TEST(FilterSpec, ParsesChainsOptionsAndQuotes) {
    auto s = parse_filter_specs("gaussian=sigma=2:size=13, sobel ,convolution=m='1,2,1':rdiv=0.25");
    ASSERT_EQ(s.size(), 3u);
    EXPECT_EQ(s[0].name, "gaussian");
    ASSERT_EQ(s[0].options.size(), 2u);
    EXPECT_EQ(s[0].options[1].first, "size");
    EXPECT_EQ(s[0].options[1].second, "13");
    EXPECT_EQ(s[1].name, "sobel");
    EXPECT_TRUE(s[1].options.empty());
    EXPECT_EQ(s[2].options[0].second, "1,2,1");
    EXPECT_EQ(s[2].options[1].second, "0.25");
}

TEST(FilterSpec, MatrixWithSpacesStaysOneValue) {
    auto s = parse_filter_specs("convolution=m=0 -1 0 -1 5 -1 0 -1 0");
    ASSERT_EQ(s[0].options.size(), 1u);
    EXPECT_EQ(s[0].options[0].second, "0 -1 0 -1 5 -1 0 -1 0");
}

TEST(FilterSpec, RejectsMalformedSpecs) {
    for (const char* bad : {"", "  ", "sobel,,box", "=x", "gaussian=sigma=1:sigma=2", "box=radius='3", "so bel",
                            "box=:radius=1", "sobel=planes=1:2", "sobel==1", "convolution=1 2 1:=3"}) {
        try {
            parse_filter_specs(bad);
            ADD_FAILURE() << "accepted: '" << bad << "'";
        } catch (const Error& e) {
            EXPECT_EQ(e.category(), ErrorCategory::Usage) << bad;
            EXPECT_FALSE(std::string(e.what()).empty());
        }
    }
}

// FFmpeg's shorthand: values by position until the first key=value, quotes and escapes keeping
// ':' and '=' inside a value.
TEST(FilterSpec, ValuesByPositionBeforeNamedOnes) {
    const auto s = parse_filter_specs("convolution=1 1 1 1 1 1 1 1 1:'0 1 0':1/9:0rdiv=2,sobel='a=b':x\\:y");
    ASSERT_EQ(s.size(), 2u);
    ASSERT_EQ(s[0].options.size(), 4u);
    EXPECT_EQ(s[0].options[0], (std::pair<std::string, std::string>{"", "1 1 1 1 1 1 1 1 1"}));
    EXPECT_EQ(s[0].options[1], (std::pair<std::string, std::string>{"", "0 1 0"}));
    EXPECT_EQ(s[0].options[2], (std::pair<std::string, std::string>{"", "1/9"}));
    EXPECT_EQ(s[0].options[3], (std::pair<std::string, std::string>{"0rdiv", "2"}));
    ASSERT_EQ(s[1].options.size(), 2u);
    EXPECT_EQ(s[1].options[0], (std::pair<std::string, std::string>{"", "a=b"}));  // quoted: a value, not a key
    EXPECT_EQ(s[1].options[1], (std::pair<std::string, std::string>{"", "x:y"}));  // escaped ':'
    try {
        parse_filter_specs("sobel=planes=1:0.5");
        ADD_FAILURE() << "a value by position after a named one was accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("must come before key=value"), std::string::npos) << e.what();
    }
}

}  // namespace vf
