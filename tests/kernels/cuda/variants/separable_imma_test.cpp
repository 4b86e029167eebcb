// separable-imma: the dispatch table's row, forced by name against the reference (gpu_check.hpp), and its own cases.
// How it works: kernels/cuda/variants/separable_imma.cu.
#include <gtest/gtest.h>

#include <random>

#include "support/gpu_check.hpp"
#include "support/parallel_reference.hpp"
#include "kernels/cuda/device_buffer.hpp"
#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/prepared_op.hpp"
#include "kernels/cpu_backend.hpp"

namespace vf::gpu_test {
namespace {

TEST(SeparableImma, ForcedByNameMatchesReference) {
    SKIP_WITHOUT_GPU();
    check_row("separable-imma", Accuracy::WithinOneRarely);
}

// The separable kernel with its row pass on the integer products (separable_imma.cu) on an
// 8-bit plane with aligned rows, against the FP32 separable kernel on the same device input byte
// for byte (same column pass, same order of sums: any difference is a row-pass fault), and
// against the CPU reference within the separable rows' documented tolerance (within 1, in at most
// 1 sample of 1000: the FP32 column pass rounds a few Gaussian sums the other way). Both outputs
// are poisoned first.
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
    // Both rows forced by name, each prepared for these planes.
    const PlaneView sv = src.view_at(dsrc.data()), ov = out.view_at(dout.data()), fv = f32.view_at(df32.data());
    int device = 0;
    VF_CUDA_CHECK(cudaGetDevice(&device));
    const auto ctx = cuda::DeviceContext::create(device);
    cuda::Workspace workspace(stream.get());
    KernelChoice imma_row, f32_row;
    if (!parse_kernel_choice("separable-imma", &imma_row) || !parse_kernel_choice("separable-f32", &f32_row))
        throw Error(ErrorCategory::Internal, "no separable rows");
    r.taken = cuda::separable_imma_eligible(op.conv, sv, ov);
    std::unique_ptr<cuda::PreparedOp> with_imma;  // alive until the stream is done with them
    if (r.taken) {
        with_imma = std::make_unique<cuda::PreparedOp>(ctx, op, cuda::PlaneShape::of(sv), cuda::PlaneShape::of(ov), imma_row);
        with_imma->launch(sv, ov, stream.get(), workspace);
    }
    const cuda::PreparedOp with_f32(ctx, op, cuda::PlaneShape::of(sv), cuda::PlaneShape::of(fv), f32_row);
    with_f32.launch(sv, fv, stream.get(), workspace);
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

class SeparableImma : public ::testing::TestWithParam<int> {};

// One kernel a test: on planes smaller than one 128 x 64 block, at and over block edges, every border.
TEST_P(SeparableImma, MatchesFp32AndReference) {
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

INSTANTIATE_TEST_SUITE_P(Kernels, SeparableImma,
                         ::testing::Range(0, static_cast<int>(separable_integer_ops().size())));

// The separable kernel with its row pass on the integer products: 1937x1091 through the path and
// through `auto`, and what it refuses.
TEST(SeparableImma, LargePlaneAndRefusals) {
    SKIP_WITHOUT_GPU();
    const TestPlane probe(64, 64, 8, 1, 0, 0, true);
    PlaneOp g = build_chain("gaussian=sigma=3.2")[0].ops[0];
    for (Border b : kBorders) {
        g.border = b;
        const SeparablePair r = run_separable_pair(g, 1937, 1091, 9);
        EXPECT_EQ(r.vs_f32, 0) << "gaussian 1937x1091 " << border_name(b);
        expect_close(r.vs_reference, 1937L * 1091, false, std::string("gaussian 1937x1091 ") + border_name(b));
    }
    expect_close(run_case(g, 1937, 1091, 8, KernelChoice{}, 10, 1, 0, 0, true), 1937L * 1091, false, "gaussian auto 1937x1091");
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

}  // namespace
}  // namespace vf::gpu_test
