// NVDEC: decoding on the GPU into device memory through FFmpeg's CUDA hwaccel. The device
// context is made on CUDA's primary context, the one the CUDA runtime (and so every vfilter
// kernel) uses, so decoded frames are read by the kernels where they lie: no upload at all.
#pragma once

#include <string>

#include "config/options.hpp"
#include "media/av_helpers.hpp"

extern "C" {
#include <libavutil/buffer.h>
}

namespace vf {

// The native format NVDEC delivers for a decoder's software format (nv12 for 8-bit 4:2:0, p010
// for 10-bit 4:2:0), or AV_PIX_FMT_NONE when NVDEC cannot decode it.
AVPixelFormat nvdec_output_format(AVPixelFormat software);

// A CUDA device context for NVDEC on GPU `gpu_index`, on CUDA's primary context, with a CUDA
// stream of its own for the frames' mapping (destroyed with the context). nullptr with the
// reason when there is no driver or no such GPU.
AVBufferRef* make_nvdec_device(int gpu_index, std::string* why);

// The CUcontext and the CUstream (as void*, so that callers need not include cuda.h) of a CUDA
// device context (make_nvdec_device's, or a frame's).
struct CudaHandles {
    void* context = nullptr;
    void* stream = nullptr;
};
CudaHandles cuda_handles_of(const AVBufferRef* device);

// Sets `decoder` (not yet opened) up to decode on the GPU. Returns false with the reason when
// this FFmpeg, this codec or this machine cannot (no CUDA hwaccel for the codec, no driver).
bool enable_nvdec(AVCodecContext* decoder, int extra_frames, std::string* why, int gpu_index = 0);

// The software layout of a frame: its own format, or for a CUDA frame the format in device memory.
AVPixelFormat frame_layout_format(const AVFrame* f);

// The CUDA stream (a cudaStream_t) on which NVDEC mapped a decoded CUDA frame: each decoder has
// its own, so that the decoders of many streams do not map their frames one after another on
// CUDA's legacy default stream. nullptr (that default stream) for other frames.
void* nvdec_stream_of(const AVFrame* f);

}  // namespace vf
