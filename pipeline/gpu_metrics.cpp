#include "pipeline/gpu_metrics.hpp"

#include <cuda_runtime.h>

#include <string>

#include "decode/nvdec_decoder_pool.hpp"
#include "kernels/cuda/device_context.hpp"
#include "media/host_memory.hpp"
#include "pipeline/gpu_frame_filter.hpp"

namespace vf {

void collect_gpu_metrics(MetricSet& set, const GpuRuntime& runtime) {
    const std::vector<std::shared_ptr<GpuDevice>> devices = runtime.devices();
    for (const auto& device : devices) {
        const std::shared_ptr<cuda::DeviceContext>& ctx = device->context();
        const std::string gpu = metric_label("gpu", std::to_string(ctx->device()));
        const cuda::PreparedTotals t = ctx->totals();
        set.add("vfilter_gpu_prepared_chains", "gauge",
                "Prepared filter chains alive on the GPU (shared by the streams that filter the same chain on the same geometry).",
                static_cast<double>(t.chains), gpu);
        set.add("vfilter_gpu_prepared_operations", "gauge", "Prepared plane operations alive on the GPU (a chain has one per filter and channel).",
                static_cast<double>(t.operations), gpu);
        set.add("vfilter_gpu_prepared_bytes", "gauge", "GPU memory held by the prepared chains (taps, tables, spectra, constant memory).",
                static_cast<double>(t.device_bytes), gpu);
        size_t free_bytes = 0, total = 0;
        cuda::DeviceGuard guard(ctx->device());
        if (cudaMemGetInfo(&free_bytes, &total) == cudaSuccess) {
            set.add("vfilter_gpu_memory_used_bytes", "gauge", "GPU memory in use on the device, every process's.",
                    static_cast<double>(total - free_bytes), gpu);
            set.add("vfilter_gpu_memory_total_bytes", "gauge", "GPU memory of the device.", static_cast<double>(total), gpu);
        } else {
            cudaGetLastError();
        }
    }
    for (const auto& device : devices) {
        const std::shared_ptr<NvdecDecoderPool> pool = device->nvdec()->live_pool();
        if (!pool) continue;
        const std::string gpu = metric_label("gpu", std::to_string(pool->gpu()));
        const NvdecDecoderPool::Counts c = pool->counts();
        set.add("vfilter_nvdec_shared_decoders", "gauge", "NVDEC decoders alive that the GPU's streams share (serve --nvdec-share).",
                static_cast<double>(c.decoders), gpu);
        set.add("vfilter_nvdec_shared_decoder_streams", "gauge", "Streams decoding on those decoders.", static_cast<double>(c.streams), gpu);
    }
    const PinnedHostBytes pinned = runtime.page_locked()->bytes();
    set.add("vfilter_host_pinned_bytes", "gauge",
            "Page-locked host memory for frames (resident): all of it, and what is kept for reuse by the next stream.",
            static_cast<double>(pinned.pinned), metric_label("held", "all"));
    set.add("vfilter_host_pinned_bytes", "gauge", "", static_cast<double>(pinned.kept), metric_label("held", "kept"));
    GpuBatchTotals b;
    for (const auto& device : devices) {
        const GpuBatchTotals d = device->batch_totals();
        b.launches += d.launches;
        b.frames += d.frames;
    }
    set.add("vfilter_gpu_batch_launches_total", "counter",
            "Batched launches of the shared GPU stage (one launch per filter and channel for all their frames).",
            static_cast<double>(b.launches));
    set.add("vfilter_gpu_batched_frames_total", "counter", "Frames filtered by those launches (divided by the launches: the mean batch).",
            static_cast<double>(b.frames));
}

}  // namespace vf
