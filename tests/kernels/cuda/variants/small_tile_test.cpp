// small-tile: the dispatch table's row, forced by name against the reference (gpu_check.hpp).
// How it works: kernels/cuda/variants/small_tile.cu.
#include <gtest/gtest.h>

#include <random>

#include "support/gpu_check.hpp"

namespace vf::gpu_test {
namespace {

TEST(SmallTile, ForcedByNameMatchesReference) {
    SKIP_WITHOUT_GPU();
    check_row("small-tile");
}

}  // namespace
}  // namespace vf::gpu_test
