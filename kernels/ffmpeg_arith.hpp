// FFmpeg 5.1's integer arithmetic for boxblur and unsharp, step by step as its C code does it
// (libavfilter/vf_boxblur.c, vf_unsharp.c of the 5.1 release), shared by the reference, the fast
// CPU path and the CUDA kernels so that all three round alike. FFmpeg computes in 32-bit ints
// that may wrap (16-bit samples, wide windows) and stores into the sample's type, which cuts
// the value to 8 or 16 bits: both are reproduced here, since its bytes are the point.
#pragma once

#include <cstdint>

#ifdef __CUDACC__
#define VF_FFMPEG_ARITH __host__ __device__ __forceinline__
#else
#define VF_FFMPEG_ARITH inline
#endif

namespace vf {

// What FFmpeg's stores keep of a value: its 8 or 16 low bits (the sample type's width).
VF_FFMPEG_ARITH int ffmpeg_sample_bits_mask(int bytes_per_sample) { return bytes_per_sample == 1 ? 0xFF : 0xFFFF; }

// boxblur: the fixed-point reciprocal of a (2 radius + 1) window, ((1 << 16) + len / 2) / len.
VF_FFMPEG_ARITH int ffmpeg_box_inverse(int radius) {
    const int len = 2 * radius + 1;
    return ((1 << 16) + len / 2) / len;
}

// boxblur: one pass's value from the exact window sum: FFmpeg's running sum holds
// sum * inv + (1 << 15) in an int (wrapping), and stores sum >> 16 in the sample's type.
VF_FFMPEG_ARITH int ffmpeg_box_mean(int64_t window_sum, int inverse, int mask) {
    const uint32_t wrapped = static_cast<uint32_t>(window_sum * inverse + (1 << 15));
    return (static_cast<int32_t>(wrapped) >> 16) & mask;
}

// unsharp: the rounded blur from the binomial window sum (its 32-bit value: FFmpeg sums in
// uint32_t, wrapping), scalebits = 2 (steps_x + steps_y).
VF_FFMPEG_ARITH int32_t ffmpeg_unsharp_blur(uint32_t window_sum, int scalebits) {
    const uint32_t half = uint32_t{1} << (scalebits - 1);
    return static_cast<int32_t>((window_sum + half) >> scalebits);
}

// unsharp: the output from the input sample and the rounded blur. The product is FFmpeg's int
// (wrapping); the shift floors; 8-bit samples shift by 16 and clip to 0..255, deeper ones (its
// 16-bit function) shift by 24 and clip to 0..65535, above a 10-bit peak too.
VF_FFMPEG_ARITH int ffmpeg_unsharp_finish(int in, int32_t blur, int amount, int bytes_per_sample) {
    const int32_t product = static_cast<int32_t>(static_cast<uint32_t>(static_cast<int64_t>(in - blur) * amount));
    const int shift = bytes_per_sample == 1 ? 16 : 24;
    const int32_t res = in + (product >> shift);
    const int top = bytes_per_sample == 1 ? 0xFF : 0xFFFF;
    return res < 0 ? 0 : (res > top ? top : res);
}

// unsharp: the binomial tap i of a window of 2 steps + 1 (C(2 steps, i)), which FFmpeg's chain of
// 2 steps two-sample sums amounts to.
VF_FFMPEG_ARITH uint32_t ffmpeg_binomial_tap(int steps, int i) {
    uint64_t c = 1;
    for (int k = 0; k < i; ++k) c = c * static_cast<uint64_t>(2 * steps - k) / static_cast<uint64_t>(k + 1);
    return static_cast<uint32_t>(c);
}

}  // namespace vf
