// Batched launches (PreparedOp::launch_batch, one launch for up to 16 planes of one layout) equal one
// launch a plane exactly: every operation and layout the rows take (batched rows and the others,
// which fall back to one launch a plane), batches of 1 to 21 planes (two launches past 16), odd
// sizes, fresh random data, outputs poisoned first and their padding checked. And a window of
// frames of mixed filters and geometries, grouped as serve would group them, equals each frame
// run alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <random>
#include <tuple>

#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/device_buffer.hpp"
#include "kernels/cuda/prepared_op.hpp"
#include "support/gpu_check.hpp"

namespace vf::gpu_test {
namespace {

struct Layout {
    int depth, step;
    bool aligned;
    const char* name;
};

// One plane on the host and its copies on the GPU.
struct Planes {
    TestPlane src, out;
    std::unique_ptr<cuda::DeviceBuffer> dsrc, ddst;
    Planes(int w, int h, const Layout& l, std::mt19937& rng)
        : src(w, h, l.depth, l.step, 0, 0, l.aligned), out(w, h, l.depth, l.step, 0, 0, l.aligned) {
        src.fill_random(rng);
        dsrc = std::make_unique<cuda::DeviceBuffer>(src.size_bytes());
        ddst = std::make_unique<cuda::DeviceBuffer>(out.size_bytes());
        VF_CUDA_CHECK(cudaMemcpy(dsrc->data(), src.bytes(), src.size_bytes(), cudaMemcpyHostToDevice));
        // From pageable memory cudaMemcpy may return before the data lands, and the kernels run on
        // a non-blocking stream that does not wait for it.
        VF_CUDA_CHECK(cudaDeviceSynchronize());
    }
    PlaneView device_src() const { return src.view_at(dsrc->data()); }
    PlaneView device_dst() const { return out.view_at(ddst->data()); }
    // The output poisoned, on the host and on the GPU.
    void poison() {
        out.poison();
        VF_CUDA_CHECK(cudaMemcpy(ddst->data(), out.bytes(), out.size_bytes(), cudaMemcpyHostToDevice));
        VF_CUDA_CHECK(cudaDeviceSynchronize());  // as above: the poison must land before the kernels run
    }
    void fetch() { VF_CUDA_CHECK(cudaMemcpy(out.bytes(), ddst->data(), out.size_bytes(), cudaMemcpyDeviceToHost)); }
    std::vector<int> samples() const {
        std::vector<int> s;
        const PlaneView v = out.view();
        for (int y = 0; y < v.height; ++y)
            for (int x = 0; x < v.width; ++x) s.push_back(out.at(x, y));
        return s;
    }
};

// op prepared with auto's row for planes laid out as src and dst.
cuda::PreparedOp prepare(const PlaneOp& op, const PlaneView& src, const PlaneView& dst) {
    int device = 0;
    VF_CUDA_CHECK(cudaGetDevice(&device));
    return cuda::PreparedOp(cuda::DeviceContext::create(device), op, cuda::PlaneShape::of(src), cuda::PlaneShape::of(dst), KernelChoice{});
}

// Runs op, prepared for the planes' layout, over every plane in one launch_batch or one launch a
// plane; returns each output's samples (and whether its padding kept the poison) and the row that ran.
std::vector<std::vector<int>> run(const PlaneOp& op, std::vector<std::unique_ptr<Planes>>& planes, bool batched,
                                  std::string* ran) {
    cuda::Stream stream;
    std::vector<PlaneView> src, dst;
    for (auto& p : planes) {
        p->poison();
        src.push_back(p->device_src());
        dst.push_back(p->device_dst());
    }
    cuda::Workspace workspace(stream.get());
    const cuda::PreparedOp prepared = prepare(op, src[0], dst[0]);
    if (batched) {
        prepared.launch_batch(src.data(), dst.data(), static_cast<int>(src.size()), stream.get(), workspace);
    } else {
        for (size_t i = 0; i < src.size(); ++i) prepared.launch(src[i], dst[i], stream.get(), workspace);
    }
    *ran = prepared.row();
    stream.sync();
    std::vector<std::vector<int>> outputs;
    for (auto& p : planes) {
        p->fetch();
        EXPECT_TRUE(p->out.padding_intact()) << (batched ? "batched" : "one a plane") << ": wrote outside the plane";
        outputs.push_back(p->samples());
    }
    return outputs;
}

const cuda::Variant* row_named(const std::string& name) {
    for (const cuda::Variant& v : cuda::dispatch_table())
        if (name == v.name) return &v;
    return nullptr;
}

std::vector<PlaneOp> operations() {
    std::vector<PlaneOp> ops = {op_of_kind(OpKind::Copy), op_of_kind(OpKind::Fill)};
    for (const char* spec : {"sobel", "scharr", "prewitt=scale=2:delta=10",
                             "convolution=m=1 -2 3 -4 5 -6 7 -8 9 -10 11 -12 13 -14 15 -16 17 -18 19 -20 21 -22 23 -24 25:rdiv=0.01:bias=128",
                             "convolution=m=1 2 1 2 4 2 1 2 1:rdiv=0.0625", "gaussian=sigma=2", "kirsch"})
        ops.push_back(build_chain(spec)[0].ops[0]);
    return ops;
}

TEST(BatchedLaunch, EqualsOneLaunchAPlane) {
    SKIP_WITHOUT_GPU();
    const Layout layouts[] = {{8, 1, true, "8-bit aligned"}, {8, 1, false, "8-bit odd pitch"}, {10, 1, true, "10-bit"},
                              {8, 2, true, "8-bit interleaved"}};
    const std::tuple<int, int> sizes[] = {{1920, 1080}, {131, 67}, {17, 9}, {1, 1}};
    std::mt19937 rng(2311);
    std::map<std::string, int> batched_rows;
    for (const PlaneOp& op : operations())
        for (const Layout& layout : layouts)
            for (const auto& [w, h] : sizes)
                for (const int count : {1, 3, 16, 21}) {
                    if (w * h > 100000 && count > 3 && layout.depth != 8) continue;  // large and slow adds nothing here
                    std::vector<std::unique_ptr<Planes>> planes;
                    for (int i = 0; i < count; ++i) planes.push_back(std::make_unique<Planes>(w, h, layout, rng));
                    std::string one_ran, batch_ran;
                    const auto each = run(op, planes, false, &one_ran);
                    const auto batch = run(op, planes, true, &batch_ran);
                    const std::string what = std::string(layout.name) + " " + std::to_string(w) + "x" + std::to_string(h) + " x" +
                                             std::to_string(count) + " kind " + std::to_string(static_cast<int>(op.kind)) +
                                             " (batched: " + batch_ran + ", one a plane: " + one_ran + ")";
                    for (int i = 0; i < count; ++i) ASSERT_EQ(batch[i], each[i]) << what << ": plane " << i << " differs";
                    if (const cuda::Variant* row = row_named(batch_ran); row && row->launch_batch) ++batched_rows[batch_ran];
                }
    // Each batched row actually ran batches (otherwise the equality above proves nothing about it).
    for (const char* row : {"copy", "fill", "gradient-strip16", "strip16-dp4a"})
        EXPECT_GT(batched_rows[row], 0) << row << " never ran a batch";
}

// A window of frames from several streams: different filters and frame sizes mixed, grouped by
// (operation, size) as serve groups them, each group one launch_batch; every frame equals its
// filter run on it alone.
TEST(BatchedLaunch, AWindowOfMixedFiltersAndGeometriesEqualsEachFrameAlone) {
    SKIP_WITHOUT_GPU();
    const std::vector<PlaneOp> ops = operations();
    const Layout aligned{8, 1, true, "8-bit aligned"};
    const std::tuple<int, int> sizes[] = {{1280, 720}, {640, 360}, {333, 201}};
    std::mt19937 rng(77);
    struct Item {
        int op;
        std::unique_ptr<Planes> planes;
    };
    std::vector<Item> window;
    for (int i = 0; i < 40; ++i) {
        const auto [w, h] = sizes[rng() % 3];
        window.push_back({static_cast<int>(rng() % ops.size()), std::make_unique<Planes>(w, h, aligned, rng)});
    }
    // Alone: each frame by itself.
    std::vector<std::vector<int>> alone;
    for (Item& it : window) {
        std::vector<std::unique_ptr<Planes>> one;
        one.push_back(std::move(it.planes));
        std::string ran;
        alone.push_back(run(ops[static_cast<size_t>(it.op)], one, false, &ran)[0]);
        it.planes = std::move(one[0]);
    }
    // Grouped: one batch per (operation, size), all on one stream.
    std::map<std::tuple<int, int, int>, std::vector<size_t>> groups;
    for (size_t i = 0; i < window.size(); ++i) {
        const PlaneView v = window[i].planes->src.view();
        groups[{window[i].op, v.width, v.height}].push_back(i);
    }
    cuda::Stream stream;
    for (Item& it : window) it.planes->poison();
    int launches = 0;
    for (const auto& [key, members] : groups) {
        std::vector<PlaneView> src, dst;
        for (size_t i : members) src.push_back(window[i].planes->device_src()), dst.push_back(window[i].planes->device_dst());
        const cuda::PreparedOp prepared = prepare(ops[static_cast<size_t>(std::get<0>(key))], src[0], dst[0]);
        cuda::Workspace workspace(stream.get());
        prepared.launch_batch(src.data(), dst.data(), static_cast<int>(src.size()), stream.get(), workspace);
        stream.sync();  // before the prepared operation goes
        ++launches;
    }
    stream.sync();
    for (size_t i = 0; i < window.size(); ++i) {
        window[i].planes->fetch();
        EXPECT_TRUE(window[i].planes->out.padding_intact()) << "frame " << i;
        const std::vector<int> got = window[i].planes->samples();
        const PlaneView v = window[i].planes->out.view();
        size_t differ = 0, first = got.size();
        for (size_t k = 0; k < got.size(); ++k)
            if (got[k] != alone[i][k]) differ += 1, first = std::min(first, k);
        ASSERT_EQ(differ, 0u) << "frame " << i << " (operation " << window[i].op << ", " << v.width << "x" << v.height
                              << "): " << differ << " samples differ, the first at x " << first % static_cast<size_t>(v.width)
                              << " y " << first / static_cast<size_t>(v.width) << ": " << got[first] << " batched, "
                              << alone[i][first] << " alone";
    }
    EXPECT_LT(launches, static_cast<int>(window.size())) << "the window was grouped";
}

}  // namespace
}  // namespace vf::gpu_test
