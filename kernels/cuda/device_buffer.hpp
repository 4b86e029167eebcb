// RAII for device memory, pinned host memory, streams and events.
#pragma once

#include <cuda_runtime.h>

#include <atomic>
#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include "kernels/cuda/cuda_check.hpp"

namespace vf::cuda {

// The byte every DeviceBuffer allocated from now on is filled with, or -1 (the default) to leave
// it as cudaMalloc gives it. The tests set a different byte for every case, so that a kernel
// reading scratch memory nobody wrote gives a wrong answer that changes from run to run instead of
// a lucky zero.
inline std::atomic<int>& new_buffer_fill() {
    static std::atomic<int> byte{-1};  // process-wide: a test hook, no resource
    return byte;
}

class DeviceBuffer {
public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(size_t bytes);
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

// Page-locked host memory, for copies from the device that a kernel's stream queues without
// waiting (cudaMemcpyAsync into pageable memory is staged and may block the calling thread).
class PinnedHostBuffer {
public:
    PinnedHostBuffer() = default;
    explicit PinnedHostBuffer(size_t bytes) : bytes_(bytes) {
        if (bytes) VF_CUDA_CHECK(cudaHostAlloc(&ptr_, bytes, cudaHostAllocDefault));
    }
    ~PinnedHostBuffer() {
        if (ptr_) cudaFreeHost(ptr_);
    }
    PinnedHostBuffer(PinnedHostBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(o.bytes_) {}
    PinnedHostBuffer& operator=(PinnedHostBuffer&& o) noexcept {
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

// Copies host memory into device memory (or a __constant__ symbol) and returns once the bytes
// have landed. A plain cudaMemcpy from pageable memory may return before its DMA completes, and a
// kernel launched on a non-blocking stream does not wait for the legacy stream: a table uploaded
// that way can be read before it arrives (the first launch of a kernel then sees whatever the
// fresh allocation held). Used for the tables an operation is prepared with, never per frame.
inline void copy_to_device_now(void* dst, const void* src, size_t bytes) {
    Stream s;
    VF_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, s.get()));
    s.sync();
}

inline void copy_to_symbol_now(const void* symbol, const void* src, size_t bytes, size_t offset) {
    Stream s;
    VF_CUDA_CHECK(cudaMemcpyToSymbolAsync(symbol, src, bytes, offset, cudaMemcpyHostToDevice, s.get()));
    s.sync();
}

// A device copy of v, complete when this returns (for the tables an operation is prepared with).
template <typename V>
DeviceBuffer upload(const std::vector<V>& v) {
    DeviceBuffer buf(v.size() * sizeof(V));
    copy_to_device_now(buf.data(), v.data(), v.size() * sizeof(V));
    return buf;
}


inline DeviceBuffer::DeviceBuffer(size_t bytes) : bytes_(bytes) {
    if (!bytes) return;
    VF_CUDA_CHECK(cudaMalloc(&ptr_, bytes));
    if (const int fill = new_buffer_fill().load(); fill >= 0) {
        Stream s;
        VF_CUDA_CHECK(cudaMemsetAsync(ptr_, fill, bytes, s.get()));
        s.sync();
    }
}

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
