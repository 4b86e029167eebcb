#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
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

// What a file holds never comes back in an error, and only regular files within the bound are
// read: the API's finding was /etc/passwd's first line in a 400, and /dev/zero grown to 16 GB.
namespace {

std::string kernel_file_error(const std::string& name, const KernelFiles& files, bool* forbidden = nullptr) {
    try {
        read_kernel_file(name, files);
    } catch (const Forbidden& e) {
        if (forbidden) *forbidden = true;
        return e.what();
    } catch (const Error& e) {
        if (forbidden) *forbidden = false;
        return e.what();
    }
    return "(read)";
}

std::string fresh_folder(const std::string& name) {
    const std::string dir = ::testing::TempDir() + "/" + name + "-" + std::to_string(::getpid());
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir;
}

}  // namespace

TEST(KernelFile, ReadsOnlyRegularFilesWithinTheBoundAndQuotesNothing) {
    const std::string dir = fresh_folder("kernel-bounds");
    std::ofstream(dir + "/secret.txt") << "root:x:0:0:root:/root:/bin/bash\n";
    EXPECT_EQ(kernel_file_error(dir + "/secret.txt", {}).find("root:x"), std::string::npos) << kernel_file_error(dir + "/secret.txt", {});
    EXPECT_NE(kernel_file_error(dir + "/secret.txt", {}).find("is not a number"), std::string::npos);
    EXPECT_NE(kernel_file_error("/dev/zero", {}).find("not a regular file"), std::string::npos);
    ASSERT_EQ(::mkfifo((dir + "/fifo").c_str(), 0600), 0);
    EXPECT_NE(kernel_file_error(dir + "/fifo", {}).find("not a regular file"), std::string::npos) << "a FIFO without a writer does not block";
    std::ofstream(dir + "/huge.txt") << std::string(kMaxKernelFileBytes + 10, ' ') << "1\n";
    EXPECT_NE(kernel_file_error(dir + "/huge.txt", {}).find("larger than 1024 KiB"), std::string::npos);
    std::ofstream(dir + "/ok.txt") << "0 -1 0\n-1 5 -1\n0 -1 0\n";
    EXPECT_EQ(read_kernel_file(dir + "/ok.txt").values[4], 5);
}

TEST(KernelFile, AClientReadsOnlyNamesInsideTheKernelFolderWithoutLinks) {
    const std::string dir = fresh_folder("kernel-folder"), outside = fresh_folder("kernel-outside");
    std::ofstream(dir + "/edge.txt") << "0 -1 0\n-1 5 -1\n0 -1 0\n";
    std::ofstream(outside + "/other.txt") << "1 1 1\n1 1 1\n1 1 1\n";
    std::filesystem::create_directories(dir + "/sub");
    std::ofstream(dir + "/sub/k.txt") << "1\n";
    std::filesystem::create_symlink(outside + "/other.txt", dir + "/link.txt");
    std::filesystem::create_directory_symlink(outside, dir + "/linked");
    const KernelFiles client = KernelFiles::only_in(dir);
    EXPECT_EQ(read_kernel_file("edge.txt", client).values[4], 5);
    EXPECT_EQ(read_kernel_file(dir + "/edge.txt", client).values[4], 5) << "its full path inside the folder";
    EXPECT_EQ(read_kernel_file("sub/k.txt", client).values[0], 1);
    bool forbidden = false;
    for (const std::string& name : {std::string("/etc/passwd"), std::string("../kernel-outside/other.txt"), outside + "/other.txt",
                                   std::string("sub/../../x.txt")}) {
        EXPECT_NE(kernel_file_error(name, client, &forbidden).find("inside the kernel-dir folder"), std::string::npos) << name;
        EXPECT_TRUE(forbidden) << name;
    }
    EXPECT_NE(kernel_file_error("link.txt", client).find("symbolic link"), std::string::npos);
    EXPECT_NE(kernel_file_error("linked/other.txt", client).find("symbolic link"), std::string::npos);
    EXPECT_NE(kernel_file_error("edge.txt", KernelFiles::only_in(""), &forbidden).find("kernel-dir in serve's serve: block"), std::string::npos);
    EXPECT_TRUE(forbidden);
    EXPECT_THROW(build_chain("convolution=file=/etc/passwd", FilterDefaults::Vfilter, {}, client), Forbidden);
    EXPECT_EQ(build_chain("convolution=file=edge.txt", FilterDefaults::Vfilter, {}, client).size(), 1u);
}

}  // namespace vf
