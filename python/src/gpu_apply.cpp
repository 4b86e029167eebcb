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

void apply_device_planes(GpuApplyCache& cache, const std::vector<PlaneView>& src, const std::vector<PlaneView>& dst,
                         GpuArrayDevices devices, const std::shared_ptr<const std::vector<FilterPlan>>& planned,
                         uintptr_t stream_handle, int64_t producer_stream) {
    const std::vector<FilterPlan>& chain = *planned;
    if (src.size() != dst.size()) throw Error(ErrorCategory::Internal, "apply_device_planes: as many outputs as inputs");
    if (src.empty()) return;
    const int device = devices.image >= 0 ? devices.image : device_of(reinterpret_cast<uintptr_t>(src[0].data), "the image");
    const int out_device = devices.out >= 0 ? devices.out : device_of(reinterpret_cast<uintptr_t>(dst[0].data), "out");
    if (out_device != device) throw Error(ErrorCategory::Usage, "out is on another GPU than the image");
    const int width = src[0].width, height = src[0].height, itemsize = src[0].bytes_per_sample;
    for (size_t i = 0; i < src.size(); ++i)
        if (src[i].width != width || src[i].height != height || dst[i].width != width || dst[i].height != height)
            throw Error(ErrorCategory::Internal, "apply_device_planes: planes of one size");

    CurrentDevice current(device);
    const cudaStream_t stream = stream_of(stream_handle);
    if (producer_stream >= 0 && static_cast<uintptr_t>(producer_stream) != stream_handle) {
        // The data was written on another stream: ours waits for it on the GPU, the host does not.
        cudaEvent_t written;
        VF_CUDA_CHECK(cudaEventCreateWithFlags(&written, cudaEventDisableTiming));
        VF_CUDA_CHECK(cudaEventRecord(written, stream_of(static_cast<uintptr_t>(producer_stream))));
        const cudaError_t waited = cudaStreamWaitEvent(stream, written, 0);
        cudaEventDestroy(written);  // released once recorded work completes
        VF_CUDA_CHECK(waited);
    }
    // A chain's intermediate images, stream-ordered: allocated and freed on the caller's stream,
    // so nothing waits for them. Rows of whole 64-byte lines, as the frames' rows are.
    const size_t count = src.size();
    const int64_t pitch = (static_cast<int64_t>(width) * itemsize + 63) / 64 * 64;
    const size_t image_bytes = static_cast<size_t>(pitch) * height;
    void* scratch[2] = {nullptr, nullptr};
    std::vector<PlaneView> between[2];
    for (int k = 0; k < 2 && static_cast<size_t>(k) + 1 < chain.size(); ++k) {
        VF_CUDA_CHECK(cudaMallocAsync(&scratch[k], image_bytes * count, stream));
        for (size_t i = 0; i < count; ++i) {
            PlaneView v = dst[i];
            v.data = static_cast<uint8_t*>(scratch[k]) + i * image_bytes;
            v.pitch = pitch;
            v.step = 1;
            between[k].push_back(v);
        }
    }
    // Planes of one layout share a prepared chain and its batched launches; a call whose planes
    // differ (arrays of other strides or alignments) runs one group of them after another.
    std::exception_ptr error;
    try {
        struct Group {
            cuda::PlaneShape src, dst;
            std::vector<size_t> members;
        };
        std::vector<Group> groups;
        for (size_t i = 0; i < count; ++i) {
            const cuda::PlaneShape s = cuda::PlaneShape::of(src[i]), d = cuda::PlaneShape::of(dst[i]);
            auto g = std::find_if(groups.begin(), groups.end(), [&](const Group& x) { return x.src == s && x.dst == d; });
            if (g == groups.end()) groups.push_back(Group{s, d, {i}});
            else g->members.push_back(i);
        }
        cuda::Workspace workspace(stream);
        std::vector<PlaneView> from_group, to_group;
        for (const Group& group : groups) {
            const std::vector<size_t>& members = group.members;
            std::vector<cuda::StepShapes> shapes(chain.size());
            for (size_t f = 0; f < chain.size(); ++f) {
                const size_t i = members.front();
                const PlaneView& in = f == 0 ? src[i] : between[(f - 1) % 2][i];
                const PlaneView& out = f + 1 == chain.size() ? dst[i] : between[f % 2][i];
                shapes[f].src.push_back(cuda::PlaneShape::of(in));
                shapes[f].dst.push_back(cuda::PlaneShape::of(out));
            }
            const auto prepared = cache.impl->acquire(device, planned, shapes);
            for (size_t f = 0; f < chain.size(); ++f) {
                from_group.clear();
                to_group.clear();
                for (size_t i : members) {
                    from_group.push_back(f == 0 ? src[i] : between[(f - 1) % 2][i]);
                    to_group.push_back(f + 1 == chain.size() ? dst[i] : between[f % 2][i]);
                }
                prepared->chain->op(f, 0).launch_batch(from_group.data(), to_group.data(), static_cast<int>(members.size()), stream,
                                                workspace);
            }
        }
    } catch (...) {
        error = std::current_exception();
    }
    for (void* p : scratch)
        if (p) cudaFreeAsync(p, stream);
    if (error) std::rethrow_exception(error);
}
#endif

}  // namespace vf
