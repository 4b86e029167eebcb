// The CUDA backend's face to the layers above: whether a GPU answers, and choosing one. Filtering
// on the GPU goes through prepared chains (kernels/cuda/prepared_chain.hpp): operations compiled
// once per device and frame geometry through the dispatch table (kernels/cuda/dispatch_table.cpp),
// which says which variant runs and why. Only built when CUDA is found at configure time.
#pragma once

#include <cuda_runtime.h>

#include <string>

namespace vf {

// True when a CUDA device can be used; otherwise `reason` says why in a user's words (one log line:
// "no NVIDIA GPU or driver found") and `detail` in CUDA's (for -v).
bool cuda_device_available(std::string* reason, std::string* detail = nullptr);
// Makes host threads that wait on GPU `device` sleep rather than spin (cudaDeviceScheduleBlockingSync).
// FFmpeg's NVDEC shares CUDA's primary context only if it has the flags NVDEC asks for; the
// device's owner (the GPU runtime, pipeline/gpu_runtime.hpp) calls this before using the device,
// which it leaves current for the calling thread.
void use_blocking_sync(int device);
// Makes GPU `index` current for this thread; false with the reason when there is no such GPU.
bool select_gpu(int index, std::string* why);
// How many GPUs CUDA sees (0 when none answers).
int gpu_count();
// GPU `index`'s PCI bus id ("0000:1a:00.0"), which names it to NVML; empty when CUDA cannot say.
std::string gpu_pci_bus_id(int index);
// GPU memory in use and in total on the current device (all processes), or false.
bool gpu_memory_info(size_t* used_bytes, size_t* total_bytes);

}  // namespace vf
