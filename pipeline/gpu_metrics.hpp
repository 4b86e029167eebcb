// The GPU state of this process for /metrics, per device: what the prepared chains hold (the
// per-device store of kernels/cuda/device_context.hpp), GPU memory in use, and the shared stage's
// batched launches. Only devices some stream uses are asked (asking creates a CUDA context).
#pragma once

#include "common/metric_set.hpp"

namespace vf {

void collect_gpu_metrics(MetricSet& set);

}  // namespace vf
