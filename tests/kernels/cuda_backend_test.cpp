// Every CUDA path against the CPU reference on fresh random data: every filter, odd, tall, 1x1
// and 4K sizes, every border, 8 and 10 bit, planar and interleaved layouts. The device copy of
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
#include "kernels/cpu_backend.hpp"
#include "kernels/cuda_backend.hpp"
#include "kernels/fixed_finish.hpp"
#include "kernels/reference.hpp"
#include "support/parallel_reference.hpp"
#include "support/random_plane.hpp"

namespace vf {
namespace {

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

// The reference output for a case. The plain reference for ordinary sizes; for 4K the CPU fast
// path, which the CPU suite proves equal to the reference bit for bit, so the suite stays quick.
// Cases that differ only in layout (planar, nv12's interleaved chroma, p010's shift, the pitch)
// hold the same samples when they share a seed and a depth, and so the same reference: the last
// one is kept, so a test that loops over layouts innermost computes it once.
void reference_for(const PlaneOp& op, const TestPlane& src, TestPlane& ref, unsigned seed) {
    using Key = std::tuple<OpKind, Border, int, int, std::vector<double>, float, float, std::array<int, 9>, std::array<int, 9>, float,
                           float, float, int, int, int, unsigned>;
    static Key last_key{};
    static std::vector<int> last;
    const PlaneView v = src.view();
    const Key key{op.kind, op.border, op.conv.kw, op.conv.kh, op.conv.k, op.conv.rdiv, op.conv.bias, op.grad.gx, op.grad.gy,
                  op.grad.divisor, op.grad.scale, op.grad.delta, v.width, v.height, v.depth, seed};
    if (key == last_key && last.size() == static_cast<size_t>(v.width) * v.height) {
        for (int y = 0; y < v.height; ++y)
            for (int x = 0; x < v.width; ++x) ref.view().write(x, y, last[static_cast<size_t>(y) * v.width + x]);
        return;
    }
    if (static_cast<long>(v.width) * v.height > 1000000) CpuBackend(0).apply(op, src.view(), ref.view());
    else test::parallel_reference(op, src.view(), ref.view());
    last.resize(static_cast<size_t>(v.width) * v.height);
    for (int y = 0; y < v.height; ++y)
        for (int x = 0; x < v.width; ++x) last[static_cast<size_t>(y) * v.width + x] = ref.at(x, y);
    last_key = key;
}

// Runs op on the GPU with `kernel` (auto, a family or a row) and compares with the reference.
Outcome run_choice(const PlaneOp& op, int w, int h, int depth, KernelChoice kernel, unsigned seed, int step = 1, int offset = 0,
                   int shift = 0, bool aligned = false) {
    std::mt19937 rng(seed);
    cuda::new_buffer_fill() = test::poison_byte();
    TestPlane src(w, h, depth, step, offset, shift, aligned), ref(w, h, depth, step, offset, shift, aligned),
        out(w, h, depth, step, offset, shift, aligned);
    src.fill_random(rng);
    reference_for(op, src, ref, seed);
    out.poison();
    cuda::DeviceBuffer dsrc(src.size_bytes()), ddst(out.size_bytes());
    cuda::Stream stream;
    VF_CUDA_CHECK(cudaMemcpyAsync(dsrc.data(), src.bytes(), src.size_bytes(), cudaMemcpyHostToDevice, stream.get()));
    VF_CUDA_CHECK(cudaMemcpyAsync(ddst.data(), out.bytes(), out.size_bytes(), cudaMemcpyHostToDevice, stream.get()));
    const char* ran = CudaBackend().apply(op, src.view_at(dsrc.data()), out.view_at(ddst.data()), stream.get(), kernel);
    VF_CUDA_CHECK(cudaMemcpyAsync(out.bytes(), ddst.data(), out.size_bytes(), cudaMemcpyDeviceToHost, stream.get()));
    stream.sync();
    Outcome o;
    o.ran = ran;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const int d = std::abs(ref.at(x, y) - out.at(x, y));
            o.differ += d != 0;
            o.max_abs = std::max(o.max_abs, d);
        }
    o.padding_ok = out.padding_intact();
    return o;
}

Outcome run_case(const PlaneOp& op, int w, int h, int depth, GpuKernel kernel, unsigned seed, int step = 1, int offset = 0,
                 int shift = 0, bool aligned = false) {
    return run_choice(op, w, h, depth, KernelChoice{kernel, -1}, seed, step, offset, shift, aligned);
}

// The FFT path's target: at most 1 LSB anywhere (its rounding differs from direct sums at ties).
void expect_within_one(const Outcome& o, const std::string& what) {
    EXPECT_TRUE(o.padding_ok) << what << ": wrote outside the plane";
    EXPECT_LE(o.max_abs, 1) << what;
}

void expect_close(const Outcome& o, long pixels, bool exact, const std::string& what) {
    EXPECT_TRUE(o.padding_ok) << what << ": wrote outside the plane";
    if (exact) {
        EXPECT_EQ(o.differ, 0) << what << ": max diff " << o.max_abs;
    } else {
        EXPECT_LE(o.max_abs, 1) << what;
        EXPECT_LE(o.differ, pixels / 1000) << what << ": " << o.differ << " of " << pixels << " differ";
    }
}

const char* kSpecs[] = {
    "sobel=planes=all",
    "scharr=planes=all:scale=1.5:delta=4",
    "laplacian=planes=all:diagonal=1",
    "gaussian=sigma=1.5",
    "gaussian=sigma=3.2",
    "box=radius=2",
    "box=radius=31",
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
const Border kBorders[] = {Border::Mirror, Border::Replicate, Border::Zero};

class GpuMatchesReference : public ::testing::TestWithParam<std::tuple<const char*, Size, Border, int>> {};

TEST_P(GpuMatchesReference, AutoPath) {
    SKIP_WITHOUT_GPU();
    const auto [spec, size, border, depth] = GetParam();
    PlaneOp op = build_chain(spec)[0].ops[0];
    op.border = border;
    const unsigned seed = static_cast<unsigned>(std::hash<std::string>{}(std::string(spec) + std::to_string(size.w * 7 + size.h) +
                                                                         std::to_string(depth) + border_name(border)));
    for (bool aligned : {false, true}) {  // scalar and 4-wide load/store paths
        const Outcome o = run_case(op, size.w, size.h, depth, GpuKernel::Auto, seed, 1, 0, 0, aligned);
        expect_close(o, static_cast<long>(size.w) * size.h, op.kind == OpKind::Gradient,
                     std::string(spec) + " " + std::to_string(size.w) + "x" + std::to_string(size.h) + " seed " +
                         std::to_string(seed) + (aligned ? " aligned" : ""));
    }
}

INSTANTIATE_TEST_SUITE_P(AllFilters, GpuMatchesReference,
                         ::testing::Combine(::testing::ValuesIn(kSpecs), ::testing::ValuesIn(kSizes),
                                            ::testing::ValuesIn(kBorders), ::testing::Values(8, 10)));

// Every forced variant (what `--kernel` selects) computes the same function.
class GpuVariants : public ::testing::TestWithParam<std::tuple<const char*, GpuKernel>> {};

TEST_P(GpuVariants, MatchReference) {
    SKIP_WITHOUT_GPU();
    const auto [spec, kernel] = GetParam();
    const PlaneOp op = build_chain(spec)[0].ops[0];
    if (kernel == GpuKernel::Separable && !op.conv.separable()) GTEST_SKIP() << spec << " is not separable";
    if (kernel == GpuKernel::Tensor && !cuda::tensor_eligible(op.conv, TestPlane(1, 1, 8).view()))
        GTEST_SKIP() << spec << " is not for the tensor cores (taps not whole numbers)";
    // Pitches of odd padding and 64-byte aligned rows (where 8-bit tiles are staged a word at a time).
    for (const Size s : {Size{61, 37}, Size{640, 360}})
        for (Border b : kBorders)
            for (bool aligned : {false, true}) {
                PlaneOp bop = op;
                bop.border = b;
                const Outcome o = run_case(bop, s.w, s.h, 8, kernel, 17u + s.w, 1, 0, 0, aligned);
                const std::string what = std::string(spec) + " " + gpu_kernel_name(kernel) + " " + border_name(b) +
                                         (aligned ? " aligned" : "");
                if (kernel == GpuKernel::Fft) expect_within_one(o, what);
                else expect_close(o, static_cast<long>(s.w) * s.h, false, what);
            }
}

INSTANTIATE_TEST_SUITE_P(
    Kernels, GpuVariants,
    ::testing::Combine(::testing::Values("convolution=m=1 2 3 4 5 6 7 8 9", "gaussian=sigma=2", "box=radius=4",
                                         "convolution=m=1 -1 2 -2 3 -3 4 -4 5 -5 6 -6 7 -7 8 -8 9 -9 10 -10 11 -11 12 -12 13 "
                                         "-13 14 -14 15 -15 16 -16 17 -17 18 -18 19 -19 20 -20 21 -21 22 -22 23 -23 24 -24 25 "
                                         "-25 26 -26 27 -27 28 -28 29 -29 30 -30 31 -31 32 -32 33 -33 34 -34 35 -35 36 -36 37 "
                                         "-37 38 -38 39 -39 40 -40 41:bias=128:rdiv=0.01"),
                       ::testing::Values(GpuKernel::Naive, GpuKernel::Constant, GpuKernel::Tiled, GpuKernel::Separable,
                                         GpuKernel::Fft, GpuKernel::Tensor)));

// A k x k matrix of random whole numbers in [-max_tap, max_tap].
// A kw x kh convolution with whole-number taps drawn from -max_tap..max_tap (not yet finalised).
PlaneOp random_taps(int kw, int kh, int max_tap, std::mt19937& rng) {
    PlaneOp op;
    op.kind = OpKind::Convolve;
    op.conv.kw = kw;
    op.conv.kh = kh;
    std::uniform_int_distribution<int> d(-max_tap, max_tap);
    for (int i = 0; i < kw * kh; ++i) op.conv.k.push_back(d(rng));
    return op;
}

PlaneOp random_dense(int k, int max_tap, float rdiv, float bias, std::mt19937& rng) {
    PlaneOp op = random_taps(k, k, max_tap, rng);
    op.conv.rdiv = rdiv;
    op.conv.bias = bias;
    finalize_convolve(op.conv);
    return op;
}

TEST(Gpu, LargeKernelsAndFourK) {
    SKIP_WITHOUT_GPU();
    std::mt19937 rng(3);
    // A random dense 27x27 and a 79x79 kernel, and a 4K plane.
    for (int k : {27, 79}) {
        const PlaneOp op = random_dense(k, 8, 1.0f / (k * 8), 128, rng);
        expect_close(run_case(op, 301, 167, 8, GpuKernel::Tiled, 11u + k), 301L * 167, false, "dense tiled " + std::to_string(k));
        expect_within_one(run_case(op, 301, 167, 10, GpuKernel::Fft, 12u + k), "dense fft " + std::to_string(k));
        expect_within_one(run_case(op, 301, 167, 8, GpuKernel::Auto, 13u + k), "dense auto " + std::to_string(k));
    }
    const PlaneOp c5 = build_chain("convolution=m=1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25")[0].ops[0];
    expect_close(run_case(c5, 1919, 1079, 8, GpuKernel::Auto, 4), 1919L * 1079, false, "1919x1079 5x5");
    const PlaneOp g = build_chain("gaussian=sigma=3.2")[0].ops[0];
    expect_close(run_case(g, 3840, 2160, 8, GpuKernel::Auto, 5), 3840L * 2160, false, "4K gaussian");
    const PlaneOp s = build_chain("sobel")[0].ops[0];
    expect_close(run_case(s, 3840, 2160, 10, GpuKernel::Auto, 6, 1, 0, 0, true), 3840L * 2160, true, "4K sobel 10 bit");
    const PlaneOp c3 = build_chain("convolution=m=1 2 3 4 5 6 7 8 9")[0].ops[0];
    expect_close(run_case(c3, 3840, 2160, 8, GpuKernel::Auto, 7, 1, 0, 0, true), 3840L * 2160, true, "4K 3x3 aligned");
}

TEST(Gpu, InterleavedAndShiftedLayouts) {
    SKIP_WITHOUT_GPU();
    for (const char* spec : {"gaussian=sigma=2", "sobel=planes=all", "convolution=m=1 2 3 4 5 6 7 8 9"}) {
        const PlaneOp op = build_chain(spec)[0].ops[0];
        for (int offset : {0, 1})
            for (int shift : {0, 6}) {
                const Outcome o = run_case(op, 37, 21, shift ? 10 : 8, GpuKernel::Auto, 9, 2, offset, shift);
                expect_close(o, 37 * 21, op.kind == OpKind::Gradient, std::string(spec) + " nv12/p010 layout");
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
                        const Outcome o = run_case(op, s.w, s.h, depth, GpuKernel::Auto, rng(), 1, 0, shift, aligned);
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

// A 5x5 with byte taps on an 8-bit plane of 4 Mpixel or more takes the DP4A path (smaller planes
// the tile): every border, the ragged right edge included, exactly as the reference.
TEST(Gpu, FiveByFiveOnLargePlanesExactOnTheBytePath) {
    SKIP_WITHOUT_GPU();
    std::mt19937 rng(31);
    PlaneOp op = random_dense(5, 127, 1.0f / 800, 128, rng);
    op.conv.k[0] = -128;
    finalize_convolve(op.conv);
    for (Border b : kBorders) {
        op.border = b;
        expect_close(run_case(op, 2309, 1733, 8, GpuKernel::Auto, rng(), 1, 0, 0, true), 2309L * 1733, true,
                     std::string("5x5 byte taps, 2309x1733, ") + border_name(b));
    }
}

// Whole-number K x K kernels (3 to 15) with byte taps on 8-bit planes with 16-byte aligned rows
// take the 16-wide strips with the integer finish (strip16_rows.cuh; `tiled` forced, which is
// what `auto` runs below 7x7 and times against the tensor path from 7x7): exactly the reference
// at every block edge (blocks are 128 x 16 outputs; widths that are and are not a multiple of 16,
// so the last strip is whole or partial; the halo is 4 bytes up to 9x9, 8 above), for finishes
// with and without the funnel shift (|rdiv| below and above 1/4), a negative divisor, and a
// divisor whose integer finish does not exist (the float paths then); at 13x13 and 15x15 also
// taps over the whole byte range. The gradients with default divisor, scale and delta take the
// same strips with an integer magnitude (|Laplacian|'s sums are all perfect squares, the square
// root's hardest case).
TEST(Gpu, SixteenWideBytePathExactAgainstReference) {
    SKIP_WITHOUT_GPU();
    std::mt19937 rng(43);
    const Size sizes[] = {{1, 1}, {4, 3}, {15, 2}, {16, 16}, {17, 9}, {20, 7}, {255, 8}, {256, 9}, {257, 17},
                          {272, 33}, {273, 5}, {529, 24}, {1921, 43}};
    struct Case {
        int k, max_tap;
        float rdiv, bias;
        bool integer_finish;  // whether solve_fixed_finish finds one (asserted below)
    };
    std::vector<Case> cases;
    for (int k : {3, 5, 7, 9, 11, 13, 15})
        for (const Case f : {Case{k, 9, 1.0f / 36, 128, true}, Case{k, 9, 1.0f, 0, true}, Case{k, 9, 0.01f, 128, true},
                             Case{k, 9, -1.0f / 9, 200, true}, Case{k, 9, 0.3f, 100, false}})
            cases.push_back(f);
    cases.push_back({13, 127, 1.0f / 16384, 128, true});
    cases.push_back({15, 127, 1.0f / 16384, 128, true});
    for (const Case& c : cases) {
        PlaneOp op = random_dense(c.k, c.max_tap, c.rdiv, c.bias, rng);
        op.conv.k[0] = -c.max_tap - (c.max_tap == 127);  // the sums' range then reaches that of the extreme taps
        op.conv.k[1] = c.max_tap;
        finalize_convolve(op.conv);
        long long lo = 0, hi = 0;
        for (double t : op.conv.k) (t < 0 ? lo : hi) += static_cast<long long>(t) * 255;
        const std::string name = std::to_string(c.k) + "x" + std::to_string(c.k) + " taps to " + std::to_string(c.max_tap) +
                                 " rdiv " + std::to_string(c.rdiv);
        ASSERT_EQ(solve_fixed_finish(c.rdiv, c.bias, 255, lo, hi).has_value(), c.integer_finish) << name;
        for (const Size sz : sizes)
            for (Border b : kBorders) {
                op.border = b;
                expect_close(run_case(op, sz.w, sz.h, 8, GpuKernel::Tiled, rng(), 1, 0, 0, true), static_cast<long>(sz.w) * sz.h,
                             true, name + " " + std::to_string(sz.w) + "x" + std::to_string(sz.h) + " " + border_name(b));
            }
    }
    for (const char* spec : {"sobel", "prewitt", "laplacian", "laplacian=diagonal=1", "scharr"}) {
        PlaneOp op = build_chain(spec)[0].ops[0];
        for (const Size sz : sizes)
            for (Border b : kBorders) {
                op.border = b;
                expect_close(run_case(op, sz.w, sz.h, 8, GpuKernel::Auto, rng(), 1, 0, 0, true), static_cast<long>(sz.w) * sz.h,
                             true, std::string(spec) + " " + std::to_string(sz.w) + "x" + std::to_string(sz.h) + " " + border_name(b));
            }
    }
}

// Box filters take running sums in 128x32 output tiles (a walk down each input column, then
// running totals across each row): sums of whole numbers, so they must match the reference
// exactly at every tile edge (planes narrower, shorter or just over a tile; a window reaching
// past the top or bottom, where the walk goes through the border rule; the widest box, 127),
// for 8 and 10 bit, p010's shifted samples, nv12's interleaved chroma, rows aligned and not.
TEST(Gpu, BoxExactAtEveryTileEdge) {
    SKIP_WITHOUT_GPU();
    std::mt19937 rng(37);
    struct BoxCase {
        const char* spec;
        std::vector<Size> sizes;
    };
    const BoxCase cases[] = {
        {"box=radius=1", {{1, 1}, {3, 2}, {129, 65}, {300, 3}, {260, 200}}},
        {"box=radius=31", {{1, 1}, {5, 300}, {129, 65}, {260, 200}}},
        {"box=radius=63", {{2, 1}, {5, 300}, {260, 200}}},
        {"convolution=m=1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1:rdiv=0.05:bias=3", {{7, 3}, {131, 66}}},
    };
    for (const BoxCase& c : cases) {
        PlaneOp op = build_chain(c.spec)[0].ops[0];
        ASSERT_TRUE(op.conv.separable()) << c.spec;
        for (const Size s : c.sizes)
            for (Border b : kBorders) {
                const unsigned seed = rng();  // fresh data per size and border; its layouts share it
                for (int layout = 0; layout < 4; ++layout)
                    for (bool aligned : {false, true}) {
                        op.border = b;
                        const int depth = layout == 0 || layout == 3 ? 8 : 10, shift = layout == 2 ? 6 : 0, step = layout == 3 ? 2 : 1;
                        const Outcome o = run_case(op, s.w, s.h, depth, GpuKernel::Auto, seed, step, step - 1, shift, aligned);
                        expect_close(o, static_cast<long>(s.w) * s.h, true,
                                     std::string(c.spec) + " " + std::to_string(s.w) + "x" + std::to_string(s.h) + " " +
                                         border_name(b) + " layout " + std::to_string(layout) + (aligned ? " aligned" : ""));
                    }
            }
    }
    PlaneOp big = build_chain("box=radius=31")[0].ops[0];
    for (Border b : kBorders) {
        big.border = b;
        expect_close(run_case(big, 1921, 1083, 8, GpuKernel::Auto, rng(), 1, 0, 0, true), 1921L * 1083, true,
                     std::string("box 63x63, 1921x1083, ") + border_name(b));
    }
}

// The separable kernel's row pass runs the taps in zero-padded chunks of 8 (the tile is loaded
// that much wider): tap counts that are not a multiple of 8, the widest (121), negative taps, a
// tile wider and taller than the plane.
TEST(Gpu, SeparableAtEveryTapCount) {
    SKIP_WITHOUT_GPU();
    std::mt19937 rng(41);
    for (const char* spec : {"gaussian=sigma=0.6", "gaussian=sigma=2:size=9", "gaussian=sigma=3.2", "gaussian=sigma=15",
                             "convolution=m=1 2 1 2 4 2 1 2 1",
                             "convolution=m=1 -2 3 -2 1 -2 4 -6 4 -2 3 -6 9 -6 3 -2 4 -6 4 -2 1 -2 3 -2 1:rdiv=0.0123:bias=128"}) {
        PlaneOp op = build_chain(spec)[0].ops[0];
        ASSERT_TRUE(op.conv.separable()) << spec;
        for (const Size s : {Size{1, 1}, Size{9, 70}, Size{203, 131}, Size{333, 250}})
            for (Border b : kBorders)
                for (int depth : {8, 10}) {
                    const unsigned seed = rng();  // fresh data per case; both pitches share it
                    for (bool aligned : {false, true}) {
                        op.border = b;
                        expect_close(run_case(op, s.w, s.h, depth, GpuKernel::Separable, seed, 1, 0, 0, aligned),
                                     static_cast<long>(s.w) * s.h, false,
                                     std::string(spec) + " " + std::to_string(s.w) + "x" + std::to_string(s.h) + " " +
                                         border_name(b) + " " + std::to_string(depth) + " bit" + (aligned ? " aligned" : ""));
                    }
                }
    }
}

// The tensor-core kernel (whole-number taps, half-precision products, FP32 sums) must equal the
// reference exactly: kernel shapes from 1x1 to 65x65 and rectangular ones up to 81 wide or tall
// (1 to 6 chunks of 16 input columns, each count a kernel of its own), planes smaller than one
// 128x32 block, at and just over block edges, every border, 8 and 10 bit, p010's shifted samples,
// nv12's interleaved chroma, and taps at the limits it accepts (+-2048; sums near 2^24).
struct TapShape {
    int kw, kh, max_tap;
};
const TapShape kTensorShapes[] = {{1, 1, 2048}, {3, 3, 2048}, {7, 7, 99}, {17, 1, 50}, {1, 17, 50}, {9, 5, 30}, {5, 13, 30},
                                  {13, 13, 9}, {27, 27, 9}, {33, 31, 17}, {41, 9, 30}, {63, 63, 4}, {65, 65, 3},
                                  {81, 3, 30}, {1, 81, 20}};

std::string shape_name(const ::testing::TestParamInfo<TapShape>& info) {
    return std::to_string(info.param.kw) + "x" + std::to_string(info.param.kh);
}

class TensorPath : public ::testing::TestWithParam<TapShape> {};

// One kernel shape a test, so that the suite's shards share the work.
TEST_P(TensorPath, ExactAgainstReference) {
    SKIP_WITHOUT_GPU();
    const TapShape sh = GetParam();
    std::mt19937 rng(43 + sh.kw * 131 + sh.kh);
    const Size sizes[] = {{1, 1}, {1, 9}, {9, 1}, {2, 2}, {2, 3}, {63, 65}, {64, 64}, {65, 129}, {127, 31}, {130, 63}, {257, 71}};
    int tested = 0;
    PlaneOp op = random_taps(sh.kw, sh.kh, sh.max_tap, rng);
    op.conv.k[0] = sh.max_tap;
    op.conv.k.back() = -sh.max_tap;
    op.conv.rdiv = 1.0f / (sh.kw * sh.kh * sh.max_tap * 0.3f + 1);
    op.conv.bias = 128;
    finalize_convolve(op.conv);
    const std::string name = std::to_string(sh.kw) + "x" + std::to_string(sh.kh) + " taps to " + std::to_string(sh.max_tap);
    std::string why;
    ASSERT_TRUE(cuda::tensor_eligible(op.conv, TestPlane(1, 1, 8).view(), &why)) << name << " should be taken: " << why;
    for (const Size s : sizes)
        for (Border b : kBorders) {
            const unsigned seed = rng();  // fresh data per size and border; its layouts share it
            for (int layout : {0, 3, 1, 2}) {  // 8-bit layouts, then 10-bit: each pair shares its reference
                const int depth = layout == 0 || layout == 3 ? 8 : 10, shift = layout == 2 ? 6 : 0, step = layout == 3 ? 2 : 1;
                if (depth == 10 && !cuda::tensor_eligible(op.conv, TestPlane(1, 1, 10).view())) continue;
                op.border = b;
                const Outcome o = run_case(op, s.w, s.h, depth, GpuKernel::Tensor, seed, step, step - 1, shift, layout == 1);
                expect_close(o, static_cast<long>(s.w) * s.h, true,
                             name + " " + std::to_string(s.w) + "x" + std::to_string(s.h) + " " + border_name(b) + " layout " +
                                 std::to_string(layout));
                ++tested;
            }
        }
    // 8-bit rows 64-byte aligned, large enough for blocks wholly inside the plane: their tiles
    // are staged a word at a time (every offset of the tile's first column within a word
    // comes up among these kernel widths).
    for (Border b : kBorders) {
        op.border = b;
        expect_close(run_case(op, 521, 190, 8, GpuKernel::Tensor, rng(), 1, 0, 0, true), 521L * 190, true,
                     name + " 521x190 aligned " + border_name(b));
    }
    EXPECT_GE(tested, static_cast<int>(std::size(sizes)) * 3 * 2);
}

INSTANTIATE_TEST_SUITE_P(Shapes, TensorPath, ::testing::ValuesIn(kTensorShapes), shape_name);

// kernel shapes from 1x1 to 65x65 above, here: a large plane, auto, and what the path refuses.
TEST(Gpu, TensorPathLargePlaneAutoAndRefusals) {
    SKIP_WITHOUT_GPU();
    std::mt19937 rng(43);
    // A large plane with a ragged right and bottom edge, and auto (which times it against the
    // others) giving the same bytes.
    PlaneOp op = random_dense(27, 9, 1.0f / 700, 128, rng);
    expect_close(run_case(op, 1921, 1083, 8, GpuKernel::Tensor, 5), 1921L * 1083, true, "27x27 tensor 1921x1083");
    expect_close(run_case(op, 1921, 1083, 8, GpuKernel::Auto, 5), 1921L * 1083, false, "27x27 auto 1921x1083");
    // What it refuses: taps that are not whole numbers, beyond +-2048, sums that could pass 2^24.
    PlaneOp frac = random_dense(7, 9, 1, 0, rng);
    frac.conv.k[3] = 0.5;
    finalize_convolve(frac.conv);
    EXPECT_FALSE(cuda::tensor_eligible(frac.conv, TestPlane(1, 1, 8).view()));
    PlaneOp wide = random_dense(7, 9, 1, 0, rng);
    wide.conv.k[3] = 2049;
    finalize_convolve(wide.conv);
    EXPECT_FALSE(cuda::tensor_eligible(wide.conv, TestPlane(1, 1, 8).view()));
    PlaneOp sums = random_dense(31, 1, 1, 0, rng);
    for (double& t : sums.conv.k) t = 17;  // 961 x 17 x 1023 < 2^24 <= 961 x 18 x 1023
    finalize_convolve(sums.conv);
    EXPECT_TRUE(cuda::tensor_eligible(sums.conv, TestPlane(1, 1, 10).view()));
    sums.conv.k[0] = 18 * 961 - 17 * 960;
    finalize_convolve(sums.conv);
    EXPECT_FALSE(cuda::tensor_eligible(sums.conv, TestPlane(1, 1, 10).view()));
    try {
        run_case(frac, 33, 17, 8, GpuKernel::Tensor, 1);
        ADD_FAILURE() << "--kernel tensor took a kernel it cannot compute exactly";
    } catch (const Error& e) {
        EXPECT_EQ(e.category(), ErrorCategory::Usage);
    }
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

// Only the layout matters to the eligibility checks, never the data: an aligned stand-in.
PlaneView device_like(const TestPlane& p) { return p.view_at(reinterpret_cast<uint8_t*>(uintptr_t{1} << 20)); }

class IntegerTensorPath : public ::testing::TestWithParam<TapShape> {};

// One kernel shape a test, with each finish, every border, planes from 1x1 to 521x190.
TEST_P(IntegerTensorPath, ExactAgainstReference) {
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
        if (!cuda::imma_eligible(op.conv, device_like(probe), device_like(probe), &why)) {
            // Only the float finish of sums that could pass 2^24 is refused.
            EXPECT_TRUE(!cuda::fixed_finish_for(op.conv) && !tensor_taps_problem(op.conv, 255).empty())
                << name << " should be taken: " << why;
            continue;
        }
        for (const Size s : sizes)
            for (Border b : kBorders) {
                if (sh.kw * sh.kh > 2000 && s.w * s.h > 300 * 70) continue;  // the CPU reference's time
                op.border = b;
                const Outcome o = run_case(op, s.w, s.h, 8, GpuKernel::Tensor, rng(), 1, 0, 0, true);
                expect_close(o, static_cast<long>(s.w) * s.h, true,
                             name + " " + std::to_string(s.w) + "x" + std::to_string(s.h) + " " + border_name(b));
                ++tested;
            }
    }
    EXPECT_GE(tested, 10 * 3);  // at least one finish on every size below 521x190
}

INSTANTIATE_TEST_SUITE_P(Shapes, IntegerTensorPath, ::testing::ValuesIn(kIntegerShapes), shape_name);

// The integer products (imma.cu), which the tensor path takes for byte taps on 8-bit planes
// with 16-byte aligned rows: the shapes above exercise every finish kind; here past 1080p and 4K
// with ragged edges, auto, and what the path refuses.
TEST(Gpu, IntegerTensorPathLargePlanesAndRefusals) {
    SKIP_WITHOUT_GPU();
    std::mt19937 rng(47);
    const TestPlane probe(64, 64, 8, 1, 0, 0, true);
    int kinds[3] = {0, 0, 0};
    for (const TapShape& sh : kIntegerShapes)
        for (const PlaneOp& op : integer_ops(sh))
            if (cuda::imma_eligible(op.conv, device_like(probe), device_like(probe))) {
                const FixedFinish* ff = cuda::fixed_finish_for(op.conv);
                ++kinds[!ff ? 2 : (ff->shift ? 1 : 0)];
            }
    for (int k = 0; k < 3; ++k) EXPECT_GT(kinds[k], 2) << "finish kind " << k << " was not exercised";
    // Past 1080p with ragged edges, and auto giving the same bytes.
    PlaneOp op = random_dense(13, 9, 1.0f / 500, 128, rng);
    expect_close(run_case(op, 1937, 1091, 8, GpuKernel::Tensor, 5, 1, 0, 0, true), 1937L * 1091, true, "13x13 1937x1091");
    expect_close(run_case(op, 1937, 1091, 8, GpuKernel::Auto, 5, 1, 0, 0, true), 1937L * 1091, true, "13x13 auto 1937x1091");
    // Past 4K: enough blocks for two row tiles a warp (on GPUs of up to 255 SMs), with kernel
    // rows unrolled and in a loop, a ragged last block column and row.
    expect_close(run_case(op, 3841, 2161, 8, GpuKernel::Tensor, 6, 1, 0, 0, true), 3841L * 2161, true, "13x13 3841x2161");
    PlaneOp flat = random_taps(21, 3, 127, rng);
    flat.conv.k[0] = -128;
    flat.conv.rdiv = 1.0f / 300;
    flat.conv.bias = 16;
    finalize_convolve(flat.conv);
    for (Border b : kBorders) {
        flat.border = b;
        expect_close(run_case(flat, 3841, 2161, 8, GpuKernel::Tensor, 7, 1, 0, 0, true), 3841L * 2161, true,
                     std::string("21x3 3841x2161 ") + border_name(b));
    }
    // What it refuses: a tap past a signed byte, a 10-bit plane, rows not 16-byte aligned.
    const TestPlane aligned8(64, 64, 8, 1, 0, 0, true), aligned10(64, 64, 10, 1, 0, 0, true), odd8(64, 64, 8);
    PlaneOp wide = random_dense(7, 9, 1.0f / 200, 0, rng);
    EXPECT_TRUE(cuda::imma_eligible(wide.conv, device_like(aligned8), device_like(aligned8)));
    EXPECT_FALSE(cuda::imma_eligible(wide.conv, device_like(aligned10), device_like(aligned10)));
    EXPECT_FALSE(cuda::imma_eligible(wide.conv, device_like(odd8), device_like(odd8)));
    wide.conv.k[3] = 128;
    finalize_convolve(wide.conv);
    EXPECT_FALSE(cuda::imma_eligible(wide.conv, device_like(aligned8), device_like(aligned8)));
}

// The separable kernel with its row pass on the integer products (separable_imma.cu) on an
// 8-bit plane with aligned rows, against the FP32 separable kernel on the same device input byte
// for byte (same column pass, same order of sums: any difference is a row-pass fault), and
// against the CPU reference. Both outputs are poisoned first.
struct SeparablePair {
    Outcome vs_reference;
    long vs_f32 = 0;  // pixels that differ from the FP32 kernel's
    bool taken = false;
};

SeparablePair run_separable_pair(const PlaneOp& op, int w, int h, unsigned seed) {
    std::mt19937 rng(seed);
    cuda::new_buffer_fill() = test::poison_byte();
    TestPlane src(w, h, 8, 1, 0, 0, true), ref(w, h, 8, 1, 0, 0, true), out(w, h, 8, 1, 0, 0, true), f32(w, h, 8, 1, 0, 0, true);
    src.fill_random(rng);
    if (static_cast<long>(w) * h > 1000000) CpuBackend(0).apply(op, src.view(), ref.view());
    else test::parallel_reference(op, src.view(), ref.view());
    out.poison();
    f32.poison();
    cuda::DeviceBuffer dsrc(src.size_bytes()), dout(out.size_bytes()), df32(f32.size_bytes());
    cuda::Stream stream;
    VF_CUDA_CHECK(cudaMemcpyAsync(dsrc.data(), src.bytes(), src.size_bytes(), cudaMemcpyHostToDevice, stream.get()));
    VF_CUDA_CHECK(cudaMemcpyAsync(dout.data(), out.bytes(), out.size_bytes(), cudaMemcpyHostToDevice, stream.get()));
    VF_CUDA_CHECK(cudaMemcpyAsync(df32.data(), f32.bytes(), f32.size_bytes(), cudaMemcpyHostToDevice, stream.get()));
    SeparablePair r;
    r.taken = cuda::try_separable_imma(op.conv, {src.view_at(dsrc.data()), out.view_at(dout.data()), op.border, stream.get()});
    cuda::conv_separable_f32(op.conv, {src.view_at(dsrc.data()), f32.view_at(df32.data()), op.border, stream.get()});
    VF_CUDA_CHECK(cudaMemcpyAsync(out.bytes(), dout.data(), out.size_bytes(), cudaMemcpyDeviceToHost, stream.get()));
    VF_CUDA_CHECK(cudaMemcpyAsync(f32.bytes(), df32.data(), f32.size_bytes(), cudaMemcpyDeviceToHost, stream.get()));
    stream.sync();
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const int d = std::abs(ref.at(x, y) - out.at(x, y));
            r.vs_reference.differ += d != 0;
            r.vs_reference.max_abs = std::max(r.vs_reference.max_abs, d);
            r.vs_f32 += out.at(x, y) != f32.at(x, y);
        }
    r.vs_reference.padding_ok = out.padding_intact();
    return r;
}

// A rank-1 kernel col (outer) row, finalised (factored again by plan.cpp).
PlaneOp rank1(const std::vector<int>& col, const std::vector<int>& row, float rdiv, float bias) {
    PlaneOp op;
    op.kind = OpKind::Convolve;
    op.conv.kw = static_cast<int>(row.size());
    op.conv.kh = static_cast<int>(col.size());
    for (int c : col)
        for (int t : row) op.conv.k.push_back(static_cast<double>(c) * t);
    op.conv.rdiv = rdiv;
    op.conv.bias = bias;
    finalize_convolve(op.conv);
    return op;
}

std::vector<int> random_vector(int n, int lo, int hi, std::mt19937& rng) {
    std::uniform_int_distribution<int> d(lo, hi);
    std::vector<int> v(n);
    for (int& x : v) x = d(rng);
    return v;
}

// The kernels the separable integer path is tested with, by name: Gaussians from 5 to 81 taps, and
// random rank-1 kernels with unsigned row taps up to 255 and signed ones at -128 and 127, every width
// from 3 to 81 in steps (each chunk count and band range), columns 3 to 127 tall.
std::vector<std::pair<std::string, PlaneOp>> separable_integer_ops() {
    std::mt19937 rng(53);
    std::vector<std::pair<std::string, PlaneOp>> ops;
    // Below sigma 1.6 a Gaussian's middle tap passes 255 (taps sum to 1024): refused, below.
    for (const char* spec : {"gaussian=sigma=3:size=5", "gaussian=sigma=2:size=9", "gaussian=sigma=3.2", "gaussian=sigma=7",
                             "gaussian=sigma=9.9:size=81"})
        ops.emplace_back(spec, build_chain(spec)[0].ops[0]);
    for (int kw : {3, 5, 11, 17, 21, 33, 47, 49, 63, 79, 81}) {
        const int kh = kw == 5 ? 127 : (kw * 7) % 40 + 2;  // odd, 3 to 41
        std::vector<int> row = random_vector(kw, 0, 255, rng), col = random_vector(kh, -40, 40, rng);
        row[0] = 255;
        col[0] = 41;
        ops.emplace_back("u8 rows " + std::to_string(kw) + "x" + std::to_string(kh),
                         rank1(col, row, 1.0f / (kw * kh * 255.0f * 5.0f), 128));
        std::vector<int> srow = random_vector(kw, -128, 127, rng);
        srow[0] = -128;
        srow[kw - 1] = 127;
        std::vector<int> scol = random_vector(kh, -9, 9, rng);
        scol[0] = 5;  // the factoring takes the first row's sign: keep -128 and 127 as they are
        ops.emplace_back("s8 rows " + std::to_string(kw) + "x" + std::to_string(kh),
                         rank1(scol, srow, 1.0f / (kw * kh * 100.0f), 100));
    }
    return ops;
}

class SeparableIntegerRowPass : public ::testing::TestWithParam<int> {};

// One kernel a test: on planes smaller than one 128 x 64 block, at and over block edges, every border.
TEST_P(SeparableIntegerRowPass, MatchesFp32AndReference) {
    SKIP_WITHOUT_GPU();
    auto [name, op] = separable_integer_ops()[GetParam()];
    std::mt19937 rng(59 + GetParam());
    const Size sizes[] = {{1, 1}, {1, 9}, {2, 2}, {2, 3}, {16, 1}, {17, 33}, {127, 63}, {128, 64}, {129, 65}, {300, 70}, {521, 190}};
    const TestPlane probe(64, 64, 8, 1, 0, 0, true);
    std::string why;
    ASSERT_TRUE(op.conv.separable()) << name;
    ASSERT_TRUE(cuda::separable_imma_eligible(op.conv, device_like(probe), device_like(probe), &why)) << name << ": " << why;
    for (const Size s : sizes)
        for (Border b : kBorders) {
            if (op.conv.kw * op.conv.kh > 3000 && s.w * s.h > 300 * 70) continue;  // the CPU reference's time
            op.border = b;
            const SeparablePair r = run_separable_pair(op, s.w, s.h, rng());
            const std::string what = name + " " + std::to_string(s.w) + "x" + std::to_string(s.h) + " " + border_name(b);
            EXPECT_TRUE(r.taken) << what;
            EXPECT_EQ(r.vs_f32, 0) << what << ": differs from the FP32 separable kernel";
            expect_close(r.vs_reference, static_cast<long>(s.w) * s.h, false, what);
        }
}

INSTANTIATE_TEST_SUITE_P(Kernels, SeparableIntegerRowPass,
                         ::testing::Range(0, static_cast<int>(separable_integer_ops().size())));

// The separable kernel with its row pass on the integer products: 1937x1091 through the path and
// through `auto`, and what it refuses.
TEST(Gpu, SeparableIntegerRowPassLargePlaneAndRefusals) {
    SKIP_WITHOUT_GPU();
    const TestPlane probe(64, 64, 8, 1, 0, 0, true);
    PlaneOp g = build_chain("gaussian=sigma=3.2")[0].ops[0];
    for (Border b : kBorders) {
        g.border = b;
        const SeparablePair r = run_separable_pair(g, 1937, 1091, 9);
        EXPECT_EQ(r.vs_f32, 0) << "gaussian 1937x1091 " << border_name(b);
        expect_close(r.vs_reference, 1937L * 1091, false, std::string("gaussian 1937x1091 ") + border_name(b));
    }
    expect_close(run_case(g, 1937, 1091, 8, GpuKernel::Auto, 10, 1, 0, 0, true), 1937L * 1091, false, "gaussian auto 1937x1091");
    // What it refuses: 10-bit planes, rows not 16-byte aligned, a row tap past a byte, unsigned
    // and signed row taps mixed past -128..127, a row wider than 81 (the FP32 kernel takes them).
    const TestPlane aligned10(64, 64, 10, 1, 0, 0, true), odd8(64, 64, 8);
    EXPECT_FALSE(cuda::separable_imma_eligible(g.conv, device_like(aligned10), device_like(aligned10)));
    EXPECT_FALSE(cuda::separable_imma_eligible(g.conv, device_like(odd8), device_like(odd8)));
    const auto refused = [&](const PlaneOp& op) { return !cuda::separable_imma_eligible(op.conv, device_like(probe), device_like(probe)); };
    EXPECT_TRUE(refused(build_chain("gaussian=sigma=1.5")[0].ops[0]));
    EXPECT_TRUE(refused(rank1({1, 2, 1}, {1, 256, 1}, 1.0f / 1024, 0)));
    EXPECT_TRUE(refused(rank1({1, 2, 1}, {-1, 200, -1}, 1.0f / 1024, 0)));
    EXPECT_TRUE(refused(rank1({1, 2, 1}, std::vector<int>(83, 1), 1.0f / 1024, 0)));
    EXPECT_FALSE(refused(rank1({1, 2, 1}, {-1, 127, -1}, 1.0f / 1024, 0)));
}

// Box filters: the kernel that stages its tile by cp.async (8-bit planes with 16-byte aligned
// rows) and the one that walks the plane (any other layout) against the reference, exactly:
// square and rectangular windows from 3 to 127 (a tile halo of 16 to 64 columns), -1 taps,
// planes smaller than one 128 x 32 block and over block edges, every border.
TEST(Gpu, BoxWalksExactAgainstReference) {
    SKIP_WITHOUT_GPU();
    std::mt19937 rng(59);
    struct Box {
        int kw, kh, tap;
    };
    const Box boxes[] = {{3, 3, 1}, {5, 9, 1}, {33, 3, 1}, {63, 63, 1}, {65, 31, -1}, {127, 5, 1}, {7, 127, 1}, {127, 127, 1}};
    const Size sizes[] = {{1, 1}, {1, 9}, {9, 1}, {2, 2}, {2, 3}, {17, 40}, {128, 32}, {129, 33}, {300, 70}, {521, 190}};
    int tested = 0;
    for (const Box& bx : boxes) {
        PlaneOp op = rank1(std::vector<int>(bx.kh, 1), std::vector<int>(bx.kw, bx.tap), 1.0f / (bx.kw * bx.kh), bx.tap < 0 ? 255.0f : 0.0f);
        ASSERT_TRUE(op.conv.separable());
        for (const Size s : sizes)
            for (Border b : kBorders)
                for (bool aligned : {true, false}) {
                    if (bx.kw * bx.kh > 3000 && s.w * s.h > 300 * 70) continue;  // the CPU reference's time
                    op.border = b;
                    const Outcome o = run_case(op, s.w, s.h, 8, GpuKernel::Separable, rng(), 1, 0, 0, aligned);
                    expect_close(o, static_cast<long>(s.w) * s.h, true,
                                 "box " + std::to_string(bx.kw) + "x" + std::to_string(bx.kh) + " " + std::to_string(s.w) + "x" +
                                     std::to_string(s.h) + " " + border_name(b) + (aligned ? " aligned" : ""));
                    ++tested;
                }
    }
    EXPECT_EQ(tested, 8 * 10 * 3 * 2 - 2 * 3 * 2);
    PlaneOp big = build_chain("box=radius=31")[0].ops[0];
    for (Border b : kBorders) {
        big.border = b;
        expect_close(run_case(big, 3841, 2161, 8, GpuKernel::Separable, rng(), 1, 0, 0, true), 3841L * 2161, true,
                     std::string("box 63x63, 3841x2161, ") + border_name(b));
    }
}

// The tables a kernel needs (taps in constant or global memory, the integer products' band
// fragments, the FFT's spectrum) are uploaded at its first launch and must have landed before that
// launch reads them. Every case here is a kernel the process has not seen (fresh taps on every
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
        GpuKernel kernel;
        int kw, kh, depth;
        bool aligned, rank1;
    };
    const Path paths[] = {
        {GpuKernel::Naive, 7, 7, 8, false, false},     {GpuKernel::Constant, 9, 5, 8, false, false},
        {GpuKernel::Tiled, 5, 5, 8, false, false},     {GpuKernel::Tiled, 13, 13, 10, false, false},
        {GpuKernel::Separable, 9, 9, 10, false, true}, {GpuKernel::Separable, 21, 15, 8, true, true},
        {GpuKernel::Fft, 17, 17, 8, false, false},     {GpuKernel::Tensor, 5, 5, 8, true, false},
        {GpuKernel::Tensor, 65, 65, 8, true, false},   {GpuKernel::Tensor, 15, 15, 10, false, false},
    };
    CopyEngineLoad load;
    for (const Path& p : paths)
        for (int n = 0; n < 8; ++n) {
            PlaneOp op;
            if (p.rank1) {
                op = rank1(random_vector(p.kh, 1, 9, rng), random_vector(p.kw, 0, 255, rng), 1.0f / (p.kw * p.kh * 200.0f), 7);
            } else {
                op = random_taps(p.kw, p.kh, p.kernel == GpuKernel::Tensor && p.kw > 20 ? 3 : 60, rng);
                op.conv.rdiv = 1.0f / (p.kw * p.kh * 20.0f);
                op.conv.bias = 128;
                finalize_convolve(op.conv);
            }
            op.border = kBorders[n % 3];
            const std::string what = std::string(gpu_kernel_name(p.kernel)) + " " + std::to_string(p.kw) + "x" +
                                     std::to_string(p.kh) + " " + std::to_string(p.depth) + "-bit, fresh kernel " + std::to_string(n);
            const Outcome o = run_case(op, 37, 29, p.depth, p.kernel, rng(), 1, 0, 0, p.aligned);
            if (p.kernel == GpuKernel::Fft) expect_within_one(o, what);
            else expect_close(o, 37 * 29, p.kernel == GpuKernel::Tensor, what);
        }
}

TEST(Gpu, CopyAndFill) {
    SKIP_WITHOUT_GPU();
    PlaneOp copy;
    copy.kind = OpKind::Copy;
    expect_close(run_case(copy, 45, 33, 10, GpuKernel::Auto, 1, 2, 1, 6), 45 * 33, true, "copy");
    // Planar copies take the driver's 2D copy (pitches differ from the width: padding must stay).
    expect_close(run_case(copy, 45, 33, 8, GpuKernel::Auto, 2), 45 * 33, true, "copy planar 8-bit");
    expect_close(run_case(copy, 45, 33, 10, GpuKernel::Auto, 3, 1, 0, 0, true), 45 * 33, true, "copy planar 10-bit");
    expect_close(run_case(copy, 45, 33, 10, GpuKernel::Auto, 4, 1, 0, 6, true), 45 * 33, true, "copy p010 luma");
    PlaneOp fill;
    fill.kind = OpKind::Fill;
    expect_close(run_case(fill, 45, 33, 8, GpuKernel::Auto, 1), 45 * 33, true, "fill");
}

// Every row of the dispatch table, forced by name: the first candidate operation and layout the
// row takes, on planes from 1x1 to past one block, every border, against the reference. No row is
// left unreachable, and every row computes the same function as the reference.
struct Candidate {
    PlaneOp op;
    int depth, step, shift;
    bool aligned;
    std::string what;
};

std::vector<Candidate> row_candidates() {
    std::mt19937 rng(67);
    std::vector<PlaneOp> ops;
    PlaneOp copy, fill;
    copy.kind = OpKind::Copy;
    fill.kind = OpKind::Fill;
    ops.push_back(copy);
    ops.push_back(fill);
    for (const char* spec : {"sobel", "box=radius=4", "gaussian=sigma=2:size=9", "convolution=m=1 2 3 4 5 6 7 8 9:bias=3",
                             "convolution=m=0.1 0.25 -0.3 0.5 1.5 0.5 -0.3 0.25 0.1",
                             "convolution=m=1 -2 3 -4 5 -6 7 -8 9 -10 11 -12 13 -14 15 -16 17 -18 19 -20 21 -22 23 -24 25:rdiv=0.01:bias=128"})
        ops.push_back(build_chain(spec)[0].ops[0]);
    ops.push_back(random_dense(7, 20, 1.0f / 300, 128, rng));
    ops.push_back(random_dense(13, 9, 1.0f / 500, 128, rng));
    PlaneOp frac = random_dense(9, 9, 1.0f / 80, 64, rng);
    frac.conv.k[3] = 0.5;
    finalize_convolve(frac.conv);
    ops.push_back(frac);
    std::vector<Candidate> c;
    // Layouts: 8-bit aligned rows, 8-bit odd pitch, 10-bit aligned, nv12's interleaved chroma.
    const std::tuple<int, int, int, bool, const char*> layouts[] = {
        {8, 1, 0, true, "8-bit aligned"}, {8, 1, 0, false, "8-bit"}, {10, 1, 0, true, "10-bit"}, {8, 2, 0, true, "8-bit interleaved"}};
    for (const PlaneOp& op : ops)
        for (const auto& [depth, step, shift, aligned, name] : layouts)
            c.push_back({op, depth, step, shift, aligned, name});
    return c;
}

class DispatchRow : public ::testing::TestWithParam<int> {};

TEST_P(DispatchRow, ForcedByNameMatchesReference) {
    SKIP_WITHOUT_GPU();
    const cuda::Variant& row = cuda::dispatch_table()[GetParam()];
    KernelChoice choice;
    ASSERT_TRUE(parse_kernel_choice(row.name, &choice)) << row.name;
    // A row named like its family (fft, naive, constant) is reached through the family: the only row in it.
    if (choice.row >= 0) {
        ASSERT_EQ(choice.row, GetParam());
    }
    const Size sizes[] = {{1, 1}, {2, 2}, {19, 1}, {37, 29}, {333, 71}};
    int tested = 0;
    for (const Candidate& cand : row_candidates()) {
        const TestPlane probe(64, 64, cand.depth, cand.step, cand.step - 1, cand.shift, cand.aligned);
        const PlaneView v = device_like(probe);
        if (!row.takes(cand.op, cuda::Launch{v, v, Border::Mirror, nullptr})) continue;
        for (const Size s : sizes)
            for (Border b : kBorders) {
                PlaneOp op = cand.op;
                op.border = b;
                const Outcome o = run_choice(op, s.w, s.h, cand.depth, choice, 71u + s.w * 3 + s.h, cand.step, cand.step - 1, cand.shift,
                                             cand.aligned);
                const std::string what = std::string(row.name) + " on " + cand.what + " " + std::to_string(s.w) + "x" +
                                         std::to_string(s.h) + " " + border_name(b);
                EXPECT_EQ(o.ran, row.name) << what;
                if (row.family == cuda::Family::Fft) expect_within_one(o, what);
                else expect_close(o, static_cast<long>(s.w) * s.h, false, what);
                ++tested;
            }
        if (tested >= 3 * 5 * 2) break;  // two candidates are enough: the variant tests go further
    }
    EXPECT_GT(tested, 0) << row.name << ": no candidate operation and layout is taken by this row";
}

INSTANTIATE_TEST_SUITE_P(Table, DispatchRow, ::testing::Range(0, static_cast<int>(cuda::dispatch_table().size())),
                         [](const ::testing::TestParamInfo<int>& info) {
                             std::string n = cuda::dispatch_table()[info.param].name;
                             for (char& ch : n)
                                 if (ch == '-') ch = '_';
                             return n;
                         });

// What auto reports is the row that ran, and the table's first rows win where they take the plane.
TEST(Gpu, AutoReportsTheRowThatRan) {
    SKIP_WITHOUT_GPU();
    const PlaneOp sobel = build_chain("sobel")[0].ops[0];
    EXPECT_EQ(run_case(sobel, 1921, 1081, 8, GpuKernel::Auto, 1, 1, 0, 0, true).ran, "gradient-strip16");
    EXPECT_EQ(run_case(sobel, 961, 541, 8, GpuKernel::Auto, 2, 2, 1, 0, true).ran, "gradient-tile");  // nv12 chroma
    EXPECT_EQ(run_case(build_chain("box=radius=31")[0].ops[0], 640, 360, 8, GpuKernel::Auto, 3, 1, 0, 0, true).ran, "box-staged");
    EXPECT_EQ(run_case(build_chain("gaussian=sigma=3.2")[0].ops[0], 640, 360, 10, GpuKernel::Auto, 4, 1, 0, 0, true).ran,
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
}  // namespace vf
