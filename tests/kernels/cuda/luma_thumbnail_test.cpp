// The luma thumbnail on the GPU (kernels/cuda/luma_thumbnail.cu) gives the CPU's bytes
// (kernels/luma_thumbnail.cpp), at odd sizes, 8, 10 (planar and p010's shift) and 16 bits, with
// the device buffers and the host copy poisoned first.
#include "kernels/cuda/luma_thumbnail.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>

#include "support/gpu_check.hpp"
#include "support/random_plane.hpp"

namespace vf::gpu_test {
namespace {

struct ThumbCase {
    int width, height, depth, shift;
};

TEST(LumaThumbnailGpu, EqualsTheCpuBytes) {
    SKIP_WITHOUT_GPU();
    const ThumbCase cases[] = {{1920, 1080, 8, 0}, {1921, 1081, 8, 0}, {645, 361, 8, 0},   {641, 3, 8, 0},
                               {319, 17, 8, 0},    {1, 1, 8, 0},       {977, 555, 10, 0},  {977, 555, 10, 6},
                               {1283, 719, 16, 0}, {3841, 2161, 10, 6}};
    const auto ctx = cuda::DeviceContext::create(0);
    cuda::Stream stream;
    unsigned seed = 650;
    for (const ThumbCase& c : cases) {
        const std::string name = std::to_string(c.width) + "x" + std::to_string(c.height) + " depth " + std::to_string(c.depth) +
                                 " shift " + std::to_string(c.shift);
        test::TestPlane plane(c.width, c.height, c.depth, 1, 0, c.shift);
        std::mt19937 rng(seed++);
        plane.fill_random(rng);
        const LumaThumbnail expected = make_luma_thumbnail(plane.view());

        cuda::new_buffer_fill() = test::poison_byte();
        cuda::DeviceBuffer device_plane(plane.size_bytes());
        cuda::copy_to_device_now(device_plane.data(), plane.bytes(), plane.size_bytes());
        cuda::GpuLumaThumbnail gpu(*ctx, c.width, c.height);
        cuda::new_buffer_fill() = -1;
        ASSERT_EQ(gpu.shape().width, expected.width) << name;
        ASSERT_EQ(gpu.shape().height, expected.height) << name;
        std::memset(const_cast<uint8_t*>(gpu.host()), test::poison_byte(), expected.samples.size());

        gpu.make(plane.view_at(device_plane.data()), stream.get());
        gpu.wait();
        ASSERT_TRUE(gpu.ready()) << name;
        const LumaThumbnail got = gpu.copy();
        ASSERT_EQ(got.samples.size(), expected.samples.size()) << name;
        for (size_t i = 0; i < expected.samples.size(); ++i)
            ASSERT_EQ(got.samples[i], expected.samples[i]) << name << " at sample " << i;
    }
}

// A thumbnail made twice on one object: the second make's bytes, not the first's.
TEST(LumaThumbnailGpu, EachMakeReplacesTheLast) {
    SKIP_WITHOUT_GPU();
    const auto ctx = cuda::DeviceContext::create(0);
    cuda::Stream stream;
    cuda::GpuLumaThumbnail gpu(*ctx, 1280, 720);
    for (unsigned seed : {1u, 2u}) {
        test::TestPlane plane(1280, 720, 8);
        std::mt19937 rng(seed);
        plane.fill_random(rng);
        cuda::DeviceBuffer device_plane(plane.size_bytes());
        cuda::copy_to_device_now(device_plane.data(), plane.bytes(), plane.size_bytes());
        gpu.make(plane.view_at(device_plane.data()), stream.get());
        gpu.wait();
        EXPECT_EQ(gpu.copy().samples, make_luma_thumbnail(plane.view()).samples) << "seed " << seed;
    }
}

}  // namespace
}  // namespace vf::gpu_test
