// A GPU array handed to vfilter from Python, read at the door: a torch tensor's fields directly
// (the common case, read without building its __cuda_array_interface__ dict), anything else
// through __cuda_array_interface__ or DLPack. Checked here: the dtype, that it claims GPU memory.
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <utility>
#include <vector>

namespace vf {

struct GpuArray {
    uintptr_t ptr = 0;
    int itemsize = 1;               // 1: uint8, 2: uint16
    std::vector<int64_t> shape;
    std::vector<int64_t> strides;   // in bytes
    bool readonly = false;
    int64_t producer = -1;          // the stream its data was written on (CAI v3); -1: ordered already
    int device = -1;                // its GPU; -1: CUDA is asked from the address
    pybind11::object keep;          // what holds its memory while it is read (a DLPack capsule)

    // Two or more axes, each stride positive and a whole number of samples.
    bool plain() const;
    // [first byte, one past the last byte] it covers.
    std::pair<uintptr_t, uintptr_t> extent() const;
    const char* dtype() const { return itemsize == 1 ? "uint8" : "uint16"; }
};

// `obj` read as a GPU array (`what` names it in errors). `stream`: the caller's stream, which a
// DLPack producer orders its work before. Throws pybind11::type_error for an object that is not a
// GPU array of uint8 or uint16 samples.
GpuArray read_gpu_array(pybind11::handle obj, uintptr_t stream, const char* what);

// True for a torch.Tensor (exactly that type) in GPU memory, strided, of uint8 or uint16 without
// autograd: the tensors read_gpu_array reads field by field.
bool is_plain_torch_tensor(pybind11::handle obj);

// The cudaStream_t PyTorch has current on the device of `tensor` (a torch tensor on the GPU).
uintptr_t torch_current_stream(pybind11::handle tensor);
// The same for GPU `device`.
uintptr_t torch_current_stream(int device);

}  // namespace vf
