#include "gpu_apply.hpp"

#include <algorithm>
#include <deque>
#include <mutex>

#include "common/error.hpp"

#ifdef VF_HAVE_CUDA
#include <cuda_runtime.h>

#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/device_context.hpp"
#include "kernels/cuda/prepared_chain.hpp"
#include "kernels/cuda/workspace.hpp"
#include "pipeline/gpu_runtime.hpp"
#endif

namespace vf {

std::shared_ptr<GpuRuntime> module_gpu_runtime() {
    static SharedGpuRuntime runtime;
    return runtime.get();
}

#ifndef VF_HAVE_CUDA
struct GpuApplyCache::Impl {};
GpuApplyCache::GpuApplyCache() = default;
GpuApplyCache::~GpuApplyCache() = default;

bool built_with_cuda() { return false; }

void apply_device_planes(GpuApplyCache&, const std::vector<PlaneView>&, const std::vector<PlaneView>&, GpuArrayDevices,
                         const std::shared_ptr<const std::vector<FilterPlan>>&, uintptr_t, int64_t) {
    throw Error(ErrorCategory::Device, "this vfilter module was built without CUDA (no nvcc at configure time): pass NumPy arrays");
}
#else
bool built_with_cuda() { return true; }

namespace {

cudaStream_t stream_of(uintptr_t handle) {
    if (handle == 1) return cudaStreamLegacy;
    if (handle == 2) return cudaStreamPerThread;
    return reinterpret_cast<cudaStream_t>(handle);
}

// The GPU that holds `ptr`, or a Usage error for host memory.
int device_of(uintptr_t ptr, const char* what) {
    cudaPointerAttributes a{};
    if (cudaPointerGetAttributes(&a, reinterpret_cast<const void*>(ptr)) != cudaSuccess) {
        cudaGetLastError();
        throw Error(ErrorCategory::Usage, std::string(what) + " is not GPU memory CUDA knows");
    }
    if (a.type != cudaMemoryTypeDevice && a.type != cudaMemoryTypeManaged)
        throw Error(ErrorCategory::Usage, std::string(what) + " is not in GPU memory (pass host images as NumPy arrays)");
    return a.device;
}

// Makes `device` current for the call and puts the caller's device back after.
class CurrentDevice {
public:
    explicit CurrentDevice(int device) : device_(device) {
        VF_CUDA_CHECK(cudaGetDevice(&previous_));
        if (previous_ != device) VF_CUDA_CHECK(cudaSetDevice(device));
    }
    ~CurrentDevice() {
        if (previous_ != device_) cudaSetDevice(previous_);
    }
    CurrentDevice(const CurrentDevice&) = delete;
    CurrentDevice& operator=(const CurrentDevice&) = delete;

private:
    int device_ = 0;
    int previous_ = 0;
};

// A prepared chain as calls hold it: freed only once the work queued with it has run. The caller's
// stream may run behind the host by any amount, and a freed chain's tables and its range of the
// device's constant memory go to the next chain prepared, so whoever drops the last hold (an
// eviction from the cache, a dropped compiled chain, or a call that outlived both) waits for the
// device first. Rare: a loop over frames keeps using the same chain.
struct QueuedChain {
    int device;
    std::shared_ptr<const cuda::PreparedChain> chain;
    QueuedChain(int d, std::shared_ptr<const cuda::PreparedChain> c) : device(d), chain(std::move(c)) {}
    ~QueuedChain() {
        try {
            CurrentDevice current(device);
            cudaDeviceSynchronize();
        } catch (...) {  // a failed device: nothing of it to wait for
        }
    }
    QueuedChain(const QueuedChain&) = delete;
    QueuedChain& operator=(const QueuedChain&) = delete;
};

}  // namespace

struct GpuApplyCache::Impl {
    static constexpr size_t kKept = 8;  // chains kept alive beyond the call that prepared them
    // A prepared chain by what it was prepared for. The plans are held, so that their address
    // names them: a call with the same plans (a compiled chain's, for one plane size) finds its
    // prepared chain without comparing taps or asking the device's store.
    struct Entry {
        int device;
        std::shared_ptr<const std::vector<FilterPlan>> chain;
        std::vector<cuda::StepShapes> shapes;
        std::shared_ptr<const QueuedChain> prepared;
    };
    std::mutex mutex;
    // The module's GPU state, held while this chain lives.
    std::shared_ptr<GpuRuntime> runtime = module_gpu_runtime();
    std::deque<Entry> recent;  // most recent first

    std::shared_ptr<const QueuedChain> acquire(int device, const std::shared_ptr<const std::vector<FilterPlan>>& chain,
                                                        const std::vector<cuda::StepShapes>& shapes) {
        std::lock_guard<std::mutex> lock(mutex);
        for (auto it = recent.begin(); it != recent.end(); ++it)
            if (it->device == device && it->chain == chain && it->shapes == shapes) {
                if (it != recent.begin()) {
                    Entry found = std::move(*it);
                    recent.erase(it);
                    recent.push_front(std::move(found));
                }
                return recent.front().prepared;
            }
        auto prepared = std::make_shared<const QueuedChain>(
            device, cuda::PreparedChain::acquire(runtime->device(device)->context(), *chain, KernelChoice{}, shapes));
        recent.push_front(Entry{device, chain, shapes, prepared});
        if (recent.size() > kKept) recent.pop_back();
        return prepared;
    }
};
GpuApplyCache::GpuApplyCache() : impl(std::make_unique<Impl>()) {}
GpuApplyCache::~GpuApplyCache() = default;

namespace {

// The data was written on another stream: ours waits for it on the GPU, the host does not.
void wait_for_producer(cudaStream_t stream, uintptr_t stream_handle, int64_t producer_stream) {
    if (producer_stream < 0 || static_cast<uintptr_t>(producer_stream) == stream_handle) return;
    cudaEvent_t written;
    VF_CUDA_CHECK(cudaEventCreateWithFlags(&written, cudaEventDisableTiming));
    VF_CUDA_CHECK(cudaEventRecord(written, stream_of(static_cast<uintptr_t>(producer_stream))));
    const cudaError_t waited = cudaStreamWaitEvent(stream, written, 0);
    cudaEventDestroy(written);  // released once recorded work completes
    VF_CUDA_CHECK(waited);
}

// A chain's intermediate images (two, used in turn), stream-ordered: allocated and freed on the
// caller's stream, so nothing waits for them. Rows of whole 64-byte lines, as the frames' rows are.
class ChainScratch {
public:
    ChainScratch(const std::vector<PlaneView>& dst, size_t filters, cudaStream_t stream) : stream_(stream) {
        const int64_t pitch = (static_cast<int64_t>(dst[0].width) * dst[0].bytes_per_sample + 63) / 64 * 64;
        const size_t image_bytes = static_cast<size_t>(pitch) * static_cast<size_t>(dst[0].height);
        for (size_t k = 0; k < 2 && k + 1 < filters; ++k) {
            VF_CUDA_CHECK(cudaMallocAsync(&memory_[k], image_bytes * dst.size(), stream));
            for (size_t i = 0; i < dst.size(); ++i) {
                PlaneView v = dst[i];
                v.data = static_cast<uint8_t*>(memory_[k]) + i * image_bytes;
                v.pitch = pitch;
                v.step = 1;
                images[k].push_back(v);
            }
        }
    }
    ~ChainScratch() {
        for (void* p : memory_)
            if (p) cudaFreeAsync(p, stream_);
    }
    ChainScratch(const ChainScratch&) = delete;
    ChainScratch& operator=(const ChainScratch&) = delete;

    std::vector<PlaneView> images[2];

private:
    cudaStream_t stream_;
    void* memory_[2] = {nullptr, nullptr};
};

// The planes of one layout (strides, alignment), which share a prepared chain and its batched
// launches; a call whose planes differ runs one group after another.
std::vector<std::vector<size_t>> layout_groups(const std::vector<PlaneView>& src, const std::vector<PlaneView>& dst) {
    std::vector<std::pair<cuda::PlaneShape, cuda::PlaneShape>> shapes;
    std::vector<std::vector<size_t>> groups;
    for (size_t i = 0; i < src.size(); ++i) {
        const auto key = std::make_pair(cuda::PlaneShape::of(src[i]), cuda::PlaneShape::of(dst[i]));
        const auto g = std::find(shapes.begin(), shapes.end(), key);
        if (g == shapes.end()) {
            shapes.push_back(key);
            groups.push_back({i});
        } else {
            groups[static_cast<size_t>(g - shapes.begin())].push_back(i);
        }
    }
    return groups;
}

}  // namespace

void apply_device_planes(GpuApplyCache& cache, const std::vector<PlaneView>& src, const std::vector<PlaneView>& dst,
                         GpuArrayDevices devices, const std::shared_ptr<const std::vector<FilterPlan>>& planned,
                         uintptr_t stream_handle, int64_t producer_stream) {
    const size_t filters = planned->size();
    if (src.size() != dst.size()) throw Error(ErrorCategory::Internal, "apply_device_planes: as many outputs as inputs");
    if (src.empty()) return;
    const int device = devices.image >= 0 ? devices.image : device_of(reinterpret_cast<uintptr_t>(src[0].data), "the image");
    const int out_device = devices.out >= 0 ? devices.out : device_of(reinterpret_cast<uintptr_t>(dst[0].data), "out");
    if (out_device != device) throw Error(ErrorCategory::Usage, "out is on another GPU than the image");
    for (size_t i = 0; i < src.size(); ++i)
        if (src[i].width != src[0].width || src[i].height != src[0].height || dst[i].width != src[0].width ||
            dst[i].height != src[0].height)
            throw Error(ErrorCategory::Internal, "apply_device_planes: planes of one size");

    CurrentDevice current(device);
    const cudaStream_t stream = stream_of(stream_handle);
    wait_for_producer(stream, stream_handle, producer_stream);
    ChainScratch scratch(dst, filters, stream);
    // Filter f reads src or the scratch image the filter before wrote, and writes the other one,
    // or dst for the last.
    const auto input = [&](size_t f, size_t i) -> const PlaneView& { return f == 0 ? src[i] : scratch.images[(f - 1) % 2][i]; };
    const auto output = [&](size_t f, size_t i) -> const PlaneView& { return f + 1 == filters ? dst[i] : scratch.images[f % 2][i]; };
    cuda::Workspace workspace(stream);
    std::vector<PlaneView> from_group, to_group;
    for (const std::vector<size_t>& members : layout_groups(src, dst)) {
        std::vector<cuda::StepShapes> shapes(filters);
        for (size_t f = 0; f < filters; ++f) {
            shapes[f].src.push_back(cuda::PlaneShape::of(input(f, members.front())));
            shapes[f].dst.push_back(cuda::PlaneShape::of(output(f, members.front())));
        }
        const auto prepared = cache.impl->acquire(device, planned, shapes);
        for (size_t f = 0; f < filters; ++f) {
            from_group.clear();
            to_group.clear();
            for (size_t i : members) {
                from_group.push_back(input(f, i));
                to_group.push_back(output(f, i));
            }
            prepared->chain->op(f, 0).launch_batch(from_group.data(), to_group.data(), static_cast<int>(members.size()), stream,
                                                   workspace);
        }
    }
}
#endif

}  // namespace vf
