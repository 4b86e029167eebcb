// GPU memory across the Python boundary, both ways, without copies:
// - in: a DLPack capsule's tensor as plain numbers (dlpack_fields), read with the other GPU
//   arrays (gpu_array.hpp);
// - out: DevicePlane, one plane of a frame that stays on the GPU (vfilter.Frames on the GPU),
//   which PyTorch, CuPy and any DLPack consumer read in place (`__cuda_array_interface__` v3 and
//   `__dlpack__`). It holds a reference to the frame, so the memory lives as long as any tensor
//   made from it; the frame's buffer then goes back to the pipeline's pool.
#pragma once

#include <pybind11/pybind11.h>

#include <memory>
#include <vector>

extern "C" {
#include <libavutil/frame.h>
}

namespace vf {

// A "dltensor" capsule's tensor as plain numbers (DLPack's type codes: 1 unsigned integer;
// device 2 CUDA). Strides in elements, as DLPack counts them; empty: compact. Throws Error(Usage)
// for a capsule that is not an unused DLPack tensor.
struct DlpackFields {
    uintptr_t ptr = 0;
    int device_type = 0, device_id = 0;
    std::vector<int64_t> shape, strides;
    int code = 0, bits = 0, lanes = 0;
};
DlpackFields dlpack_fields(const pybind11::capsule& capsule);
// The same as a dict {"ptr", "device_type", "device_id", "shape", "strides" (or None), "code",
// "bits", "lanes"} (tests read capsules with it).
pybind11::dict dlpack_info(const pybind11::capsule& capsule);

// How Python sees plane `plane` of a frame, on the host (NumPy) or the GPU (DevicePlane): rows x
// samples, or rows x pixels x 2 for the interleaved chroma of nv12 and p010; uint16 above 8 bits.
struct PlaneShape {
    int64_t rows = 0, cols = 0;
    int64_t row_bytes = 0;  // the samples of a row, without the padding
    bool wide = false, interleaved = false;

    PlaneShape(const AVFrame* frame, int plane);
    int64_t item() const { return wide ? 2 : 1; }
    std::vector<pybind11::ssize_t> dims() const;
};

class DevicePlane {
public:
    // Plane `plane` of `frame` (device memory on GPU `device`), rows x samples, or rows x pixels x 2
    // for the interleaved chroma of nv12 and p010.
    DevicePlane(std::shared_ptr<const AVFrame> frame, int plane, int device);

    pybind11::tuple shape() const;
    const char* dtype() const { return shape_.wide ? "uint16" : "uint8"; }
    int device() const { return device_; }
    uintptr_t ptr() const { return reinterpret_cast<uintptr_t>(data_); }
    pybind11::dict cuda_array_interface() const;
    // A "dltensor" capsule; the data is ready on every stream (the frame was finished before
    // Python saw it), so the consumer's stream needs no ordering.
    pybind11::capsule dlpack() const;
    pybind11::tuple dlpack_device() const;
    std::string repr() const;

    static void bind(pybind11::module_& m);

private:
    std::shared_ptr<const AVFrame> frame_;
    PlaneShape shape_;
    const uint8_t* data_ = nullptr;
    int64_t pitch_ = 0;
    int device_ = 0;
};

}  // namespace vf
