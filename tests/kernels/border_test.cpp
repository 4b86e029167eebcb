#include <gtest/gtest.h>

#include "kernels/border.hpp"

namespace vf {

TEST(Border, MirrorReflectsWithoutRepeatingTheEdge) {
    // dcb|abcd|cba
    EXPECT_EQ(border_index(-1, 4, Border::Mirror), 1);
    EXPECT_EQ(border_index(-3, 4, Border::Mirror), 3);
    EXPECT_EQ(border_index(4, 4, Border::Mirror), 2);
    EXPECT_EQ(border_index(6, 4, Border::Mirror), 0);
    EXPECT_EQ(border_index(2, 4, Border::Mirror), 2);
}

TEST(Border, MirrorFoldsAgainForRadiiLargerThanThePlane) {
    // n=3: period 4: 0 1 2 1 0 1 2 ...
    EXPECT_EQ(border_index(-4, 3, Border::Mirror), 0);
    EXPECT_EQ(border_index(-5, 3, Border::Mirror), 1);
    EXPECT_EQ(border_index(7, 3, Border::Mirror), 1);
    EXPECT_EQ(border_index(8, 3, Border::Mirror), 0);
    for (int i = -50; i < 50; ++i) EXPECT_EQ(border_index(i, 1, Border::Mirror), 0);
}

TEST(Border, ReplicateClampsAndZeroReportsOutside) {
    EXPECT_EQ(border_index(-7, 5, Border::Replicate), 0);
    EXPECT_EQ(border_index(9, 5, Border::Replicate), 4);
    EXPECT_EQ(border_index(-1, 5, Border::Zero), -1);
    EXPECT_EQ(border_index(5, 5, Border::Zero), -1);
    EXPECT_EQ(border_index(4, 5, Border::Zero), 4);
}

// FFmpeg 5.1's 3x3 edge (vf_convolution.c setup_3x3): |i| at the start, 2n - 1 - i at the end.
TEST(Border, MirrorRepeatMirrorsTheStartAndRepeatsTheEnd) {
    // cb|abcd|dc
    EXPECT_EQ(border_index(-1, 4, Border::MirrorRepeat), 1);
    EXPECT_EQ(border_index(-2, 4, Border::MirrorRepeat), 2);
    EXPECT_EQ(border_index(4, 4, Border::MirrorRepeat), 3);
    EXPECT_EQ(border_index(5, 4, Border::MirrorRepeat), 2);
    EXPECT_EQ(border_index(2, 4, Border::MirrorRepeat), 2);
    // A plane of one or two samples, as FFmpeg folds it.
    EXPECT_EQ(border_index(-1, 1, Border::MirrorRepeat), 0);
    EXPECT_EQ(border_index(1, 1, Border::MirrorRepeat), 0);
    EXPECT_EQ(border_index(-1, 2, Border::MirrorRepeat), 1);
    EXPECT_EQ(border_index(2, 2, Border::MirrorRepeat), 1);
    // Beyond one fold, the nearest edge sample.
    for (int i = -50; i < 50; ++i) {
        const int k = border_index(i, 3, Border::MirrorRepeat);
        EXPECT_TRUE(k >= 0 && k < 3) << i;
    }
}

}  // namespace vf
