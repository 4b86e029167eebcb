#include "pipeline/gpu_frame_filter.hpp"

extern "C" {
#include <libavutil/imgutils.h>
}

#include "kernels/cuda/device_buffer.hpp"

namespace vf {

struct GpuFrameFilter::Impl {
    std::vector<FilterPlan> chain;
    GpuKernel kernel;
    CudaBackend backend;
    cuda::Stream stream;
    // Two device images of the current format and size, allocated on the first frame.
    AVPixelFormat format = AV_PIX_FMT_NONE;
    int width = 0, height = 0;
    int linesize[4] = {0, 0, 0, 0};
    int rows[4] = {0, 0, 0, 0};
    int planes = 0;
    cuda::DeviceBuffer image[2][4];

    void allocate(const AVFrame* f) {
        format = static_cast<AVPixelFormat>(f->format);
        width = f->width;
        height = f->height;
        VF_AV_CHECK(av_image_fill_linesizes(linesize, format, FFALIGN(width, 64)), ErrorCategory::Internal, "layout");
        const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(format);
        planes = av_pix_fmt_count_planes(format);
        for (int p = 0; p < planes; ++p) {
            rows[p] = (p == 1 || p == 2) ? AV_CEIL_RSHIFT(height, d->log2_chroma_h) : height;
            for (auto& img : image) img[p] = cuda::DeviceBuffer(static_cast<size_t>(linesize[p]) * rows[p]);
        }
    }
    std::vector<PlaneView> views(int which) {
        uint8_t* data[4] = {nullptr, nullptr, nullptr, nullptr};
        for (int p = 0; p < planes; ++p) data[p] = image[which][p].data();
        return channel_views(format, width, height, data, linesize);
    }
};

GpuFrameFilter::GpuFrameFilter(std::vector<FilterPlan> chain, GpuKernel kernel) : impl_(std::make_unique<Impl>()) {
    impl_->chain = std::move(chain);
    impl_->kernel = kernel;
}

GpuFrameFilter::~GpuFrameFilter() = default;

AvFramePtr GpuFrameFilter::process(const AVFrame* in, FramePool& pool) {
    Impl& m = *impl_;
    if (in->format != m.format || in->width != m.width || in->height != m.height) m.allocate(in);
    cudaStream_t s = m.stream.get();
    for (int p = 0; p < m.planes; ++p) {
        const size_t row_bytes = static_cast<size_t>(av_image_get_linesize(m.format, m.width, p));
        VF_CUDA_CHECK(cudaMemcpy2DAsync(m.image[0][p].data(), m.linesize[p], in->data[p], in->linesize[p], row_bytes,
                                        m.rows[p], cudaMemcpyHostToDevice, s));
    }
    int cur = 0;
    for (const FilterPlan& plan : m.chain) {
        const std::vector<PlaneView> src = m.views(cur), dst = m.views(1 - cur);
        for (size_t c = 0; c < src.size(); ++c) m.backend.apply(plan.ops[c], src[c], dst[c], s, m.kernel);
        cur = 1 - cur;
    }
    AvFramePtr out = pool.get();
    VF_AV_CHECK(av_frame_copy_props(out.get(), in), ErrorCategory::Internal, "copying frame properties");
    for (int p = 0; p < m.planes; ++p) {
        const size_t row_bytes = static_cast<size_t>(av_image_get_linesize(m.format, m.width, p));
        VF_CUDA_CHECK(cudaMemcpy2DAsync(out->data[p], out->linesize[p], m.image[cur][p].data(), m.linesize[p], row_bytes,
                                        m.rows[p], cudaMemcpyDeviceToHost, s));
    }
    m.stream.sync();
    return out;
}

}  // namespace vf
