// The harness every GPU kernel test shares, after FFmpeg's checkasm: a case runs an operation
// through the CUDA backend (auto, a family, or a row of the dispatch table by name) on fresh random
// data with the output poisoned first, and compares it with the CPU reference.
// tests/kernels/cuda/variants/<row>_test.cpp holds each row's own tests.
#pragma once

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "config/filter_registry.hpp"
#include "kernels/cuda/dispatch_table.hpp"
#include "kernels/cuda/variants.hpp"
#include "kernels/cuda_backend.hpp"
#include "support/random_plane.hpp"

namespace vf::gpu_test {

using test::TestPlane;

#define SKIP_WITHOUT_GPU()                                                          \
    do {                                                                            \
        std::string why;                                                            \
        if (!cuda_device_available(&why)) GTEST_SKIP() << "GPU test skipped: " << why; \
    } while (0)

struct Size {
    int w, h;
};

struct Outcome {
    long differ = 0;
    int max_abs = 0;
    bool padding_ok = true;
    std::string ran;  // the dispatch table's row that ran
};

inline constexpr Border kBorders[] = {Border::Mirror, Border::Replicate, Border::Zero};

// Runs op on the GPU with `kernel` (auto, a family or a row) on a w x h plane of random samples
// (layout: step, offset, shift, rows aligned for vector access or not) and compares with the reference.
Outcome run_choice(const PlaneOp& op, int w, int h, int depth, KernelChoice kernel, unsigned seed, int step = 1, int offset = 0,
                   int shift = 0, bool aligned = false);
Outcome run_case(const PlaneOp& op, int w, int h, int depth, const KernelChoice& kernel, unsigned seed, int step = 1, int offset = 0,
                 int shift = 0, bool aligned = false);
// The same through the dispatch table's row `name` (what --kernel NAME selects).
Outcome run_row(const char* name, const PlaneOp& op, int w, int h, int depth, unsigned seed, int step = 1, int offset = 0,
                int shift = 0, bool aligned = false);

// The FFT path's target: at most 1 LSB anywhere (its rounding differs from direct sums at ties).
void expect_within_one(const Outcome& o, const std::string& what);
// Exact, or at most 1 LSB off and at least 99.9% of pixels identical.
void expect_close(const Outcome& o, long pixels, bool exact, const std::string& what);

// An operation without parameters: OpKind::Copy (a channel left as it is) or OpKind::Fill (grey).
inline PlaneOp op_of_kind(OpKind kind) {
    PlaneOp op;
    op.kind = kind;
    return op;
}
// A kw x kh convolution with whole-number taps drawn from -max_tap..max_tap (not yet finalised).
PlaneOp random_taps(int kw, int kh, int max_tap, std::mt19937& rng);
// A k x k one, finalised.
PlaneOp random_dense(int k, int max_tap, float rdiv, float bias, std::mt19937& rng);
// A rank-1 kernel col (outer) row, finalised (factored again by plan.cpp).
PlaneOp rank1(const std::vector<int>& col, const std::vector<int>& row, float rdiv, float bias);
std::vector<int> random_vector(int n, int lo, int hi, std::mt19937& rng);

// Only the layout matters to the eligibility checks, never the data: an aligned stand-in.
inline PlaneView device_like(const TestPlane& p) { return p.view_at(reinterpret_cast<uint8_t*>(uintptr_t{1} << 20)); }

struct TapShape {
    int kw, kh, max_tap;
};
std::string shape_name(const ::testing::TestParamInfo<TapShape>& info);

// The row `name`, forced by name: candidate operations and layouts the row takes, on planes from
// 1x1 to past one block, every border, against the reference; fails when the row takes none.
void check_row(const char* name);

}  // namespace vf::gpu_test
