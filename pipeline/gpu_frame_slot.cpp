#include "pipeline/gpu_frame_slot.hpp"

extern "C" {
#include <libavutil/imgutils.h>
}

#include "kernels/cuda/cuda_check.hpp"
#include "media/av_helpers.hpp"

namespace vf {

void GpuFrameFilter::Slot::copy_channel(const PlaneView& src, const PlaneView& dst, cudaStream_t st) {
    const size_t row = static_cast<size_t>(src.width) * src.step * src.bytes_per_sample;
    VF_CUDA_CHECK(cudaMemcpy2DAsync(dst.data, dst.pitch, src.data, src.pitch, row, src.height, cudaMemcpyDeviceToDevice, st));
}

void GpuFrameFilter::Slot::filter() {
    cudaStream_t st = stream.get();
    for (size_t f = 0; f < steps.size(); ++f)
        for (size_t c = 0; c < steps[f].src.size(); ++c) {
            if (!applies_filter(f)) {
                copy_channel(steps[f].src[c], steps[f].dst[c], st);
                continue;
            }
            const cuda::PreparedOp& op = prepared->op(f, c);
            op.launch(steps[f].src[c], steps[f].dst[c], st, workspace);
            ran[f * kMaxChannels + c] = op.row();
        }
    launch_frames = 1;
}

void GpuFrameFilter::Slot::download() {
    cudaStream_t st = stream.get();
    for (int p = 0; p < layout.planes; ++p)
        VF_CUDA_CHECK(cudaMemcpy2DAsync(out->data[p], out->linesize[p], result[p], result_linesize[p], layout.row_bytes[p], layout.rows[p],
                                        cudaMemcpyDefault, st));
    done.record(st);
}

void GpuFrameFilter::Slot::allocate(const GpuFrameLayout& l) {
    layout = GpuFrameLayout{};  // unusable until the linesizes are known
    VF_AV_CHECK(av_image_fill_linesizes(linesize, l.format, FFALIGN(l.width, 64)), ErrorCategory::Internal, "device image layout");
    constexpr size_t kPlaneAlign = 256;  // each plane starts where a fresh allocation would
    size_t bytes = 0;
    for (int p = 0; p < l.planes; ++p) {
        offset[p] = bytes;
        bytes += FFALIGN(static_cast<size_t>(linesize[p]) * l.rows[p], kPlaneAlign);
    }
    image_bytes = bytes;
    for (auto& img : image)
        if (img.size() < bytes) img = cuda::DeviceBuffer();
    layout = l;
}

void GpuFrameFilter::Slot::ensure_image(int which) {
    if (layout.planes == 0 || image[which].data()) return;
    image[which] = cuda::DeviceBuffer(image_bytes);
}

std::vector<PlaneView> GpuFrameFilter::Slot::device_views(int which) {
    ensure_image(which);
    uint8_t* data[4] = {nullptr, nullptr, nullptr, nullptr};
    for (int p = 0; p < layout.planes; ++p) data[p] = plane(which, p);
    return channel_views(layout.format, layout.width, layout.height, data, linesize);
}

}  // namespace vf
