#include "support/random_plane.hpp"

#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace vf::test {

uint8_t poison_byte() {
    static std::mutex mutex;
    static std::mt19937 rng = [] {
        const char* env = std::getenv("VF_TEST_POISON_SEED");
        const unsigned seed = env && *env ? static_cast<unsigned>(std::strtoul(env, nullptr, 10)) : std::random_device{}();
        std::fprintf(stderr, "poison bytes from seed %u (VF_TEST_POISON_SEED=%u repeats them)\n", seed, seed);
        return std::mt19937(seed);
    }();
    std::lock_guard<std::mutex> lock(mutex);
    return static_cast<uint8_t>(rng() & 0xFF);
}

TestPlane::TestPlane(int width, int height, int depth, int step, int offset, int shift, bool aligned)
    : offset_(offset), poison_(poison_byte()) {
    view_.width = width;
    view_.height = height;
    view_.depth = depth;
    view_.step = step;
    view_.shift = shift;
    view_.bytes_per_sample = depth > 8 || shift > 0 ? 2 : 1;
    // Padding of 37 bytes per row plus one spare row, so an overrun lands in poisoned memory.
    view_.pitch = static_cast<std::ptrdiff_t>(width) * step * view_.bytes_per_sample + 37;
    view_.pitch += view_.pitch % 2;
    if (aligned) view_.pitch = (view_.pitch + 63) / 64 * 64;
    bytes_.assign(static_cast<size_t>(view_.pitch) * (height + 1) + 64, poison_);
    view_.data = bytes_.data() + offset * view_.bytes_per_sample;
}

void TestPlane::fill_random(std::mt19937& rng) {
    std::uniform_int_distribution<int> d(0, view_.peak());
    for (int y = 0; y < view_.height; ++y)
        for (int x = 0; x < view_.width; ++x) view_.write(x, y, d(rng));
}

void TestPlane::poison() {
    poison_ = poison_byte();
    std::fill(bytes_.begin(), bytes_.end(), poison_);
}

bool TestPlane::padding_intact() const {
    std::vector<char> owned(bytes_.size(), 0);
    for (int y = 0; y < view_.height; ++y)
        for (int x = 0; x < view_.width; ++x) {
            const size_t at = static_cast<size_t>(y * view_.pitch) +
                              (static_cast<size_t>(x) * view_.step + offset_) * view_.bytes_per_sample;
            for (int b = 0; b < view_.bytes_per_sample; ++b) owned[at + b] = 1;
        }
    for (size_t i = 0; i < bytes_.size(); ++i)
        if (!owned[i] && bytes_[i] != poison_) return false;
    return true;
}

long count_differences(const TestPlane& a, const TestPlane& b, std::string* first) {
    long n = 0;
    const PlaneView va = a.view(), vb = b.view();
    for (int y = 0; y < va.height; ++y)
        for (int x = 0; x < va.width; ++x)
            if (va.read(x, y) != vb.read(x, y)) {
                if (n == 0 && first)
                    *first = "(" + std::to_string(x) + "," + std::to_string(y) + "): " + std::to_string(va.read(x, y)) +
                             " vs " + std::to_string(vb.read(x, y));
                ++n;
            }
    return n;
}

}  // namespace vf::test
