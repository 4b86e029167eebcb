// What the element's test programs share: `vfilter` registered in their own process (so the
// sanitizer builds check its code too), once, before any test (include this in one source file
// of a test program). Their frames and runs: support/gst_element_run.hpp.
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

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

}  // namespace vf::test
