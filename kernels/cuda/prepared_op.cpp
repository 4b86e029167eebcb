#include "kernels/cuda/prepared_op.hpp"

#include <algorithm>
#include <optional>
#include <vector>

#include "common/error.hpp"
#include "kernels/cuda/dispatch_table.hpp"

namespace vf::cuda {
namespace {

int alignment_of(const void* p) {
    const uintptr_t a = reinterpret_cast<uintptr_t>(p);
    int align = 1;
    while (align < 16 && a % (2 * static_cast<uintptr_t>(align)) == 0) align *= 2;
    return align;
}

// Two planes of a shape in device memory, zeroed (initialised: the timing launches read them).
struct ScratchPlanes {
    DeviceBuffer src, dst;
    PlaneView src_view, dst_view;
    ScratchPlanes(const PlaneShape& s, const PlaneShape& d, cudaStream_t stream)
        : src(s.extent() + 16), dst(d.extent() + 16) {
        VF_CUDA_CHECK(cudaMemsetAsync(src.data(), 0, src.size(), stream));
        VF_CUDA_CHECK(cudaMemsetAsync(dst.data(), 0, dst.size(), stream));
        src_view = s.over(src.data());
        dst_view = d.over(dst.data());
    }
};

}  // namespace

PlaneShape PlaneShape::of(const PlaneView& v) {
    PlaneShape s;
    s.width = v.width;
    s.height = v.height;
    s.pitch = v.pitch;
    s.step = v.step;
    s.bytes_per_sample = v.bytes_per_sample;
    s.depth = v.depth;
    s.shift = v.shift;
    s.align = alignment_of(v.data);
    return s;
}

bool PlaneShape::operator==(const PlaneShape& o) const {
    return width == o.width && height == o.height && pitch == o.pitch && step == o.step && bytes_per_sample == o.bytes_per_sample &&
           depth == o.depth && shift == o.shift && align == o.align;
}

bool PlaneShape::fits(const PlaneView& v) const {
    return v.width == width && v.height == height && v.pitch == pitch && v.step == step && v.bytes_per_sample == bytes_per_sample &&
           v.depth == depth && v.shift == shift && alignment_of(v.data) >= align;
}

PlaneView PlaneShape::over(uint8_t* base) const {
    PlaneView v;
    v.data = base + (align % 16);  // base is 256-byte aligned: this has exactly `align`
    v.pitch = pitch;
    v.width = width;
    v.height = height;
    v.step = step;
    v.bytes_per_sample = bytes_per_sample;
    v.depth = depth;
    v.shift = shift;
    return v;
}

size_t PlaneShape::extent() const {
    if (width <= 0 || height <= 0) return 0;
    return static_cast<size_t>(align % 16) + static_cast<size_t>(height - 1) * static_cast<size_t>(pitch) +
           static_cast<size_t>(width - 1) * step * bytes_per_sample + bytes_per_sample;
}

uint64_t PlaneShape::hash() const {
    uint64_t h = 1469598103934665603ull;
    for (const int64_t v : {int64_t{width}, int64_t{height}, int64_t{pitch}, int64_t{step}, int64_t{bytes_per_sample},
                            int64_t{depth}, int64_t{shift}, int64_t{align}})
        h = (h ^ static_cast<uint64_t>(v)) * 1099511628211ull;
    return h;
}

PreparedOp::PreparedOp(std::shared_ptr<DeviceContext> ctx, const PlaneOp& op, const PlaneShape& src, const PlaneShape& dst,
                       const KernelChoice& choice)
    : ctx_(std::move(ctx)), op_(op), src_(src), dst_(dst) {
    if (src.width != dst.width || src.height != dst.height)
        throw Error(ErrorCategory::Internal, "a plane operation prepared for planes of two sizes");
    DeviceGuard guard(ctx_->device());
    // The integer finish, worked out once for every row that asks (it checks every possible sum).
    std::optional<FixedFinish> finish;
    if (op.kind == OpKind::Convolve) finish = byte_tap_finish(op.conv);
    Launch shape{src.over(reinterpret_cast<uint8_t*>(uintptr_t{1} << 20)), dst.over(reinterpret_cast<uint8_t*>(uintptr_t{1} << 20)),
                 op.border, nullptr, nullptr, finish ? &*finish : nullptr};
    // auto's timing among rows of identical output: each prepared and launched once untimed (first
    // launch costs) and once timed, on scratch planes of these shapes.
    std::vector<RowStatePtr> timed_states;
    const FastestOf fastest = [&](const std::vector<const Variant*>& rows) -> size_t {
        Stream stream;
        Workspace workspace(stream.get());
        ScratchPlanes planes(src, dst, stream.get());
        Launch l = shape;
        l.src = planes.src_view;
        l.dst = planes.dst_view;
        l.stream = stream.get();
        l.workspace = &workspace;
        size_t best = 0;
        float best_ms = 0;
        for (size_t i = 0; i < rows.size(); ++i) {
            timed_states.push_back(rows[i]->prepare ? rows[i]->prepare(op, shape, *ctx_) : nullptr);
            Event a, b;
            rows[i]->launch(op, timed_states.back().get(), l);
            a.record(l.stream);
            rows[i]->launch(op, timed_states.back().get(), l);
            b.record(l.stream);
            const float ms = b.since(a);
            if (i == 0 || ms < best_ms) best_ms = ms, best = i;
        }
        // The winner's state is kept; the others go with this vector.
        std::swap(timed_states.front(), timed_states[best]);
        timed_states.resize(1);
        return best;
    };
    row_ = &choose_row(op, shape, choice, fastest);
    if (!timed_states.empty())
        state_ = std::move(timed_states.front());
    else if (row_->prepare)
        state_ = row_->prepare(op, shape, *ctx_);
    ++ctx_->operations_;
    ctx_->device_bytes_ += device_bytes();
}

PreparedOp::~PreparedOp() {
    ctx_->device_bytes_ -= device_bytes();
    --ctx_->operations_;
    // Its buffers are freed on its own device, whatever thread lets it go.
    DeviceGuard guard(ctx_->device());
    state_.reset();
}

const char* PreparedOp::row() const { return row_->name; }

int64_t PreparedOp::device_bytes() const { return state_ ? state_->device_bytes : 0; }

void PreparedOp::check_fits(const PlaneView& src, const PlaneView& dst) const {
    if (!src_.fits(src) || !dst_.fits(dst))
        throw Error(ErrorCategory::Internal, std::string("the prepared ") + row_->name +
                                                 " operation was launched on planes of another layout than it was prepared for");
}

void PreparedOp::launch(const PlaneView& src, const PlaneView& dst, cudaStream_t stream, Workspace& workspace) const {
    if (src.width <= 0 || src.height <= 0) return;
    check_fits(src, dst);
    row_->launch(op_, state_.get(), Launch{src, dst, op_.border, stream, &workspace, nullptr});
}

void PreparedOp::launch_batch(const PlaneView* src, const PlaneView* dst, int count, cudaStream_t stream,
                              Workspace& workspace) const {
    if (count <= 0 || src[0].width <= 0 || src[0].height <= 0) return;
    for (int i = 0; i < count; ++i) check_fits(src[i], dst[i]);
    // One plane takes the plain launch: a batched kernel's parameter block (a table of plane
    // pairs) costs the host more to launch than the one plane's few bytes.
    if (row_->launch_batch && count > 1) {
        row_->launch_batch(op_, state_.get(), BatchLaunch{src, dst, count, op_.border, stream, &workspace});
        return;
    }
    for (int i = 0; i < count; ++i) row_->launch(op_, state_.get(), Launch{src[i], dst[i], op_.border, stream, &workspace, nullptr});
}

}  // namespace vf::cuda
