#include "gst/element_engine.hpp"

#include "app/run/run_parts.hpp"
#include "common/error.hpp"
#include "config/filter_registry.hpp"
#include "media/rgb_planes.hpp"

#include "media/host_memory.hpp"

#ifdef VF_HAVE_CUDA
#include "kernels/cuda_backend.hpp"
#include "pipeline/gpu_rgb_repack.hpp"
#endif

namespace vf {

namespace {

bool changes_nothing(const std::vector<FilterPlan>& chain) {
    for (const FilterPlan& p : chain)
        if (!p.is_identity()) return false;
    return true;
}

std::string names_of(const std::vector<FilterPlan>& chain) {
    std::string s;
    for (const FilterPlan& p : chain) s += (s.empty() ? "" : ", ") + p.description;
    return s.empty() ? "identity" : s;
}

// The GPU runtime of this process's vfilter elements: the elements alive share one (their
// device contexts, batch windows and page-locked memory), freed with the last element's engine.
std::shared_ptr<GpuRuntime> shared_element_runtime() {
    static SharedGpuRuntime runtime;
    return runtime.get();
}

}  // namespace

void ElementEngine::check_filter(const FilterChain& compiled, FilterDefaults compat, const KernelChoice& kernel) {
    const std::vector<FilterPlan> chain = plan_chain(compiled.spec(), compat);
    if (const std::string why = forced_kernel_problem(chain, kernel); !why.empty()) fail(ErrorCategory::Usage, why);
}

ElementEngine::ElementEngine(const ElementSettings& settings, int width, int height, AVPixelFormat format, bool gpu_memory)
    : settings_(settings) {
    // Packed RGB (RGBA, BGRx, RGB, ...) is filtered as its planes, moved there and back exactly.
    const AVPixelFormat planes = planar_rgb_for_packed(format);
    const AVPixelFormat filtered = planes != AV_PIX_FMT_NONE ? planes : format;
    if (!is_native_format(filtered)) fail(ErrorCategory::Internal, "the element negotiated a format vfilter does not filter");
    if (planes != AV_PIX_FMT_NONE)
        planes_ = std::make_unique<FramePool>(width, height, planes, gpu_memory ? BufferAllocator(device_buffer_alloc) : BufferAllocator());
    planes_on_gpu_ = gpu_memory;
    const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(filtered);
    geometry_.width = width;
    geometry_.height = height;
    geometry_.log2_chroma_w = d->log2_chroma_w;
    geometry_.log2_chroma_h = d->log2_chroma_h;
    geometry_.rgb = d->flags & AV_PIX_FMT_FLAG_RGB;
    std::vector<FilterPlan> chain = chain_for(settings.filter);
    if (gpu_memory && settings.device == DeviceChoice::Cpu)
        fail(ErrorCategory::Usage, "device=cpu cannot filter CUDA memory: use device=auto or cuda, or cudadownload before vfilter");
    device_ = resolve_device(gpu_memory ? DeviceChoice::Cuda : settings.device, settings.kernel);
    RunContext c;
    c.device = device_;
    if (device_ == Device::Cuda) {
        runtime_ = shared_element_runtime();
        c.placement.gpu = settings.gpu_id;
        c.gpu_device = runtime_->device(settings.gpu_id);
#ifdef VF_HAVE_CUDA
        std::string why;
        if (!select_gpu(settings.gpu_id, &why)) fail(ErrorCategory::Device, why);
#endif
    }
    identity_ = changes_nothing(chain);
    description_ = names_of(chain);
    RunFilter f;  // what the filter stage reads of it: the chain itself is built above
    f.kernel = settings.kernel;
    f.frames_on_device = gpu_memory;
    // One frame at a time: the element hands each buffer on before it gets the next.
    f.gpu_streams = 1;
    stage_ = make_filter_stage(f, std::move(chain), c);
}

ElementEngine::~ElementEngine() = default;

std::vector<FilterPlan> ElementEngine::chain_for(const FilterChain& compiled) const {
    std::vector<FilterPlan> chain = plan_chain(compiled.spec(), settings_.compat, geometry_);
    if (const std::string why = forced_kernel_problem(chain, settings_.kernel); !why.empty()) fail(ErrorCategory::Usage, why);
    return chain;
}

AvFramePtr ElementEngine::filter(AvFramePtr in) {
    if (!planes_) return stage_->process(std::move(in));
    AvFramePtr planes = planes_->get();
    if (!planes_on_gpu_) {
        repack_rgb(in.get(), planes.get());
    } else {
#ifdef VF_HAVE_CUDA
        // On the legacy default stream, which the GPU stage waits for before it reads a device frame.
        cuda::repack_rgb_on_gpu(in.get(), planes.get(), nullptr);
#else
        fail(ErrorCategory::Internal, "CUDA memory in a build without CUDA");
#endif
    }
    return stage_->process(std::move(planes));
}

void ElementEngine::set_filter(const FilterChain& compiled) {
    std::vector<FilterPlan> chain = chain_for(compiled);
    std::lock_guard<std::mutex> lock(mutex_);
    identity_ = changes_nothing(chain);
    description_ = names_of(chain);
    stage_->set_chain(std::move(chain));
}

bool ElementEngine::identity() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return identity_;
}

std::string ElementEngine::describe() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return description_ + (device_ == Device::Cuda ? " on GPU " + std::to_string(settings_.gpu_id) : " on the CPU");
}

}  // namespace vf
