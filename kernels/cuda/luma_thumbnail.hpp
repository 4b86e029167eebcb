// The luma thumbnail on the GPU: the same bytes as the CPU's make_luma_thumbnail
// (kernels/luma_thumbnail.hpp), made where the frame already is, so that only the thumbnail (at
// most 320 samples wide) crosses to the host, never a full frame. Not a row of the dispatch table:
// it has one kernel and no choice to make.
//
// One object per measured stream and plane size, made by whoever measures that stream and owning
// its buffers on one device (a device buffer for the kernel's output, page-locked host memory for
// the copy, an event): nothing is shared between streams or kept process-wide.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <memory>

#include "common/plane.hpp"
#include "kernels/cuda/device_buffer.hpp"
#include "kernels/cuda/device_context.hpp"
#include "kernels/luma_thumbnail.hpp"

namespace vf::cuda {

class GpuLumaThumbnail {
public:
    // Buffers for the thumbnails of planes of width x height on `ctx`'s device.
    GpuLumaThumbnail(DeviceContext& ctx, int width, int height);

    const ThumbnailShape& shape() const { return shape_; }

    // Queues on `stream` the kernel that writes the thumbnail of `luma` (device memory, 8-bit or
    // 9..16-bit in 16-bit words, the size given when this was made) into device memory, then the
    // copy of the thumbnail alone into page-locked host memory, then an event. Never waits.
    void make(const PlaneView& luma, cudaStream_t stream);

    // Whether the last make's thumbnail has landed in host(); never waits.
    bool ready() const;
    // Waits until it has (the calling thread sleeps).
    void wait() const;
    // The thumbnail's samples, row after row, no padding: shape().width * shape().height bytes,
    // valid once ready() (or wait()) says so and until the next make.
    const uint8_t* host() const { return host_.data(); }
    LumaThumbnail copy() const;

    int64_t device_bytes() const { return static_cast<int64_t>(device_.size()); }

private:
    int device_id_;
    int plane_width_, plane_height_;
    ThumbnailShape shape_;
    DeviceBuffer device_;
    PinnedHostBuffer host_;
    std::unique_ptr<Event> done_;  // made on the device, as an event belongs to the device current then
};

}  // namespace vf::cuda
