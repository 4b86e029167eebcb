// What the GPU benchmark times on: sets of device planes larger together than the L2, the cases
// (filters) with their kernel sides, and the multiply-adds a pixel each case needs at least.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common/plane.hpp"
#include "kernels/cuda/device_buffer.hpp"

namespace vf::bench {

// A set of input and output planes larger together than the L2, visited in turn.
struct PlaneSet {
    int w, h;
    int depth;  // 8: a byte a sample; 10: two bytes a sample (p010's layout without the shift)
    size_t pitch;
    std::vector<cuda::DeviceBuffer> in, out;
    PlaneSet(int w_, int h_, size_t l2_bytes, std::mt19937& rng, int depth_ = 8)
        : w(w_), h(h_), depth(depth_), pitch((w_ * (depth_ > 8 ? 2 : 1) + 255) / 256 * 256) {
        const size_t bytes = pitch * h;
        const int count = static_cast<int>(std::max<size_t>(2, (3 * l2_bytes) / (2 * bytes) + 1));
        std::vector<uint8_t> host(bytes);
        for (int i = 0; i < count; ++i) {
            for (auto& v : host) v = static_cast<uint8_t>(rng());
            if (depth > 8)  // samples within the depth: the high byte keeps its low bits only
                for (size_t b = 1; b < bytes; b += 2) host[b] &= static_cast<uint8_t>((1 << (depth - 8)) - 1);
            in.emplace_back(bytes);
            out.emplace_back(bytes);
            VF_CUDA_CHECK(cudaMemcpy(in.back().data(), host.data(), bytes, cudaMemcpyHostToDevice));
        }
    }
    PlaneView view(const cuda::DeviceBuffer& b) const {
        PlaneView v;
        v.data = b.data();
        v.pitch = static_cast<std::ptrdiff_t>(pitch);
        v.width = w;
        v.height = h;
        v.bytes_per_sample = depth > 8 ? 2 : 1;
        v.depth = depth;
        return v;
    }
    size_t count() const { return in.size(); }
};

struct Case {
    std::string name;
    std::string spec;  // vfilter filter spec
    int k;             // kernel side (for NPP and the floor)
    enum Kind { Sobel, Gaussian, Box, Dense } kind;
};

// A dense k x k matrix of small whole numbers, scaled and biased into the 8-bit range.
inline std::string dense_spec(int k, std::mt19937& rng) {
    std::uniform_int_distribution<int> d(-9, 9);
    std::ostringstream s;
    s << "convolution=m=";
    for (int i = 0; i < k * k; ++i) s << (i ? " " : "") << d(rng);
    s << ":rdiv=" << 1.0 / (k * k * 4) << ":bias=128";
    return s.str();
}

// Multiply-adds per pixel of the cheapest algorithm vfilter has for the case. For dense kernels
// the cheaper of direct (k*k) and FFT: two real transforms of the extended plane, 2.5 log2(n)
// multiply-adds per point each, plus one complex product (4).
inline double macs_per_pixel(const Case& c, int w, int h) {
    switch (c.kind) {
    case Case::Sobel: return 12;                     // two 3x3 with 6 non-zero taps each
    case Case::Gaussian: return 2.0 * c.k;           // row + column pass
    case Case::Box: return 4;                        // running sums: 2 adds per pass
    case Case::Dense: {
        const double n = double(w + c.k - 1) * (h + c.k - 1);
        const double fft = (2 * 2.5 * std::log2(n) + 4) * n / (double(w) * h);
        return std::min(double(c.k) * c.k, fft);
    }
    }
    return 0;
}

}  // namespace vf::bench
