// The GPU state of a runtime (pipeline/gpu_runtime.hpp) for /metrics, per device: what the
// prepared chains hold (the per-device store of kernels/cuda/device_context.hpp), GPU memory in
// use, the shared stage's batched launches and the shared NVDEC decoders; and its page-locked
// host memory. Only devices the runtime uses are asked (asking creates a CUDA context).
#pragma once

#include "common/metric_set.hpp"
#include "pipeline/gpu_runtime.hpp"

namespace vf {

void collect_gpu_metrics(MetricSet& set, const GpuRuntime& runtime);

}  // namespace vf
