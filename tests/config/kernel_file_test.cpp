#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "common/error.hpp"
#include "config/filter_registry.hpp"
#include "config/kernel_file.hpp"

namespace vf {

static std::string kernel_text_error(const std::string& text) {
    try {
        parse_kernel_text(text, "k.txt");
    } catch (const Error& e) {
        EXPECT_EQ(e.category(), ErrorCategory::Usage);
        return e.what();
    }
    return "";
}

TEST(KernelFile, ParsesRowsCommentsAndCommas) {
    auto m = parse_kernel_text("# a comment\n1, 2, 3\n4 5 6   # trailing\n\n7\t8\t9\n", "k");
    EXPECT_EQ(m.width, 3);
    EXPECT_EQ(m.height, 3);
    EXPECT_EQ(m.values[5], 6);
    m = parse_kernel_text("0.5 1e-2 -3\n", "k");
    EXPECT_EQ(m.height, 1);
    EXPECT_DOUBLE_EQ(m.values[1], 0.01);
}

TEST(KernelFile, RejectsBadMatrices) {
    EXPECT_NE(kernel_text_error("").find("no coefficients"), std::string::npos);
    EXPECT_NE(kernel_text_error("1 2\n3 4\n").find("odd"), std::string::npos);
    EXPECT_NE(kernel_text_error("1 2 3\n4 5\n6 7 8\n").find("row has 2 values"), std::string::npos);
    EXPECT_NE(kernel_text_error("1 2 3\n4 nan 6\n7 8 9\n").find("k.txt:2"), std::string::npos);
    EXPECT_NE(kernel_text_error("1 inf 3\n").find("finite"), std::string::npos);
    EXPECT_NE(kernel_text_error("1 two 3\n").find("not a number"), std::string::npos);
    std::string big;
    for (int j = 0; j < 129; ++j) {
        for (int i = 0; i < 129; ++i) big += "1 ";
        big += "\n";
    }
    EXPECT_NE(kernel_text_error(big).find("larger than 127x127"), std::string::npos);
}

TEST(KernelFile, ConvolutionReadsA79x79FileOfAnyOddSize) {
    const std::string path = ::testing::TempDir() + "/k79.txt";
    {
        std::ofstream f(path);
        for (int j = 0; j < 79; ++j) {
            for (int i = 0; i < 79; ++i) f << ((i + j) % 3 - 1) << ' ';
            f << '\n';
        }
    }
    const auto plan = build_chain("convolution=file=" + path)[0];
    EXPECT_EQ(plan.ops[0].conv.kw, 79);
    EXPECT_EQ(plan.ops[0].conv.kh, 79);
    std::remove(path.c_str());
}

}  // namespace vf
