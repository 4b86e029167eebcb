// NvdecBusyMeter (decode/nvdec_busy_meter.hpp) where NVML cannot be had: it says why in a line and
// reports nothing, so serve keeps its default NVDEC capacity (the GPU suite reads a real NVDEC).
#include <gtest/gtest.h>

#include "decode/nvdec_busy_meter.hpp"

namespace vf {
namespace {

TEST(NvdecBusyMeter, WithoutNvmlItSaysWhyAndMeasuresNothing) {
    const NvdecBusyMeter meter({{0, "0000:01:00.0"}}, "libvfilter-no-such-nvml.so.1");
    EXPECT_FALSE(meter.available());
    EXPECT_NE(meter.unavailable().find("NVML (libvfilter-no-such-nvml.so.1) cannot be loaded"), std::string::npos)
        << meter.unavailable();
    EXPECT_EQ(meter.unavailable().find('\n'), std::string::npos) << "one line";
    EXPECT_FALSE(meter.busy(0));
    EXPECT_FALSE(meter.busy(7));
}

}  // namespace
}  // namespace vf
