// vfilter.compile(chain)(tensor): a call on GPU memory from the door to the launch in one native
// step, so that a call on a small image costs about what a tensor library's own operation does.
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <optional>
#include <string>

namespace vf {

class CompiledPlaneChain;
struct CallMoment;

// Filters GPU array `image` into `out` (a GPU array of its shape and dtype, not overlapping it)
// with `chain`: both read and checked at the door (gpu_array.hpp), their planes laid out as the
// NumPy path's views are (plane_layout.hpp), the work queued on `stream` (a cudaStream_t as a
// number; nullopt: PyTorch's current stream on the image's device, for torch tensors only).
// `bits`: the samples' depth (nullopt: 8 for uint8, 10 for uint16); `when`: the frame's t, n, pos
// for the chain's enable= expressions. Throws pybind11::type_error,
// Error(Usage) for bad arguments, Error(Device) for CUDA's failures and in a build without CUDA.
void apply_gpu(CompiledPlaneChain& chain, pybind11::handle image, pybind11::handle out, std::optional<int> bits,
               const std::optional<std::string>& layout, std::optional<uintptr_t> stream, const CallMoment& when);

}  // namespace vf
