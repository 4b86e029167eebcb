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

// A test hook, never set in production (set_element_frame_engine_for_tests): no GPU state.
std::mutex test_factory_mutex;
ElementFrameEngineFactory& test_factory() {
    static ElementFrameEngineFactory factory;
    return factory;
}

ElementFrameEngineFactory current_test_factory() {
    std::lock_guard<std::mutex> lock(test_factory_mutex);
    return test_factory();
}

}  // namespace

void set_element_frame_engine_for_tests(ElementFrameEngineFactory factory) {
    std::lock_guard<std::mutex> lock(test_factory_mutex);
    test_factory() = std::move(factory);
}

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
    identity_ = changes_nothing(chain);
    description_ = names_of(chain);
    const ElementFrameEngineFactory injected = gpu_memory || settings.device == DeviceChoice::Cpu ? nullptr : current_test_factory();
    if (injected) {
        make_injected_stage(std::move(chain), injected);
    } else {
        make_stage(std::move(chain), gpu_memory);
    }
    BufferAllocator planes_memory;
    if (gpu_memory) planes_memory = device_buffer_alloc;
    else if (page_locked_) planes_memory = page_locked_->allocator();  // uploaded by DMA, as the frames themselves
    if (planes != AV_PIX_FMT_NONE) planes_ = std::make_unique<FramePool>(width, height, planes, planes_memory);
}

void ElementEngine::make_stage(std::vector<FilterPlan> chain, bool gpu_memory) {
    device_ = resolve_device(gpu_memory ? DeviceChoice::Cuda : settings_.device, settings_.kernel);
    RunContext c;
    c.device = device_;
    if (device_ == Device::Cuda) {
        runtime_ = shared_element_runtime();
        c.placement.gpu = settings_.gpu_id;
        c.gpu_device = runtime_->device(settings_.gpu_id);
#ifdef VF_HAVE_CUDA
        std::string why;
        if (!select_gpu(settings_.gpu_id, &why)) fail(ErrorCategory::Device, why);
#endif
    }
    if (device_ == Device::Cuda && !gpu_memory) {
        // System memory: the uploads and downloads of some frames overlap the kernels of others on
        // the stage's streams, and each result is downloaded straight into its own buffer (the
        // element filters in place), page-locked where upstream took the element's pool.
        frames_in_flight_ = settings_.frames_in_flight;
        page_locked_ = runtime_->page_locked();
        FilterStageOptions o;
        o.device = Device::Cuda;
        o.gpu_kernel = settings_.kernel;
        o.gpu = c.gpu_device;
        o.gpu_streams = frames_in_flight_;
        o.gpu_results_over_input = true;
        o.time_base = kGstFrameTimeBase;
        stage_ = std::make_unique<FilterStage>(std::move(chain), o);
        return;
    }
    RunFilter f;  // what the filter stage reads of it: the chain itself is built above
    f.kernel = settings_.kernel;
    f.frames_on_device = gpu_memory;
    // CUDA memory: one frame at a time, filtered in place on the GPU where nothing is copied, so
    // there is nothing to overlap; the CPU filters each frame inside submit() anyway.
    f.gpu_streams = 1;
    stage_ = make_filter_stage(f, std::move(chain), c, kGstFrameTimeBase);
}

void ElementEngine::make_injected_stage(std::vector<FilterPlan> chain, const ElementFrameEngineFactory& factory) {
    frames_in_flight_ = settings_.frames_in_flight;
    // Host memory of a store of its own: page-locked in a CUDA build, else ordinary (said once).
    page_locked_ = std::make_shared<PageLockedStore>();
    FilterStageOptions o;
    o.device = Device::Cpu;
    o.threads = 1;
    o.time_base = kGstFrameTimeBase;
    const int slots = frames_in_flight_;
    o.engine_factory = [factory, slots](const std::vector<FilterPlan>& c) { return factory(c, slots); };
    stage_ = std::make_unique<FilterStage>(std::move(chain), o);
}

ElementEngine::~ElementEngine() = default;

std::vector<FilterPlan> ElementEngine::chain_for(const FilterChain& compiled) const {
    std::vector<FilterPlan> chain = plan_chain(compiled.spec(), settings_.compat, geometry_);
    if (const std::string why = forced_kernel_problem(chain, settings_.kernel); !why.empty()) fail(ErrorCategory::Usage, why);
    return chain;
}

AvFramePtr ElementEngine::as_planes(AvFramePtr in) {
    if (!planes_) return in;
    AvFramePtr planes = planes_->get();
    planes->pts = in->pts;  // for enable=
    planes->pkt_pos = in->pkt_pos;
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
    return planes;
}

AvFramePtr ElementEngine::filter(AvFramePtr in) { return stage_->process(as_planes(std::move(in))); }

void ElementEngine::submit(AvFramePtr in) { stage_->submit(as_planes(std::move(in))); }

AvFramePtr ElementEngine::take(bool wait) { return stage_->take(wait); }

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
