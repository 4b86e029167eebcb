// The luma thumbnail kernel: one thread a cell, summing the cell's samples (at most 24 x 24 for a
// plane up to 7680 wide) in 32-bit integers and rounding half up, as the CPU reference does.
#include "kernels/cuda/luma_thumbnail.hpp"

#include "common/error.hpp"
#include "kernels/cuda/cuda_check.hpp"

namespace vf::cuda {
namespace {

struct ThumbnailArgs {
    const uint8_t* src;
    long long pitch;
    int width, height, step, shift, to_8bit, factor;
    uint8_t* dst;
    int dst_width, dst_height;
};

template <typename T>
__global__ void luma_thumbnail_kernel(ThumbnailArgs a) {
    const int tx = blockIdx.x * blockDim.x + threadIdx.x, ty = blockIdx.y * blockDim.y + threadIdx.y;
    if (tx >= a.dst_width || ty >= a.dst_height) return;
    const int x0 = tx * a.factor, y0 = ty * a.factor;
    const int x1 = min(x0 + a.factor, a.width), y1 = min(y0 + a.factor, a.height);
    unsigned sum = 0;
    for (int y = y0; y < y1; ++y) {
        const T* row = reinterpret_cast<const T*>(a.src + y * a.pitch);
        for (int x = x0; x < x1; ++x) sum += (static_cast<unsigned>(row[x * a.step]) >> a.shift) >> a.to_8bit;
    }
    const unsigned count = static_cast<unsigned>((x1 - x0) * (y1 - y0));
    a.dst[ty * a.dst_width + tx] = static_cast<uint8_t>((sum + count / 2) / count);
}

}  // namespace

GpuLumaThumbnail::GpuLumaThumbnail(DeviceContext& ctx, int width, int height)
    : device_id_(ctx.device()), plane_width_(width), plane_height_(height), shape_(thumbnail_shape(width, height)) {
    DeviceGuard on(device_id_);
    const size_t bytes = static_cast<size_t>(shape_.width) * shape_.height;
    device_ = DeviceBuffer(bytes);
    host_ = PinnedHostBuffer(bytes);
    done_ = std::make_unique<Event>(cudaEventDisableTiming | cudaEventBlockingSync);
}

void GpuLumaThumbnail::make(const PlaneView& luma, cudaStream_t stream) {
    if (luma.width != plane_width_ || luma.height != plane_height_)
        fail(ErrorCategory::Internal, "GpuLumaThumbnail::make: a plane of another size than the thumbnail was made for");
    DeviceGuard on(device_id_);
    ThumbnailArgs a;
    a.src = luma.data;
    a.pitch = static_cast<long long>(luma.pitch);
    a.width = luma.width;
    a.height = luma.height;
    a.step = luma.step;
    a.shift = luma.shift;
    a.to_8bit = luma.depth > 8 ? luma.depth - 8 : 0;
    a.factor = shape_.factor;
    a.dst = device_.data();
    a.dst_width = shape_.width;
    a.dst_height = shape_.height;
    const dim3 block(32, 8), grid((shape_.width + 31) / 32, (shape_.height + 7) / 8);
    if (luma.bytes_per_sample == 1) luma_thumbnail_kernel<uint8_t><<<grid, block, 0, stream>>>(a);
    else luma_thumbnail_kernel<uint16_t><<<grid, block, 0, stream>>>(a);
    VF_CUDA_CHECK_LAUNCH("luma_thumbnail_kernel");
    VF_CUDA_CHECK(cudaMemcpyAsync(host_.data(), device_.data(), device_.size(), cudaMemcpyDeviceToHost, stream));
    done_->record(stream);
}

bool GpuLumaThumbnail::ready() const {
    const cudaError_t err = cudaEventQuery(done_->get());
    if (err == cudaErrorNotReady) return false;
    VF_CUDA_CHECK(err);
    return true;
}

void GpuLumaThumbnail::wait() const { VF_CUDA_CHECK(cudaEventSynchronize(done_->get())); }

LumaThumbnail GpuLumaThumbnail::copy() const {
    LumaThumbnail t;
    t.width = shape_.width;
    t.height = shape_.height;
    t.samples.assign(host_.data(), host_.data() + host_.size());
    return t;
}

}  // namespace vf::cuda
