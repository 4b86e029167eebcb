#include "pipeline/gpu_frame_filter.hpp"

#include <deque>

extern "C" {
#include <libavutil/imgutils.h>
}

#include "decode/hw_decode.hpp"
#include "kernels/cuda/device_buffer.hpp"
#include "media/host_memory.hpp"

namespace vf {

namespace {

// The planes of an image of one size and layout: where each starts and its pitch.
struct Layout {
    AVPixelFormat format = AV_PIX_FMT_NONE;
    int width = 0, height = 0, planes = 0;
    int rows[4] = {0, 0, 0, 0};
    size_t row_bytes[4] = {0, 0, 0, 0};

    bool matches(AVPixelFormat f, int w, int h) const { return f == format && w == width && h == height; }
    void set(AVPixelFormat f, int w, int h) {
        format = f;
        width = w;
        height = h;
        const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(f);
        planes = av_pix_fmt_count_planes(f);
        for (int p = 0; p < planes; ++p) {
            rows[p] = (p == 1 || p == 2) ? AV_CEIL_RSHIFT(h, d->log2_chroma_h) : h;
            row_bytes[p] = static_cast<size_t>(av_image_get_linesize(f, w, p));
        }
    }
};

}  // namespace

// One stream's worth of state: its device images and the frame it is working on.
struct GpuFrameFilter::Slot {
    cuda::Stream stream;
    cuda::Event start, uploaded, filtered, done{cudaEventBlockingSync};
    cuda::Event hw_ready{cudaEventDisableTiming};
    Layout layout;
    int linesize[4] = {0, 0, 0, 0};
    cuda::DeviceBuffer image[2][4];  // ping-pong between the filters of the chain
    AvFramePtr in, out;              // held until the frame is finished
    bool staged = false;             // the upload came from pageable memory

    // Sets the size and layout; each image is allocated the first time it is used (NVDEC frames
    // are read in place, so a one-filter chain on them never needs the second).
    void allocate(const Layout& l) {
        layout = Layout{};  // unusable until the linesizes are known
        VF_AV_CHECK(av_image_fill_linesizes(linesize, l.format, FFALIGN(l.width, 64)), ErrorCategory::Internal,
                    "device image layout");
        for (auto& img : image)
            for (auto& plane : img) plane = cuda::DeviceBuffer();
        layout = l;
    }
    void ensure_image(int which) {
        if (layout.planes == 0 || image[which][0].data()) return;
        cuda::DeviceBuffer planes[4];  // all or none: an allocation may fail (out of memory)
        for (int p = 0; p < layout.planes; ++p) planes[p] = cuda::DeviceBuffer(static_cast<size_t>(linesize[p]) * layout.rows[p]);
        for (int p = 0; p < layout.planes; ++p) image[which][p] = std::move(planes[p]);
    }
    std::vector<PlaneView> device_views(int which) {
        ensure_image(which);
        uint8_t* data[4] = {nullptr, nullptr, nullptr, nullptr};
        for (int p = 0; p < layout.planes; ++p) data[p] = image[which][p].data();
        return channel_views(layout.format, layout.width, layout.height, data, linesize);
    }
};

struct GpuFrameFilter::Impl {
    int device = 0;
    void make_current() const {
        int now = -1;
        if (cudaGetDevice(&now) != cudaSuccess || now != device) VF_CUDA_CHECK(cudaSetDevice(device));
    }
    std::vector<FilterPlan> chain;
    KernelChoice kernel;
    CudaBackend backend;
    std::vector<const char*> ran;  // the row that ran, per filter and channel, for the last frame
    std::vector<std::unique_ptr<Slot>> slots;
    int64_t submitted = 0, taken = 0;
    GpuStageTimes times;
};

GpuFrameFilter::GpuFrameFilter(std::vector<FilterPlan> chain, KernelChoice kernel, int streams, int device)
    : impl_(std::make_unique<Impl>()) {
    if (streams < 1 || streams > 16) fail(ErrorCategory::Usage, "--gpu-streams must be in 1..16");
    impl_->device = device;
    impl_->make_current();  // the slots' streams and events belong to this device
    impl_->chain = std::move(chain);
    impl_->kernel = kernel;
    impl_->ran.assign(impl_->chain.size() * kMaxChannels, nullptr);
    for (int i = 0; i < streams; ++i) impl_->slots.push_back(std::make_unique<Slot>());
}

GpuFrameFilter::~GpuFrameFilter() {
    // Frames in flight still reference device and pinned memory: let the GPU finish with them.
    cudaSetDevice(impl_->device);
    for (auto& s : impl_->slots) cudaStreamSynchronize(s->stream.get());
}

int GpuFrameFilter::capacity() const { return static_cast<int>(impl_->slots.size()); }
int GpuFrameFilter::in_flight() const { return static_cast<int>(impl_->submitted - impl_->taken); }
const GpuStageTimes& GpuFrameFilter::times() const { return impl_->times; }

void GpuFrameFilter::submit(AvFramePtr in, FramePool& pool) {
    Impl& m = *impl_;
    m.make_current();
    if (in_flight() >= capacity()) fail(ErrorCategory::Internal, "GPU stage: submit with every stream busy");
    Slot& s = *m.slots[static_cast<size_t>(m.submitted % capacity())];
    const bool on_device = in->format == AV_PIX_FMT_CUDA;
    const AVPixelFormat layout_format = frame_layout_format(in.get());
    if (!s.layout.matches(layout_format, in->width, in->height)) {
        Layout l;
        l.set(layout_format, in->width, in->height);
        s.allocate(l);
    }
    const Layout& l = s.layout;
    cudaStream_t st = s.stream.get();

    s.start.record(st);
    std::vector<PlaneView> current;
    int next = 0;  // the device image the next filter writes
    if (on_device) {
        // NVDEC maps the frame on CUDA's legacy default stream; order our stream after it.
        VF_CUDA_CHECK(cudaEventRecord(s.hw_ready.get(), nullptr));
        VF_CUDA_CHECK(cudaStreamWaitEvent(st, s.hw_ready.get(), 0));
        current = channel_views(l.format, l.width, l.height, in->data, in->linesize);
        s.staged = false;
    } else {
        s.staged = !is_pinned(in->data[0]);
        s.ensure_image(0);
        for (int p = 0; p < l.planes; ++p)
            VF_CUDA_CHECK(cudaMemcpy2DAsync(s.image[0][p].data(), s.linesize[p], in->data[p], in->linesize[p],
                                            l.row_bytes[p], l.rows[p], cudaMemcpyHostToDevice, st));
        current = s.device_views(0);
        next = 1;
    }
    s.uploaded.record(st);
    for (size_t f = 0; f < m.chain.size(); ++f) {
        const std::vector<PlaneView> dst = s.device_views(next);
        for (size_t c = 0; c < current.size(); ++c)
            m.ran[f * kMaxChannels + c] = m.backend.apply(m.chain[f].ops[c], current[c], dst[c], st, m.kernel);
        current = dst;
        next = 1 - next;
    }
    s.filtered.record(st);
    AvFramePtr out = pool.get();
    VF_AV_CHECK(av_frame_copy_props(out.get(), in.get()), ErrorCategory::Internal, "copying frame properties");
    // `current` holds the result (the input frame itself for an empty chain on device frames).
    uint8_t* src_data[4] = {nullptr, nullptr, nullptr, nullptr};
    int src_linesize[4] = {0, 0, 0, 0};
    if (m.chain.empty() && on_device) {
        for (int p = 0; p < l.planes; ++p) src_data[p] = in->data[p], src_linesize[p] = in->linesize[p];
    } else {
        const int result = 1 - next;
        for (int p = 0; p < l.planes; ++p) src_data[p] = s.image[result][p].data(), src_linesize[p] = s.linesize[p];
    }
    for (int p = 0; p < l.planes; ++p)
        VF_CUDA_CHECK(cudaMemcpy2DAsync(out->data[p], out->linesize[p], src_data[p], src_linesize[p], l.row_bytes[p],
                                        l.rows[p], cudaMemcpyDeviceToHost, st));
    s.done.record(st);
    s.in = std::move(in);
    s.out = std::move(out);
    ++m.submitted;
}

AvFramePtr GpuFrameFilter::take(bool wait) {
    Impl& m = *impl_;
    if (in_flight() == 0) return nullptr;
    m.make_current();
    Slot& s = *m.slots[static_cast<size_t>(m.taken % capacity())];
    if (!wait) {
        const cudaError_t q = cudaEventQuery(s.done.get());
        if (q == cudaErrorNotReady) return nullptr;
        VF_CUDA_CHECK(q);
    }
    const double upload = s.uploaded.since(s.start), kernels = s.filtered.since(s.uploaded), download = s.done.since(s.filtered);
    m.times.upload.add(upload);
    m.times.kernels.add(kernels);
    m.times.download.add(download);
    m.times.total.add(upload + kernels + download);
    ++m.times.frames;
    if (s.staged) ++m.times.staged_uploads;
    s.in.reset();  // back to the decoder's pool (or NVDEC's surfaces)
    ++m.taken;
    return std::move(s.out);
}

std::vector<std::string> GpuFrameFilter::kernel_rows() const {
    static const char* const kChannel[] = {"Y", "U", "V"};
    std::vector<std::string> rows;
    for (size_t f = 0; f < impl_->chain.size(); ++f)
        for (int c = 0; c < kMaxChannels; ++c)
            if (const char* name = impl_->ran[f * kMaxChannels + c])
                rows.push_back(impl_->chain[f].description + " " + kChannel[c] + ": " + name);
    return rows;
}

std::vector<StageSummary> GpuFrameFilter::steps(double wall_s) const {
    std::vector<StageSummary> out;
    const GpuStageTimes& t = impl_->times;
    if (t.frames == 0) return out;
    const std::pair<const char*, const DurationHistogram*> steps[] = {
        {"upload", &t.upload}, {"kernels", &t.kernels}, {"download", &t.download}};
    for (const auto& [name, h] : steps) {
        StageSummary s;
        s.name = name;
        s.gpu = true;
        s.busy_s = h->sum_ms() / 1000;
        s.busy_share = wall_s > 0 ? s.busy_s / wall_s : 0;
        s.ms_per_frame = h->mean();
        s.p99_ms = h->percentile(99);
        out.push_back(s);
    }
    return out;
}

}  // namespace vf
