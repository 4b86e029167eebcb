// RAII for device memory, pinned host memory, streams and events.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include "kernels/cuda/cuda_check.hpp"

namespace vf::cuda {

class DeviceBuffer {
public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(size_t bytes) : bytes_(bytes) {
        if (bytes) VF_CUDA_CHECK(cudaMalloc(&ptr_, bytes));
    }
    ~DeviceBuffer() {
        if (ptr_) cudaFree(ptr_);
    }
    DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(o.bytes_) {}
    DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
        std::swap(ptr_, o.ptr_);
        std::swap(bytes_, o.bytes_);
        return *this;
    }
    uint8_t* data() const { return static_cast<uint8_t*>(ptr_); }
    size_t size() const { return bytes_; }

private:
    void* ptr_ = nullptr;
    size_t bytes_ = 0;
};

// A device copy of v (synchronous: for tables built once per kernel and cached).
template <typename V>
std::unique_ptr<DeviceBuffer> upload(const std::vector<V>& v) {
    auto buf = std::make_unique<DeviceBuffer>(v.size() * sizeof(V));
    VF_CUDA_CHECK(cudaMemcpy(buf->data(), v.data(), v.size() * sizeof(V), cudaMemcpyHostToDevice));
    return buf;
}

class Stream {
public:
    Stream() { VF_CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
    ~Stream() { cudaStreamDestroy(s_); }
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    cudaStream_t get() const { return s_; }
    void sync() const { VF_CUDA_CHECK(cudaStreamSynchronize(s_)); }

private:
    cudaStream_t s_ = nullptr;
};

class Event {
public:
    // cudaEventBlockingSync makes waiting threads sleep instead of spinning on a core that the
    // decoder or encoder could use.
    explicit Event(unsigned flags = cudaEventDefault) { VF_CUDA_CHECK(cudaEventCreateWithFlags(&e_, flags)); }
    ~Event() { cudaEventDestroy(e_); }
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
    cudaEvent_t get() const { return e_; }
    void record(cudaStream_t s) { VF_CUDA_CHECK(cudaEventRecord(e_, s)); }
    // Milliseconds from `start` to this event (both recorded and complete).
    float since(const Event& start) {
        VF_CUDA_CHECK(cudaEventSynchronize(e_));
        float ms = 0;
        VF_CUDA_CHECK(cudaEventElapsedTime(&ms, start.e_, e_));
        return ms;
    }

private:
    cudaEvent_t e_ = nullptr;
};

}  // namespace vf::cuda
