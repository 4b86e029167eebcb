// The DLPack tensor structures (dmlc/dlpack, v0.8: the unversioned ABI that PyTorch, CuPy, JAX and
// NumPy exchange through `__dlpack__` capsules named "dltensor"). The layout is DLPack's stable
// ABI, written out here so the module needs no header the distributions do not ship.
#pragma once

#include <cstdint>

extern "C" {

enum DLDeviceType : int32_t {
    kDLCPU = 1,
    kDLCUDA = 2,
    kDLCUDAHost = 3,
    kDLCUDAManaged = 13,
};

struct DLDevice {
    DLDeviceType device_type;
    int32_t device_id;
};

enum DLDataTypeCode : uint8_t {
    kDLInt = 0,
    kDLUInt = 1,
    kDLFloat = 2,
};

struct DLDataType {
    uint8_t code;
    uint8_t bits;
    uint16_t lanes;
};

struct DLTensor {
    void* data;
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t* shape;
    int64_t* strides;  // in elements; nullptr: compact row-major
    uint64_t byte_offset;
};

struct DLManagedTensor {
    DLTensor dl_tensor;
    void* manager_ctx;
    void (*deleter)(DLManagedTensor* self);
};

}  // extern "C"
