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

// Whether this test process has a GPU, asked once: then every case of a process skips or none
// does, and a GPU lost midway fails the cases after it rather than skipping them (the filter x
// size comparisons are one ctest test, which a skip line marks skipped as a whole).
bool gpu_present_for_this_process(std::string* why);

#define SKIP_WITHOUT_GPU()                                                                     \
    do {                                                                                       \
        std::string why;                                                                       \
        if (!gpu_present_for_this_process(&why)) GTEST_SKIP() << "GPU test skipped: " << why; \
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

// MirrorRepeat: FFmpeg 5.1's 3x3 edge (kernels/border.hpp), which every row takes like the others.
inline constexpr Border kBorders[] = {Border::Mirror, Border::Replicate, Border::Zero, Border::MirrorRepeat};

// Runs op on the GPU with `kernel` (auto, a family or a row) on a w x h plane of random samples
// (layout: step, offset, shift, rows aligned for vector access or not) and compares with the reference.
Outcome run_choice(const PlaneOp& op, int w, int h, int depth, KernelChoice kernel, unsigned seed, int step = 1, int offset = 0,
                   int shift = 0, bool aligned = false);
Outcome run_case(const PlaneOp& op, int w, int h, int depth, const KernelChoice& kernel, unsigned seed, int step = 1, int offset = 0,
                 int shift = 0, bool aligned = false);
// The same through the dispatch table's row `name` (what --kernel NAME selects).
Outcome run_row(const char* name, const PlaneOp& op, int w, int h, int depth, unsigned seed, int step = 1, int offset = 0,
                int shift = 0, bool aligned = false);

// What a row's output is documented to be against the reference (docs/kernels.md, the dispatch
// table's rows; docs/architecture.md, Rounding). Each variant test states its row's.
enum class Accuracy {
    // Integer sums (DP4A, the tensor cores' integer products, running sums), FP32 sums that the
    // row's eligibility keeps exact, double sums in the reference's order, copies and fills: the
    // reference's bytes in every case.
    Exact,
    // FP32 sums: the reference's bytes wherever the taps are whole numbers and no sum can reach
    // 2^24 (every partial sum is then a float exactly); elsewhere within 1, in at most 1 sample of
    // 1000 (fractional taps summed in float, or sums past 2^24).
    ExactWhereFp32SumsAre,
    // Within 1, in at most 1 sample of 1000: the separable rows, whose FP32 column pass rounds a few
    // samples of Gaussian taps the other way.
    WithinOneRarely,
    // Within 1 anywhere: the FFT's rounding differs from direct sums at ties.
    WithinOne,
};

// The FFT path's target: at most 1 LSB anywhere (its rounding differs from direct sums at ties).
void expect_within_one(const Outcome& o, const std::string& what);
// Exact, or at most 1 LSB off and at least 99.9% of pixels identical.
void expect_close(const Outcome& o, long pixels, bool exact, const std::string& what);
// Every sample equal to the reference's, nothing written outside the plane.
void expect_exact(const Outcome& o, const std::string& what);
// Whether every partial sum of op on samples of `depth` bits is a whole number below 2^24, so that
// FP32 sums are exact: whole-number taps with sum(|tap|) * peak below 2^24 (gradients, copies and
// fills always).
bool fp32_sums_exact(const PlaneOp& op, int depth);
// The accuracy every row of `family` has (docs/kernels.md): what a test that forces the family may
// assert, whichever of its rows runs.
Accuracy family_accuracy(KernelFamily family);
// The accuracy of what `auto` runs for op: the separable rows' tolerance for rank-1 kernels other
// than boxes; otherwise exact wherever FP32 sums are (the integer and double rows are exact always).
Accuracy auto_accuracy(const PlaneOp& op);
// The check `accuracy` asks for, of a case of op on a plane of `pixels` samples of `depth` bits.
void expect_accuracy(const Outcome& o, Accuracy accuracy, const PlaneOp& op, int depth, long pixels, const std::string& what);

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
// 1x1 to past one block (odd sizes), every border, fixed-seed random samples and a poisoned
// output, against the reference as `accuracy` says; fails when the row takes none.
void check_row(const char* name, Accuracy accuracy);
// `op` forced through the row `name` on planes of odd sizes (a few samples to several blocks),
// every border, fresh samples from `seed` for each case and a poisoned output, in the layout
// given (depth, step: 2 for interleaved chroma, rows aligned for vector access or not), checked as
// `accuracy` says; fails when the row does not take op on that layout.
void check_row_cases(const char* name, Accuracy accuracy, PlaneOp op, int depth, int step, bool aligned, unsigned seed);

}  // namespace vf::gpu_test
