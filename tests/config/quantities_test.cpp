#include "config/quantities.hpp"

#include <gtest/gtest.h>

namespace vf {
namespace {

TEST(Quantities, AgesInEveryUnit) {
    double s = 0;
    ASSERT_TRUE(parse_age_s("90", &s));
    EXPECT_EQ(s, 90);
    ASSERT_TRUE(parse_age_s("90s", &s));
    EXPECT_EQ(s, 90);
    ASSERT_TRUE(parse_age_s("30m", &s));
    EXPECT_EQ(s, 1800);
    ASSERT_TRUE(parse_age_s("1.5h", &s));
    EXPECT_EQ(s, 5400);
    ASSERT_TRUE(parse_age_s("7d", &s));
    EXPECT_EQ(s, 7 * 86400);
    ASSERT_TRUE(parse_age_s("2w", &s));
    EXPECT_EQ(s, 14 * 86400);
}

TEST(Quantities, BadAgesAreRefused) {
    double s = -1;
    for (const char* bad : {"", "d", "0", "0d", "-1d", "+1d", " 1d", "7 d", "7days", "7D", "1y", "nan", "inf", "1e300d"})
        EXPECT_FALSE(parse_age_s(bad, &s)) << bad;
}

TEST(Quantities, SizesArePowersOf1024) {
    int64_t b = 0;
    ASSERT_TRUE(parse_bytes("512", &b));
    EXPECT_EQ(b, 512);
    ASSERT_TRUE(parse_bytes("4K", &b));
    EXPECT_EQ(b, 4096);
    ASSERT_TRUE(parse_bytes("40M", &b));
    EXPECT_EQ(b, 40LL << 20);
    ASSERT_TRUE(parse_bytes("40MB", &b));
    EXPECT_EQ(b, 40LL << 20);
    ASSERT_TRUE(parse_bytes("1.5GiB", &b));
    EXPECT_EQ(b, 3LL << 29);
    ASSERT_TRUE(parse_bytes("500G", &b));
    EXPECT_EQ(b, 500LL << 30);
    ASSERT_TRUE(parse_bytes("2T", &b));
    EXPECT_EQ(b, 2LL << 40);
}

TEST(Quantities, BadSizesAreRefused) {
    int64_t b = -1;
    for (const char* bad : {"", "G", "0", "0G", "-5G", "5 G", "5g", "5X", "5GB ", "5GiBs", "0.1", "nan", "1e30T"})
        EXPECT_FALSE(parse_bytes(bad, &b)) << bad;
}

TEST(Quantities, FreeSpaceFloorIsAShareOrASize) {
    FreeSpaceFloor f;
    ASSERT_TRUE(parse_free_space_floor("5%", &f));
    EXPECT_EQ(f.bytes_of(1000), 50);
    ASSERT_TRUE(parse_free_space_floor("20G", &f));
    EXPECT_EQ(f.bytes_of(1000), 20LL << 30);
    EXPECT_TRUE(f.set());
    EXPECT_FALSE(FreeSpaceFloor{}.set());
    for (const char* bad : {"%", "0%", "100%", "150%", "-5%", "5%%", "5 %", "abc", ""})
        EXPECT_FALSE(parse_free_space_floor(bad, &f)) << bad;
}

TEST(Quantities, BytesForPeople) {
    EXPECT_EQ(format_bytes(512), "512 B");
    EXPECT_EQ(format_bytes(40 << 20), "40.0 MiB");
    EXPECT_EQ(format_bytes(3LL << 29), "1.5 GiB");
}

}  // namespace
}  // namespace vf
