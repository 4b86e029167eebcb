// Plans for RGB frames (FrameGeometry::rgb): no luma and no chroma, so vfilter's defaults filter
// every colour plane alike, and what a string names (planes=, chroma options) is kept.
#include <gtest/gtest.h>

#include "config/chain_spec.hpp"

namespace vf {
namespace {

FrameGeometry rgb_frames() {
    FrameGeometry g;
    g.width = 97;
    g.height = 61;
    g.log2_chroma_w = g.log2_chroma_h = 0;
    g.rgb = true;
    return g;
}

FilterPlan rgb_plan(const std::string& filter, FilterDefaults defaults = FilterDefaults::Vfilter) {
    return build_chain(filter, defaults, rgb_frames()).at(0);
}

TEST(RgbPlans, EveryColourPlaneGetsTheLumaOperation) {
    for (const char* filter : {"sobel", "prewitt", "laplacian", "sharpen", "unsharp", "unsharp=7:7:2", "boxblur=3:2", "gaussian=sigma=2"})
        for (FilterDefaults defaults : {FilterDefaults::Vfilter, FilterDefaults::Ffmpeg}) {
            FrameGeometry yuv444 = rgb_frames();
            yuv444.rgb = false;
            const FilterPlan yuv = build_chain(filter, defaults, yuv444).at(0), rgb = rgb_plan(filter, defaults);
            ASSERT_NE(yuv.ops[0].kind, OpKind::Copy) << filter;
            for (int c = 0; c < kMaxChannels; ++c) EXPECT_TRUE(same_operation(rgb.ops[c], yuv.ops[0])) << filter << " channel " << c;
        }
}

TEST(RgbPlans, WhatTheStringNamesIsKept) {
    const FilterPlan g_only = rgb_plan("sobel=planes=1");
    EXPECT_EQ(g_only.ops[0].kind, OpKind::Gradient);
    EXPECT_EQ(g_only.ops[1].kind, OpKind::Copy);
    EXPECT_EQ(g_only.ops[2].kind, OpKind::Copy);
    const FilterPlan chroma_named = rgb_plan("unsharp=luma_amount=1:chroma_amount=0");
    EXPECT_NE(chroma_named.ops[0].kind, OpKind::Copy);
    EXPECT_EQ(chroma_named.ops[1].kind, OpKind::Copy);
    EXPECT_FALSE(same_operation(rgb_plan("boxblur=lr=3:lp=1:cr=1:cp=2").ops[1], rgb_plan("boxblur=lr=3:lp=1:cr=1:cp=2").ops[0]));
}

TEST(RgbPlans, YuvPlansAreUnchanged) {
    const FilterPlan sobel = build_chain("sobel").at(0);
    EXPECT_EQ(sobel.ops[0].kind, OpKind::Gradient);
    EXPECT_EQ(sobel.ops[1].kind, OpKind::Fill);
    EXPECT_EQ(build_chain("unsharp").at(0).ops[1].kind, OpKind::Copy);
}

}  // namespace
}  // namespace vf
