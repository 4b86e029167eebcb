#include "support/gpu_check.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <tuple>

#include "kernels/cpu_backend.hpp"
#include "kernels/cuda/device_buffer.hpp"
#include "kernels/cuda/prepared_op.hpp"
#include "support/parallel_reference.hpp"

namespace vf::gpu_test {

bool gpu_present_for_this_process(std::string* why) {
    static std::string reason;
    static const bool present = cuda_device_available(&reason);
    if (why) *why = reason;
    return present;
}

namespace {

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

}  // namespace

// Runs op on the GPU with `kernel` (auto, a family or a row) and compares with the reference.
Outcome run_choice(const PlaneOp& op, int w, int h, int depth, KernelChoice kernel, unsigned seed, int step, int offset,
                   int shift, bool aligned) {
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
    // Prepared for these planes (its row chosen, its tables made), then launched, as the GPU stage does.
    int device = 0;
    VF_CUDA_CHECK(cudaGetDevice(&device));
    const PlaneView sv = src.view_at(dsrc.data()), dv = out.view_at(ddst.data());
    const cuda::PreparedOp prepared(cuda::DeviceContext::create(device), op, cuda::PlaneShape::of(sv), cuda::PlaneShape::of(dv), kernel);
    cuda::Workspace workspace(stream.get());
    prepared.launch(sv, dv, stream.get(), workspace);
    const char* ran = prepared.row();
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

Outcome run_case(const PlaneOp& op, int w, int h, int depth, const KernelChoice& kernel, unsigned seed, int step, int offset,
                 int shift, bool aligned) {
    return run_choice(op, w, h, depth, kernel, seed, step, offset, shift, aligned);
}

Outcome run_row(const char* name, const PlaneOp& op, int w, int h, int depth, unsigned seed, int step, int offset, int shift,
                bool aligned) {
    KernelChoice choice;
    if (!parse_kernel_choice(name, &choice)) throw Error(ErrorCategory::Internal, std::string("no row named ") + name);
    return run_choice(op, w, h, depth, choice, seed, step, offset, shift, aligned);
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

void expect_exact(const Outcome& o, const std::string& what) {
    EXPECT_TRUE(o.padding_ok) << what << ": wrote outside the plane";
    EXPECT_EQ(o.differ, 0) << what << ": " << o.differ << " samples differ, by up to " << o.max_abs;
}

bool fp32_sums_exact(const PlaneOp& op, int depth) {
    if (op.kind != OpKind::Convolve) return true;
    if (!op.conv.integer) return false;
    double taps = 0;
    for (double k : op.conv.k) taps += std::abs(k);
    return taps * ((1 << depth) - 1) < double(1 << 24);
}

Accuracy family_accuracy(KernelFamily family) {
    switch (family) {
    case KernelFamily::Copy:
    case KernelFamily::Fill:
    case KernelFamily::Gradient:
    case KernelFamily::Box:
    case KernelFamily::Ffmpeg:
    case KernelFamily::Tensor: return Accuracy::Exact;
    case KernelFamily::Separable: return Accuracy::WithinOneRarely;
    case KernelFamily::Fft: return Accuracy::WithinOne;
    case KernelFamily::Direct:
    case KernelFamily::Naive:
    case KernelFamily::Constant: return Accuracy::ExactWhereFp32SumsAre;
    }
    return Accuracy::WithinOne;
}

Accuracy auto_accuracy(const PlaneOp& op) {
    if (op.kind == OpKind::Convolve && op.conv.separable() && !cuda::is_box(op.conv)) return Accuracy::WithinOneRarely;
    return Accuracy::ExactWhereFp32SumsAre;
}

void expect_accuracy(const Outcome& o, Accuracy accuracy, const PlaneOp& op, int depth, long pixels, const std::string& what) {
    switch (accuracy) {
    case Accuracy::Exact: expect_exact(o, what); return;
    case Accuracy::ExactWhereFp32SumsAre:
        if (fp32_sums_exact(op, depth)) expect_exact(o, what);
        else expect_close(o, pixels, false, what + " (sums not exact in FP32)");
        return;
    case Accuracy::WithinOneRarely: expect_close(o, pixels, false, what); return;
    case Accuracy::WithinOne: expect_within_one(o, what); return;
    }
}

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

std::string shape_name(const ::testing::TestParamInfo<TapShape>& info) {
    return std::to_string(info.param.kw) + "x" + std::to_string(info.param.kh);
}

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

namespace {

struct Candidate {
    PlaneOp op;
    int depth, step, shift;
    bool aligned;
    std::string what;
};

std::vector<Candidate> row_candidates() {
    std::mt19937 rng(67);
    std::vector<PlaneOp> ops = {op_of_kind(OpKind::Copy), op_of_kind(OpKind::Fill)};
    for (const char* spec : {"sobel", "kirsch=scale=0.25:delta=3", "box=radius=4", "gaussian=sigma=2:size=9", "convolution=m=1 2 3 4 5 6 7 8 9:bias=3",
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

}  // namespace

void check_row(const char* name, Accuracy accuracy) {
    const auto& table = cuda::dispatch_table();
    int index = -1;
    for (size_t i = 0; i < table.size(); ++i)
        if (std::string(table[i].name) == name) index = static_cast<int>(i);
    ASSERT_GE(index, 0) << name << " is not a row of the dispatch table";
    const cuda::Variant& row = table[index];
    KernelChoice choice;
    ASSERT_TRUE(parse_kernel_choice(row.name, &choice)) << row.name;
    // A row named like its family (fft, naive, constant) is reached through the family: the only row in it.
    if (choice.row >= 0) {
        ASSERT_EQ(choice.row, index);
    }
    const Size sizes[] = {{1, 1}, {2, 2}, {19, 1}, {37, 29}, {333, 71}};
    int tested = 0;
    for (const Candidate& cand : row_candidates()) {
        const TestPlane probe(64, 64, cand.depth, cand.step, cand.step - 1, cand.shift, cand.aligned);
        const PlaneView v = device_like(probe);
        if (!cuda::row_takes(row, cand.op, v, v)) continue;
        for (const Size s : sizes)
            for (Border b : kBorders) {
                PlaneOp op = cand.op;
                op.border = b;
                const Outcome o = run_choice(op, s.w, s.h, cand.depth, choice, 71u + s.w * 3 + s.h, cand.step, cand.step - 1, cand.shift,
                                             cand.aligned);
                const std::string what = std::string(row.name) + " on " + cand.what + " " + std::to_string(s.w) + "x" +
                                         std::to_string(s.h) + " " + border_name(b);
                EXPECT_EQ(o.ran, row.name) << what;
                expect_accuracy(o, accuracy, op, cand.depth, static_cast<long>(s.w) * s.h, what);
                ++tested;
            }
        if (tested >= 3 * 5 * 2) break;  // two candidates are enough: the variant tests go further
    }
    EXPECT_GT(tested, 0) << row.name << ": no candidate operation and layout is taken by this row";
}

void check_row_cases(const char* name, Accuracy accuracy, PlaneOp op, int depth, int step, bool aligned, unsigned seed) {
    const auto& table = cuda::dispatch_table();
    const auto row = std::find_if(table.begin(), table.end(), [&](const cuda::Variant& v) { return std::string(v.name) == name; });
    ASSERT_NE(row, table.end()) << name << " is not a row of the dispatch table";
    const TestPlane probe(64, 64, depth, step, step - 1, 0, aligned);
    ASSERT_TRUE(cuda::row_takes(*row, op, device_like(probe), device_like(probe)))
        << name << " does not take this operation on " << depth << "-bit planes, step " << step << (aligned ? ", aligned" : "");
    std::mt19937 rng(seed);
    for (const Size s : {Size{5, 3}, Size{67, 45}, Size{641, 359}})
        for (Border b : kBorders) {
            op.border = b;
            const Outcome o = run_row(name, op, s.w, s.h, depth, rng(), step, step - 1, 0, aligned);
            const std::string shape = op.kind == OpKind::Convolve ? std::to_string(op.conv.kw) + "x" + std::to_string(op.conv.kh) : "gradient";
            const std::string what = std::string(name) + " " + shape + " on " +
                                     std::to_string(s.w) + "x" + std::to_string(s.h) + " " + std::to_string(depth) + "-bit " +
                                     border_name(b);
            EXPECT_EQ(o.ran, name) << what;
            expect_accuracy(o, accuracy, op, depth, static_cast<long>(s.w) * s.h, what);
        }
}

}  // namespace vf::gpu_test
