// What the GPU stage (pipeline/gpu_frame_filter.cpp) knows of a frame's memory: the layout of its
// planes, and whether they are already in GPU memory.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

extern "C" {
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
}

namespace vf {

// The planes of an image of one size and layout: where each starts and its pitch.
struct GpuFrameLayout {
    AVPixelFormat format = AV_PIX_FMT_NONE;
    int width = 0, height = 0, planes = 0;
    int rows[4] = {0, 0, 0, 0};
    size_t row_bytes[4] = {0, 0, 0, 0};

    bool matches(AVPixelFormat f, int w, int h) const { return f == format && w == width && h == height; }
    void set(AVPixelFormat f, int w, int h) {
        format = f;
        width = w;
        height = h;
        const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(f);
        planes = av_pix_fmt_count_planes(f);
        for (int p = 0; p < planes; ++p) {
            rows[p] = (p == 1 || p == 2) ? AV_CEIL_RSHIFT(h, d->log2_chroma_h) : h;
            row_bytes[p] = static_cast<size_t>(av_image_get_linesize(f, w, p));
        }
    }
};

// A frame of a native format whose planes are GPU memory (GStreamer's CUDA buffers, through
// the element): read in place like NVDEC's frames.
inline bool in_device_memory(const void* p) {
    cudaPointerAttributes a{};
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        cudaGetLastError();
        return false;
    }
    return a.type == cudaMemoryTypeDevice;
}

}  // namespace vf
