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

}  // namespace vf
