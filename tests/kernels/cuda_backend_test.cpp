// The CUDA backend as a whole against the CPU reference on fresh random data: what `auto` and the
// families pick for every filter, odd, tall, 1x1 and 4K sizes, every border, 8 and 10 bit, planar
// and interleaved layouts; every row's own tests are in tests/kernels/cuda/variants/. The device copy of
// each output (padding included) is poisoned first, and fresh device scratch too, with a byte that
// changes from case to case and run to run, so unwritten pixels, stray writes and reads of memory
// nobody wrote show.
// (1919x1079 and 3840x2160 run in LargeKernelsAndFourK.)
// Accuracy target: at most 1 LSB off anywhere and at least 99.9% of pixels identical; the
// gradient filters and small whole-number kernels must match exactly.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "config/filter_registry.hpp"
#include "common/error.hpp"
#include "kernels/cuda/variants.hpp"
#include "kernels/cuda/device_buffer.hpp"
#include "kernels/cuda/dispatch_table.hpp"
#include "kernels/cuda_backend.hpp"
#include "kernels/fixed_finish.hpp"
#include "support/gpu_check.hpp"
#include "support/random_plane.hpp"

namespace vf::gpu_test {
namespace {

const char* kSpecs[] = {
    "sobel=planes=all",
    "roberts=planes=all:scale=1.5",
    "scharr=planes=all:scale=1.5:delta=4",
    "laplacian=planes=all:diagonal=1",
    "gaussian=sigma=1.5",
    "gaussian=sigma=3.2",
    "box=radius=2",
    "box=radius=31",
    "avgblur=sizeX=4:sizeY=2:round=down",  // FFmpeg's truncated means
    "sharpen=strength=0.7",
    "emboss=planes=all:bias=90",
    "convolution=m=1 -2 3 -4 5 -6 7 -8 9 -10 11 -12 13 -14 15 -16 17 -18 19 -20 21 -22 23 -24 25:rdiv=0.01:bias=128",
    "convolution=m=0.1 0.25 -0.3 0.5 1.5 0.5 -0.3 0.25 0.1",
    "convolution=m=1 4 6 4 1 3 2:mode=row",
    "convolution=m=1 4 6 4 1 3 2 5 7:mode=column:bias=-7",
    "convolution=m=1 2 3 2 4 6 3 6 9:bias=-20",
};
// 1x1, one-sample rows and columns, 2x2 (the chroma of a 4x4 frame), planes narrower or shorter than
// the larger kernels on one axis only, odd sizes over block edges.
const Size kSizes[] = {{1, 1}, {1, 17}, {19, 1}, {2, 2}, {2, 3}, {40, 3}, {3, 40}, {33, 17}, {17, 129}, {131, 5}, {641, 359}};

class GpuMatchesReference : public ::testing::TestWithParam<std::tuple<const char*, Size, Border, int>> {};

TEST_P(GpuMatchesReference, AutoPath) {
    SKIP_WITHOUT_GPU();
    const auto [spec, size, border, depth] = GetParam();
    PlaneOp op = build_chain(spec)[0].ops[0];
    op.border = border;
    const unsigned seed = static_cast<unsigned>(std::hash<std::string>{}(std::string(spec) + std::to_string(size.w * 7 + size.h) +
                                                                         std::to_string(depth) + border_name(border)));
    for (bool aligned : {false, true}) {  // scalar and 4-wide load/store paths
        const Outcome o = run_case(op, size.w, size.h, depth, KernelChoice{}, seed, 1, 0, 0, aligned);
        expect_accuracy(o, auto_accuracy(op), op, depth, static_cast<long>(size.w) * size.h,
                        std::string(spec) + " " + std::to_string(size.w) + "x" + std::to_string(size.h) + " seed " +
                         std::to_string(seed) + (aligned ? " aligned" : ""));
    }
}

INSTANTIATE_TEST_SUITE_P(AllFilters, GpuMatchesReference,
                         ::testing::Combine(::testing::ValuesIn(kSpecs), ::testing::ValuesIn(kSizes),
                                            ::testing::ValuesIn(kBorders), ::testing::Values(8, 10)));

// Every forced variant (what `--kernel` selects) computes the same function.
class GpuVariants : public ::testing::TestWithParam<std::tuple<const char*, KernelChoice>> {};

TEST_P(GpuVariants, MatchReference) {
    SKIP_WITHOUT_GPU();
    const auto [spec, kernel] = GetParam();
    const PlaneOp op = build_chain(spec)[0].ops[0];
    if (kernel == KernelFamily::Separable && !op.conv.separable()) GTEST_SKIP() << spec << " is not separable";
    if (kernel == KernelFamily::Tensor && !cuda::tensor_eligible(op.conv, TestPlane(1, 1, 8).view()))
        GTEST_SKIP() << spec << " is not for the tensor cores (taps not whole numbers)";
    // Pitches of odd padding and 64-byte aligned rows (where 8-bit tiles are staged a word at a time).
    for (const Size s : {Size{61, 37}, Size{640, 360}})
        for (Border b : kBorders)
            for (bool aligned : {false, true}) {
                PlaneOp bop = op;
                bop.border = b;
                const Outcome o = run_case(bop, s.w, s.h, 8, kernel, 17u + s.w, 1, 0, 0, aligned);
                const std::string what = std::string(spec) + " " + kernel_choice_name(kernel) + " " + border_name(b) +
                                         (aligned ? " aligned" : "");
                expect_accuracy(o, family_accuracy(*kernel.family), bop, 8, static_cast<long>(s.w) * s.h, what);
            }
}

INSTANTIATE_TEST_SUITE_P(
    Kernels, GpuVariants,
    ::testing::Combine(::testing::Values("convolution=m=1 2 3 4 5 6 7 8 9", "gaussian=sigma=2", "box=radius=4",
                                         "convolution=m=1 -1 2 -2 3 -3 4 -4 5 -5 6 -6 7 -7 8 -8 9 -9 10 -10 11 -11 12 -12 13 "
                                         "-13 14 -14 15 -15 16 -16 17 -17 18 -18 19 -19 20 -20 21 -21 22 -22 23 -23 24 -24 25 "
                                         "-25 26 -26 27 -27 28 -28 29 -29 30 -30 31 -31 32 -32 33 -33 34 -34 35 -35 36 -36 37 "
                                         "-37 38 -38 39 -39 40 -40 41:bias=128:rdiv=0.01"),
                       ::testing::Values(KernelFamily::Naive, KernelFamily::Constant, KernelFamily::Direct, KernelFamily::Separable,
                                         KernelFamily::Fft, KernelFamily::Tensor)));

TEST(Gpu, LargeKernelsAndFourK) {
    SKIP_WITHOUT_GPU();
    std::mt19937 rng(3);
    // A random dense 27x27 and a 79x79 kernel, and a 4K plane.
    for (int k : {27, 79}) {
        const PlaneOp op = random_dense(k, 8, 1.0f / (k * 8), 128, rng);
        expect_accuracy(run_case(op, 301, 167, 8, KernelFamily::Direct, 11u + k), family_accuracy(KernelFamily::Direct), op, 8,
                        301L * 167, "dense tiled " + std::to_string(k));
        expect_within_one(run_case(op, 301, 167, 10, KernelFamily::Fft, 12u + k), "dense fft " + std::to_string(k));
        // auto times only rows of identical output (never the FFT): exact.
        expect_close(run_case(op, 301, 167, 8, KernelChoice{}, 13u + k), 301L * 167, true, "dense auto " + std::to_string(k));
    }
    const PlaneOp c5 = build_chain("convolution=m=1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25")[0].ops[0];
    expect_accuracy(run_case(c5, 1919, 1079, 8, KernelChoice{}, 4), auto_accuracy(c5), c5, 8, 1919L * 1079, "1919x1079 5x5");
    const PlaneOp g = build_chain("gaussian=sigma=3.2")[0].ops[0];
    expect_accuracy(run_case(g, 3840, 2160, 8, KernelChoice{}, 5), auto_accuracy(g), g, 8, 3840L * 2160, "4K gaussian");
    const PlaneOp s = build_chain("sobel")[0].ops[0];
    expect_close(run_case(s, 3840, 2160, 10, KernelChoice{}, 6, 1, 0, 0, true), 3840L * 2160, true, "4K sobel 10 bit");
    const PlaneOp c3 = build_chain("convolution=m=1 2 3 4 5 6 7 8 9")[0].ops[0];
    expect_close(run_case(c3, 3840, 2160, 8, KernelChoice{}, 7, 1, 0, 0, true), 3840L * 2160, true, "4K 3x3 aligned");
}

TEST(Gpu, InterleavedAndShiftedLayouts) {
    SKIP_WITHOUT_GPU();
    for (const char* spec : {"gaussian=sigma=2", "sobel=planes=all", "convolution=m=1 2 3 4 5 6 7 8 9"}) {
        const PlaneOp op = build_chain(spec)[0].ops[0];
        for (int offset : {0, 1})
            for (int shift : {0, 6}) {
                const Outcome o = run_case(op, 37, 21, shift ? 10 : 8, KernelChoice{}, 9, 2, offset, shift);
                expect_accuracy(o, auto_accuracy(op), op, shift ? 10 : 8, 37 * 21, std::string(spec) + " nv12/p010 layout");
            }
    }
}

// The whole-number 3x3 kernels and the gradients have two paths: strips of 8 samples without
// shared memory for planar planes whose rows allow 8/16-byte accesses, and a shared-memory tile
// otherwise (5x5 and 7x7 always take the tile). Every path must match the reference exactly (the
// sums are whole numbers below 2^24) at every edge case of the strips: planes narrower than a
// strip, a strip's halo crossing the edge, partial strips, a last row pair with one row, p010's
// shifted samples.
TEST(Gpu, SmallKernelsExactOnBothPaths) {
    SKIP_WITHOUT_GPU();
    std::mt19937 rng(29);
    const Size sizes[] = {{1, 1}, {3, 2}, {7, 9}, {8, 8}, {12, 5}, {16, 33}, {21, 4}, {259, 67}, {1921, 37}};
    // Every size, border and layout (8-bit, 10-bit, 10-bit shifted as in p010), rows aligned for
    // vector accesses and not.
    auto check_everywhere = [&](PlaneOp op, const std::string& name) {
        for (const Size s : sizes)
            for (Border b : kBorders)
                for (int layout = 0; layout < 3; ++layout)
                    for (bool aligned : {false, true}) {
                        op.border = b;
                        const int depth = layout ? 10 : 8, shift = layout == 2 ? 6 : 0;
                        const Outcome o = run_case(op, s.w, s.h, depth, KernelChoice{}, rng(), 1, 0, shift, aligned);
                        expect_close(o, static_cast<long>(s.w) * s.h, true,
                                     name + " " + std::to_string(s.w) + "x" + std::to_string(s.h) + " " + border_name(b) +
                                         " layout " + std::to_string(layout) + (aligned ? " aligned" : ""));
                    }
    };
    // Taps in -128..127 take the DP4A path on 8-bit planes (strip_dp4a_rows.cuh): small ones, and the
    // extremes of a signed byte; taps outside it take the float paths.
    for (int k : {3, 5, 7}) {
        const PlaneOp op = random_dense(k, 20, 1.0f / (k * 23), 100, rng);
        ASSERT_TRUE(op.conv.integer);
        check_everywhere(op, std::to_string(k) + "x" + std::to_string(k));
        PlaneOp extremes = random_dense(k, 127, 1.0f / (k * 160), 128, rng);
        extremes.conv.k[0] = -128;
        extremes.conv.k[k * k - 1] = 127;
        finalize_convolve(extremes.conv);
        check_everywhere(extremes, std::to_string(k) + "x" + std::to_string(k) + " byte extremes");
        check_everywhere(random_dense(k, 300, 1.0f / (k * 500), 128, rng), std::to_string(k) + "x" + std::to_string(k) + " wide taps");
    }
    for (const char* spec : {"sobel", "prewitt", "scharr=scale=0.7:delta=9", "laplacian"})
        check_everywhere(build_chain(spec)[0].ops[0], spec);
    // Taps that are not whole numbers: the double-precision tile kernels.
    check_everywhere(build_chain("sharpen=strength=0.7")[0].ops[0], "sharpen 0.7");
    PlaneOp half_tap = random_dense(7, 20, 1.0f / 300, 100, rng);
    half_tap.conv.k[3] = 0.5;
    finalize_convolve(half_tap.conv);
    check_everywhere(half_tap, "7x7 with a half tap");
}

// The tables a kernel needs (taps in constant or global memory, the integer products' band
// fragments, the FFT's spectrum) are uploaded when its operation is prepared and must have landed
// before the first launch reads them. Every case here is a kernel the process has not seen (fresh taps on every
// --gtest_repeat), launched at once on a non-blocking stream and compared with the reference,
// while another stream keeps the copy engine busy with large uploads, as the other streams of the
// pipeline (or other processes on the GPU) do: an upload that returned before its copy landed
// then loses the race, and the kernel reads whatever the fresh allocation held.
class CopyEngineLoad {
public:
    CopyEngineLoad() : host_(kBytes), device_(kBytes) {
        VF_CUDA_CHECK(cudaHostRegister(host_.data(), kBytes, cudaHostRegisterDefault));
        thread_ = std::thread([this] {
            // No exceptions on this thread: a failed copy just ends the load.
            while (!stop_ && cudaMemcpyAsync(device_.data(), host_.data(), kBytes, cudaMemcpyHostToDevice, stream_.get()) == cudaSuccess &&
                   cudaStreamSynchronize(stream_.get()) == cudaSuccess) {
            }
        });
    }
    ~CopyEngineLoad() {
        stop_ = true;
        thread_.join();
        cudaHostUnregister(host_.data());
    }

private:
    static constexpr size_t kBytes = size_t{256} << 20;
    std::vector<uint8_t> host_;
    cuda::DeviceBuffer device_;
    cuda::Stream stream_;
    std::atomic<bool> stop_{false};
    std::thread thread_;
};

TEST(Gpu, FirstLaunchOfEveryKernelSeesItsTables) {
    SKIP_WITHOUT_GPU();
    static unsigned iteration = 0;
    std::mt19937 rng(61 + 1000 * iteration++);
    struct Path {
        KernelChoice kernel;
        int kw, kh, depth;
        bool aligned, rank1;
    };
    const Path paths[] = {
        {KernelFamily::Naive, 7, 7, 8, false, false},     {KernelFamily::Constant, 9, 5, 8, false, false},
        {KernelFamily::Direct, 5, 5, 8, false, false},     {KernelFamily::Direct, 13, 13, 10, false, false},
        {KernelFamily::Separable, 9, 9, 10, false, true}, {KernelFamily::Separable, 21, 15, 8, true, true},
        {KernelFamily::Fft, 17, 17, 8, false, false},     {KernelFamily::Tensor, 5, 5, 8, true, false},
        {KernelFamily::Tensor, 65, 65, 8, true, false},   {KernelFamily::Tensor, 15, 15, 10, false, false},
    };
    CopyEngineLoad load;
    for (const Path& p : paths)
        for (int n = 0; n < 8; ++n) {
            PlaneOp op;
            if (p.rank1) {
                op = rank1(random_vector(p.kh, 1, 9, rng), random_vector(p.kw, 0, 255, rng), 1.0f / (p.kw * p.kh * 200.0f), 7);
            } else {
                op = random_taps(p.kw, p.kh, p.kernel == KernelFamily::Tensor && p.kw > 20 ? 3 : 60, rng);
                op.conv.rdiv = 1.0f / (p.kw * p.kh * 20.0f);
                op.conv.bias = 128;
                finalize_convolve(op.conv);
            }
            op.border = kBorders[n % 3];
            const std::string what = std::string(kernel_choice_name(p.kernel)) + " " + std::to_string(p.kw) + "x" +
                                     std::to_string(p.kh) + " " + std::to_string(p.depth) + "-bit, fresh kernel " + std::to_string(n);
            const Outcome o = run_case(op, 37, 29, p.depth, p.kernel, rng(), 1, 0, 0, p.aligned);
            expect_accuracy(o, family_accuracy(*p.kernel.family), op, p.depth, 37 * 29, what);
        }
}

// What auto reports is the row that ran, and the table's first rows win where they take the plane.
TEST(Gpu, AutoReportsTheRowThatRan) {
    SKIP_WITHOUT_GPU();
    const PlaneOp sobel = build_chain("sobel")[0].ops[0];
    EXPECT_EQ(run_case(sobel, 1921, 1081, 8, KernelChoice{}, 1, 1, 0, 0, true).ran, "gradient-strip16");
    EXPECT_EQ(run_case(sobel, 961, 541, 8, KernelChoice{}, 2, 2, 1, 0, true).ran, "gradient-tile");  // nv12 chroma
    EXPECT_EQ(run_case(build_chain("box=radius=31")[0].ops[0], 640, 360, 8, KernelChoice{}, 3, 1, 0, 0, true).ran, "box-staged");
    EXPECT_EQ(run_case(build_chain("gaussian=sigma=3.2")[0].ops[0], 640, 360, 10, KernelChoice{}, 4, 1, 0, 0, true).ran,
              "separable-f32");
    KernelChoice none;
    EXPECT_FALSE(parse_kernel_choice("strip32", &none));
    EXPECT_NE(kernel_choices().find("strip16-dp4a"), std::string::npos);
    // A forced row runs on the operations of its kind and leaves the others (grey chroma, a Sobel
    // in a chain) to auto; on an operation of its kind it cannot compute, it is a usage error.
    KernelChoice tile;
    ASSERT_TRUE(parse_kernel_choice("tile", &tile));
    PlaneOp fill;
    fill.kind = OpKind::Fill;
    EXPECT_EQ(run_choice(fill, 33, 17, 8, tile, 5).ran, "fill");
    EXPECT_EQ(run_choice(sobel, 33, 17, 8, tile, 6).ran.rfind("gradient-", 0), 0u);
    EXPECT_EQ(run_choice(build_chain("convolution=m=1 2 3 4 5 6 7 8 9")[0].ops[0], 33, 17, 8, tile, 7).ran, "tile");
    try {
        run_choice(build_chain("convolution=m=0.5 1 0.5 1 3 1 0.5 1 0.5")[0].ops[0], 33, 17, 8, tile, 8);
        ADD_FAILURE() << "--kernel tile took taps that are not whole numbers";
    } catch (const Error& e) {
        EXPECT_EQ(e.category(), ErrorCategory::Usage);
    }
}

}  // namespace
}  // namespace vf::gpu_test
