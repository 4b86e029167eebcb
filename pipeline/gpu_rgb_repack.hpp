// Packed RGB and its planes moved into each other in GPU memory (GStreamer's RGBA and BGRx CUDA
// buffers, filtered as gbrap planes): each of R, G, B and the fourth sample copied by the copy
// row's kernel (kernels/cuda/variants/copy.cu), sample for sample, no arithmetic. Built with CUDA.
#pragma once

#include <cuda_runtime.h>

extern "C" {
#include <libavutil/frame.h>
}

namespace vf::cuda {

// Copies every sample of `src` into `dst`, both in device memory, of one size, their formats
// rgb_repackable (media/rgb_planes.hpp) and every sample `dst` holds also in `src`; queued on
// `stream`. Throws Error(Internal) otherwise.
void repack_rgb_on_gpu(const AVFrame* src, AVFrame* dst, cudaStream_t stream);

}  // namespace vf::cuda
