#include <gtest/gtest.h>

#include "config/filter_registry.hpp"
#include "kernels/plan.hpp"

namespace vf {

TEST(Plan, FactorsRank1IntegerKernels) {
    ConvolveOp op;
    op.kw = 3;
    op.kh = 3;
    op.k = {2, 4, 2, 4, 8, 4, 2, 4, 2};
    finalize_convolve(op);
    ASSERT_TRUE(op.separable());
    for (int j = 0; j < 3; ++j)
        for (int i = 0; i < 3; ++i) EXPECT_EQ(op.col[j] * op.row[i], op.k[j * 3 + i]);
}

TEST(Plan, FactorsKernelsWithLeadingZeroRowsAndNegativeEntries) {
    ConvolveOp op;
    op.kw = 3;
    op.kh = 3;
    op.k = {0, 0, 0, 0, -3, 6, 0, 2, -4};
    finalize_convolve(op);
    ASSERT_TRUE(op.separable());
    for (int j = 0; j < 3; ++j)
        for (int i = 0; i < 3; ++i) EXPECT_EQ(op.col[j] * op.row[i], op.k[j * 3 + i]);
}

TEST(Plan, RejectsRank2AndNonIntegerKernels) {
    ConvolveOp op;
    op.kw = 3;
    op.kh = 3;
    op.k = {0, -1, 0, -1, 5, -1, 0, -1, 0};
    finalize_convolve(op);
    EXPECT_FALSE(op.separable());
    op.k = {0.5, 1, 0.5, 1, 2, 1, 0.5, 1, 0.5};
    finalize_convolve(op);
    EXPECT_FALSE(op.integer);
    EXPECT_FALSE(op.separable());
}

TEST(Plan, GaussianAndBoxAreSeparableAndNormalised) {
    for (const char* spec : {"gaussian=sigma=3.2", "gaussian=sigma=0.7", "box=radius=31"}) {
        auto chain = build_chain(spec);
        const ConvolveOp& c = chain[0].ops[0].conv;
        EXPECT_TRUE(c.separable()) << spec;
        double sum = 0;
        for (double v : c.k) sum += v;
        EXPECT_NEAR(sum * c.rdiv, 1.0, 1e-6) << spec;  // a flat picture stays flat
    }
    EXPECT_EQ(build_chain("gaussian=sigma=3.2")[0].ops[0].conv.kw, 27);
}

// The tensor-core path's limits (kernels/cuda/variants/tensor_half.cu relies on them for exact sums), at
// their edges, and the up-front check of a forced --kernel.
TEST(Plan, TensorTapRulesAtTheirEdges) {
    ConvolveOp op;
    op.kw = op.kh = 3;
    op.k = {2048, -2048, 1, 0, 0, 0, 0, 0, 0};
    finalize_convolve(op);
    EXPECT_EQ(tensor_taps_problem(op, 255), "");
    op.k[1] = -2049;
    finalize_convolve(op);
    EXPECT_NE(tensor_taps_problem(op, 255).find("beyond +-2048"), std::string::npos);
    op.k[1] = 0.5;
    finalize_convolve(op);
    EXPECT_NE(tensor_taps_problem(op, 255).find("not whole numbers"), std::string::npos);
    // The sum of |taps| times the peak sample must stay below 2^24 = 16,777,216.
    op.kw = 9;
    op.kh = 1;
    op.k = {2048, 2048, 2048, 2048, 2048, 2048, 2048, 2048, 16};  // 16400 x 1023 = 16,777,200
    finalize_convolve(op);
    EXPECT_EQ(tensor_taps_problem(op, 1023), "");
    op.k[8] = 17;  // 16401 x 1023 = 16,778,223
    finalize_convolve(op);
    EXPECT_NE(tensor_taps_problem(op, 1023).find("2^24"), std::string::npos);
    EXPECT_EQ(tensor_taps_problem(op, 255), "");
}

TEST(Plan, ForcedKernelsAreCheckedAgainstTheChain) {
    const std::vector<FilterPlan> dense = build_chain("convolution=m=1 2 3 4 5 6 7 8 9");
    const std::vector<FilterPlan> gauss = build_chain("gaussian=sigma=2");
    const std::vector<FilterPlan> sobel = build_chain("sobel");
    for (KernelChoice k : {KernelChoice{}, KernelChoice{KernelFamily::Naive}, KernelChoice{KernelFamily::Constant},
                           KernelChoice{KernelFamily::Direct}, KernelChoice{KernelFamily::Fft}}) {
        EXPECT_EQ(forced_kernel_problem(dense, k), "") << kernel_choice_name(k);
        EXPECT_EQ(forced_kernel_problem(gauss, k), "") << kernel_choice_name(k);
    }
    EXPECT_NE(forced_kernel_problem(dense, KernelFamily::Separable).find("not separable"), std::string::npos);
    EXPECT_EQ(forced_kernel_problem(gauss, KernelFamily::Separable), "");
    EXPECT_EQ(forced_kernel_problem(dense, KernelFamily::Tensor), "");
    EXPECT_NE(forced_kernel_problem(gauss, KernelFamily::Tensor), "");  // its whole-number taps pass 2048
    // FFmpeg's avgblur's truncated means: only the box rows (auto, or the separable family) compute them.
    const auto truncated = build_chain("avgblur=sizeX=3:round=down");
    EXPECT_EQ(forced_kernel_problem(truncated, KernelFamily::Separable), "");
    for (KernelFamily f : {KernelFamily::Direct, KernelFamily::Tensor, KernelFamily::Fft, KernelFamily::Naive})
        EXPECT_NE(forced_kernel_problem(truncated, f).find("only the box rows"), std::string::npos) << kernel_family_name(f);
    EXPECT_EQ(forced_kernel_problem(sobel, KernelFamily::Separable), "") << "gradients take their own kernel on every path";
    EXPECT_EQ(forced_kernel_problem(sobel, KernelFamily::Tensor), "");
}

// Frames share a batched launch only when their chains are the same: every field a kernel reads.
TEST(Plan, SameChainComparesWhatTheKernelsRead) {
    const auto a = build_chain("gaussian=sigma=2,sobel");
    EXPECT_TRUE(same_chain(a, build_chain("gaussian=sigma=2,sobel")));
    EXPECT_EQ(chain_fingerprint(a), chain_fingerprint(build_chain("gaussian=sigma=2,sobel")));
    for (const char* other : {"gaussian=sigma=2.5,sobel", "gaussian=sigma=2,prewitt", "gaussian=sigma=2", "gaussian=sigma=2,sobel=scale=2",
                              "gaussian=sigma=2,sobel,sobel", "sobel,gaussian=sigma=2"})
        EXPECT_FALSE(same_chain(a, build_chain(other))) << other;
    auto border = a;
    border[0].ops[0].border = border[0].ops[0].border == Border::Mirror ? Border::Replicate : Border::Mirror;
    EXPECT_FALSE(same_chain(a, border));
    auto bias = a;
    bias[0].ops[1].conv.bias += 1;
    EXPECT_FALSE(same_chain(a, bias));
    auto delta = a;
    delta[1].ops[0].grad.delta += 1;
    EXPECT_FALSE(same_chain(a, delta));
    EXPECT_NE(chain_fingerprint(a), chain_fingerprint(build_chain("gaussian=sigma=2.5,sobel")));
}

}  // namespace vf
