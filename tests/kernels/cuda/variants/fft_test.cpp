// fft: the dispatch table's row, forced by name against the reference (gpu_check.hpp).
// How it works: kernels/cuda/variants/fft.cu.
#include <gtest/gtest.h>

#include <random>

#include "support/gpu_check.hpp"

namespace vf::gpu_test {
namespace {

TEST(Fft, ForcedByNameMatchesReference) {
    SKIP_WITHOUT_GPU();
    check_row("fft");
}

}  // namespace
}  // namespace vf::gpu_test
