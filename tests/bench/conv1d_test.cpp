// The GPU's long 1D convolution (direct and FFT) against the double-precision reference, on
// fresh random signals and taps, odd lengths included; outputs poisoned (NaN) first.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "bench/conv1d/conv1d_reference.hpp"
#include "bench/conv1d/conv1d.hpp"
#include "kernels/cuda/device_buffer.hpp"
#include "kernels/cuda_backend.hpp"

namespace vf {
namespace {

struct Case {
    int count, taps;
};

class Conv1dGpu : public ::testing::TestWithParam<Case> {};

TEST_P(Conv1dGpu, DirectAndFftMatchReference) {
    std::string why;
    if (!cuda_device_available(&why)) GTEST_SKIP() << "GPU test skipped: " << why;
    const Case c = GetParam();
    std::mt19937 rng(c.count * 31 + c.taps);
    std::uniform_real_distribution<float> d(-1, 1);
    std::vector<float> x(c.count + c.taps - 1), f(c.taps), ref(c.count);
    for (auto& v : x) v = d(rng);
    for (auto& v : f) v = d(rng);
    conv1d_reference(x.data(), f.data(), c.taps, ref.data(), c.count);
    double norm = 0;
    for (float v : ref) norm += double(v) * v;
    norm = std::sqrt(norm);

    cuda::DeviceBuffer dx(x.size() * 4), df(f.size() * 4), dy(ref.size() * 4);
    VF_CUDA_CHECK(cudaMemcpy(dx.data(), x.data(), x.size() * 4, cudaMemcpyHostToDevice));
    VF_CUDA_CHECK(cudaMemcpy(df.data(), f.data(), f.size() * 4, cudaMemcpyHostToDevice));
    cuda::Stream s;
    auto check = [&](const char* what) {
        std::vector<float> y(ref.size());
        VF_CUDA_CHECK(cudaMemcpy(y.data(), dy.data(), y.size() * 4, cudaMemcpyDeviceToHost));
        double err = 0;
        for (size_t i = 0; i < y.size(); ++i) {
            ASSERT_TRUE(std::isfinite(y[i])) << what << ": output " << i << " not written";
            err += (double(y[i]) - ref[i]) * (double(y[i]) - ref[i]);
        }
        EXPECT_LT(std::sqrt(err) / norm, 1e-5) << what << " count " << c.count << " taps " << c.taps;
    };
    const float* xp = reinterpret_cast<const float*>(dx.data());
    const float* fp = reinterpret_cast<const float*>(df.data());
    float* yp = reinterpret_cast<float*>(dy.data());

    VF_CUDA_CHECK(cudaMemset(dy.data(), 0xFF, dy.size()));  // NaN
    cuda::Conv1dDirect direct(c.taps, c.count);
    direct.run(xp, fp, yp, s.get());
    s.sync();
    check("direct");

    VF_CUDA_CHECK(cudaMemset(dy.data(), 0xFF, dy.size()));
    cuda::Conv1dFft fft(fp, c.taps, c.count);
    fft.run(xp, yp, s.get());
    s.sync();
    check("fft");
}

INSTANTIATE_TEST_SUITE_P(Sizes, Conv1dGpu,
                         ::testing::Values(Case{1, 1}, Case{1000, 1}, Case{4097, 513}, Case{2049, 4099}, Case{30011, 4095},
                                           Case{294912, 32768}));

}  // namespace
}  // namespace vf
