// RGB pictures as planes: packed RGB (rgb24, bgra, rgb0, rgb48, ...) holds the same samples as
// FFmpeg's planar gbrp/gbrap, only interleaved, so the filters take it as three full-size colour
// planes (and an alpha plane, passed through) and the output gets the input's layout back. The
// moves between the two are copies of samples, never a colour conversion, so they are exact both
// ways (swscale goes through its own arithmetic for some of these pairs).
#pragma once

#include <cstdint>

extern "C" {
#include <libavutil/frame.h>
#include <libavutil/pixfmt.h>
}

namespace vf {

// Whether `f` holds R, G and B (FFmpeg's RGB flag), packed or planar.
bool is_rgb_format(AVPixelFormat f);

// The planar format that holds the samples of packed RGB `f` exactly (8 or 16 bits a sample,
// native byte order): gbrp or gbrap, gbrp16le or gbrap16le. A fourth byte (alpha, or the padding
// of rgb0/0rgb) goes to the alpha plane, so it comes back unchanged. AV_PIX_FMT_NONE for anything
// else (planar formats, 5-6-5 packing, big-endian samples).
AVPixelFormat planar_rgb_for_packed(AVPixelFormat f);

// Whether repack_rgb moves samples from `from` to `to`: two RGB formats of one depth, one of them
// the planar form of the other (or both planar, alpha added or dropped).
bool rgb_repackable(AVPixelFormat from, AVPixelFormat to);

// Where one of R, G, B and the fourth sample (alpha, or rgb0's padding) of a frame lies: its first
// byte, the bytes between rows and between pixels; first is null where the format has none.
struct SampleRun {
    uint8_t* first = nullptr;
    int pitch = 0;
    int step_bytes = 0;
};
struct RgbSampleRuns {
    SampleRun role[4];      // R, G, B, the fourth
    int bytes_per_sample = 1;
};
// The runs of an RGB frame whose format simple enough for repack_rgb (rgb_repackable with itself).
RgbSampleRuns rgb_sample_runs(const AVFrame* f);

// Copies every sample of `src` into `dst` (same size, formats rgb_repackable): R to R, G to G,
// B to B, the fourth byte or plane to the fourth; where `src` has none, `dst`'s is opaque.
void repack_rgb(const AVFrame* src, AVFrame* dst);

}  // namespace vf
