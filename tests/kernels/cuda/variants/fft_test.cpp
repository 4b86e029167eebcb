// fft: the dispatch table's row, forced by name against the reference (gpu_check.hpp), and its own cases.
// How it works: kernels/cuda/variants/fft.cu.
#include <gtest/gtest.h>

#include <random>

#include "support/gpu_check.hpp"

namespace vf::gpu_test {
namespace {

TEST(Fft, ForcedByNameMatchesReference) {
    SKIP_WITHOUT_GPU();
    check_row("fft", Accuracy::WithinOne);
}

// A large dense kernel: within 1 of the exact sums anywhere (the FFT's rounding differs from direct
// sums at ties), on 8-bit and 10-bit planes.
TEST(Fft, WithinOneOfTheExactSums) {
    SKIP_WITHOUT_GPU();
    std::mt19937 rng(85);
    const PlaneOp op = random_dense(27, 9, 1.0f / 700, 128, rng);
    check_row_cases("fft", Accuracy::WithinOne, op, 8, 1, false, 86);
    check_row_cases("fft", Accuracy::WithinOne, op, 10, 1, true, 87);
}

}  // namespace
}  // namespace vf::gpu_test
