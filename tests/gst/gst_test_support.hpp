// What the element's test programs share: `vfilter` registered in their own process (so the
// sanitizer builds check its code too), once, before any test (include this in one source file
// of a test program), and random frames.
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "gst/gstvfilter.hpp"

namespace vf::test {

class GstElementRegistration : public ::testing::Environment {
public:
    void SetUp() override {
        gst_init(nullptr, nullptr);
        ASSERT_TRUE(gst_plugin_register_static(GST_VERSION_MAJOR, GST_VERSION_MINOR, "vfilter", "vfilter's filters (this test)",
                                               gst_vfilter_register, "0.1.0", "unknown", "vfilter", "vfilter", "vfilter tests"));
    }
};
inline const auto* const kGstElementRegistration = ::testing::AddGlobalTestEnvironment(new GstElementRegistration);

// Fills a mapped frame (padding included) with random samples in its format's range: 10-bit ones
// below 1024, P010's in its high bits.
inline void fill_random(GstVideoFrame& frame, uint32_t seed) {
    std::mt19937 rng(seed);
    const bool deep = GST_VIDEO_FORMAT_INFO_DEPTH(frame.info.finfo, 0) > 8;
    const bool msb = GST_VIDEO_FRAME_FORMAT(&frame) == GST_VIDEO_FORMAT_P010_10LE;
    for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES(&frame); ++p) {
        auto* data = static_cast<uint8_t*>(GST_VIDEO_FRAME_PLANE_DATA(&frame, p));
        const int stride = GST_VIDEO_FRAME_PLANE_STRIDE(&frame, p);
        const int rows = GST_VIDEO_FRAME_COMP_HEIGHT(&frame, p == 0 ? 0 : 1);
        for (int y = 0; y < rows; ++y)
            for (int x = 0; x < stride / (deep ? 2 : 1); ++x) {
                if (!deep) data[y * stride + x] = static_cast<uint8_t>(rng());
                else reinterpret_cast<uint16_t*>(data + y * stride)[x] = static_cast<uint16_t>(msb ? (rng() & 1023) << 6 : rng() & 1023);
            }
    }
}

}  // namespace vf::test
