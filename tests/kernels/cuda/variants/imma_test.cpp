// imma: the dispatch table's row, forced by name against the reference (gpu_check.hpp), and its own cases.
// How it works: kernels/cuda/variants/imma.cu.
#include <gtest/gtest.h>

#include <optional>
#include <random>

#include "support/gpu_check.hpp"
#include "kernels/fixed_finish.hpp"

namespace vf::gpu_test {
namespace {

// imma's check on planes laid out as `probe`, with the integer finish worked out as when an
// operation is prepared; `why` says why not.
bool imma_takes(const PlaneOp& op, const TestPlane& probe, std::string* why = nullptr) {
    const std::optional<FixedFinish> finish = cuda::byte_tap_finish(op.conv);
    const cuda::Launch l{device_like(probe), device_like(probe), op.border, nullptr, nullptr, finish ? &*finish : nullptr};
    return cuda::imma_eligible(op.conv, l, why);
}

TEST(Imma, ForcedByNameMatchesReference) {
    SKIP_WITHOUT_GPU();
    check_row("imma", Accuracy::Exact);
}

// The integer products (imma.cu), which the tensor path takes for byte taps on 8-bit planes
// with 16-byte aligned rows: every compiled shape (3, 5 and 7 rows unrolled, widths 3 to 81),
// byte taps at both extremes, the three finishes (integer with and without its shift, and the
// float finish where no integer form exists), every border, planes from 1x1 to past 1080p with
// ragged right and bottom edges.
const TapShape kIntegerShapes[] = {{3, 3, 127}, {5, 5, 127}, {7, 7, 60}, {9, 9, 9},    {11, 3, 50}, {15, 7, 20},
                                   {13, 13, 9}, {17, 17, 9}, {19, 3, 40}, {27, 27, 9}, {33, 31, 9}, {41, 9, 30},
                                   {3, 41, 30}, {63, 63, 9}, {65, 65, 5}, {79, 79, 3}, {81, 3, 30}};

// For one shape, its kernel with each finish: an integer finish without a shift, one with it, and
// a divisor and bias with no integer form. Taps at both extremes of a signed byte.
std::vector<PlaneOp> integer_ops(const TapShape& sh) {
    const std::pair<float, float> finishes[] = {{0.0f, 128.0f}, {1.0f, 7.0f}, {0.3f, 100.0f}};  // rdiv, bias
    std::mt19937 rng(47 + sh.kw * 131 + sh.kh);
    std::vector<PlaneOp> ops;
    for (const auto& [rdiv, bias] : finishes) {
        PlaneOp op = random_taps(sh.kw, sh.kh, sh.max_tap, rng);
        op.conv.k[0] = sh.max_tap == 127 ? -128 : sh.max_tap;
        op.conv.k.back() = sh.max_tap == 127 ? 127 : -sh.max_tap;
        op.conv.rdiv = rdiv != 0 ? rdiv : 1.0f / (sh.kw * sh.kh * sh.max_tap * 0.3f + 1);
        op.conv.bias = bias;
        finalize_convolve(op.conv);
        ops.push_back(op);
    }
    return ops;
}


class Imma : public ::testing::TestWithParam<TapShape> {};

// One kernel shape a test, with each finish, every border, planes from 1x1 to 521x190.
TEST_P(Imma, ExactAgainstReference) {
    SKIP_WITHOUT_GPU();
    const TapShape sh = GetParam();
    std::mt19937 rng(53 + sh.kw * 131 + sh.kh);
    const Size sizes[] = {{1, 1}, {1, 9}, {2, 2}, {2, 3}, {16, 1}, {17, 33}, {127, 31}, {128, 32}, {129, 33}, {300, 70}, {521, 190}};
    const TestPlane probe(64, 64, 8, 1, 0, 0, true);
    int tested = 0;
    const std::vector<PlaneOp> ops = integer_ops(sh);
    for (size_t fi = 0; fi < ops.size(); ++fi) {
        PlaneOp op = ops[fi];
        const std::string name = std::to_string(sh.kw) + "x" + std::to_string(sh.kh) + " taps to " +
                                 std::to_string(sh.max_tap) + " finish " + std::to_string(fi);
        std::string why;
        if (!imma_takes(op, probe, &why)) {
            // Only the float finish of sums that could pass 2^24 is refused.
            EXPECT_TRUE(!cuda::byte_tap_finish(op.conv) && !tensor_taps_problem(op.conv, 255).empty())
                << name << " should be taken: " << why;
            continue;
        }
        for (const Size s : sizes)
            for (Border b : kBorders) {
                if (sh.kw * sh.kh > 2000 && s.w * s.h > 300 * 70) continue;  // the CPU reference's time
                op.border = b;
                const Outcome o = run_case(op, s.w, s.h, 8, KernelFamily::Tensor, rng(), 1, 0, 0, true);
                expect_close(o, static_cast<long>(s.w) * s.h, true,
                             name + " " + std::to_string(s.w) + "x" + std::to_string(s.h) + " " + border_name(b));
                ++tested;
            }
    }
    EXPECT_GE(tested, 10 * 3);  // at least one finish on every size below 521x190
}

INSTANTIATE_TEST_SUITE_P(Shapes, Imma, ::testing::ValuesIn(kIntegerShapes), shape_name);

// The integer products (imma.cu), which the tensor path takes for byte taps on 8-bit planes
// with 16-byte aligned rows: the shapes above exercise every finish kind; here past 1080p and 4K
// with ragged edges, auto, and what the path refuses.
TEST(Imma, LargePlanesAndRefusals) {
    SKIP_WITHOUT_GPU();
    std::mt19937 rng(47);
    const TestPlane probe(64, 64, 8, 1, 0, 0, true);
    int kinds[3] = {0, 0, 0};
    for (const TapShape& sh : kIntegerShapes)
        for (const PlaneOp& op : integer_ops(sh))
            if (imma_takes(op, probe)) {
                const std::optional<FixedFinish> ff = cuda::byte_tap_finish(op.conv);
                ++kinds[!ff ? 2 : (ff->shift ? 1 : 0)];
            }
    for (int k = 0; k < 3; ++k) EXPECT_GT(kinds[k], 2) << "finish kind " << k << " was not exercised";
    // Past 1080p with ragged edges, and auto giving the same bytes.
    PlaneOp op = random_dense(13, 9, 1.0f / 500, 128, rng);
    expect_close(run_case(op, 1937, 1091, 8, KernelFamily::Tensor, 5, 1, 0, 0, true), 1937L * 1091, true, "13x13 1937x1091");
    expect_close(run_case(op, 1937, 1091, 8, KernelChoice{}, 5, 1, 0, 0, true), 1937L * 1091, true, "13x13 auto 1937x1091");
    // Past 4K: enough blocks for two row tiles a warp (on GPUs of up to 255 SMs), with kernel
    // rows unrolled and in a loop, a ragged last block column and row.
    expect_close(run_case(op, 3841, 2161, 8, KernelFamily::Tensor, 6, 1, 0, 0, true), 3841L * 2161, true, "13x13 3841x2161");
    PlaneOp flat = random_taps(21, 3, 127, rng);
    flat.conv.k[0] = -128;
    flat.conv.rdiv = 1.0f / 300;
    flat.conv.bias = 16;
    finalize_convolve(flat.conv);
    for (Border b : kBorders) {
        flat.border = b;
        expect_close(run_case(flat, 3841, 2161, 8, KernelFamily::Tensor, 7, 1, 0, 0, true), 3841L * 2161, true,
                     std::string("21x3 3841x2161 ") + border_name(b));
    }
    // What it refuses: a tap past a signed byte, a 10-bit plane, rows not 16-byte aligned.
    const TestPlane aligned8(64, 64, 8, 1, 0, 0, true), aligned10(64, 64, 10, 1, 0, 0, true), odd8(64, 64, 8);
    PlaneOp wide = random_dense(7, 9, 1.0f / 200, 0, rng);
    EXPECT_TRUE(imma_takes(wide, aligned8));
    EXPECT_FALSE(imma_takes(wide, aligned10));
    EXPECT_FALSE(imma_takes(wide, odd8));
    wide.conv.k[3] = 128;
    finalize_convolve(wide.conv);
    EXPECT_FALSE(imma_takes(wide, aligned8));
}

}  // namespace
}  // namespace vf::gpu_test
