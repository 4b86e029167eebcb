// Border handling: where a coordinate outside [0, n) reads from.
#pragma once

#include <string>

namespace vf {

// Reflect is the half-sample reflection (cba|abcd|dcb, the edge sample repeated once), FFmpeg's
// boxblur's edge: only FFmpeg's boxblur arithmetic (OpKind::BoxPasses) takes it. MirrorRepeat
// (cb|abcd|dc: mirrored at the start, the edge sample repeated at the end) is FFmpeg 5.1's edge
// for its 3x3 convolutions (sobel, prewitt, scharr, roberts, kirsch, convolution 3x3:
// libavfilter/vf_convolution.c setup_3x3 reads |i|, and 2n - 1 - i past the end).
enum class Border { Mirror, Replicate, Zero, Reflect, MirrorRepeat };

const char* border_name(Border b);

// Returns the in-range index to read for coordinate i of an axis of n samples, or -1 when the
// sample is outside and the border is Zero. Mirror reflects about the edge sample without
// repeating it (dcb|abcd|cba, FFmpeg's avpriv_mirror, OpenCV's REFLECT_101), folding again
// for radii larger than the plane.
inline int border_index(int i, int n, Border b) {
    if (i >= 0 && i < n) return i;
    switch (b) {
    case Border::Zero:
        return -1;
    case Border::Replicate:
        return i < 0 ? 0 : n - 1;
    case Border::Reflect: {
        const int period = 2 * n;
        int m = i % period;
        if (m < 0) m += period;
        return m < n ? m : period - 1 - m;
    }
    case Border::MirrorRepeat: {
        // One fold each way, as FFmpeg's; beyond that (radii wider than the plane, which FFmpeg's
        // 3x3 never reaches) the nearest edge sample.
        int m = i < 0 ? -i : i;
        if (m >= n) m = 2 * n - 1 - m;
        return m < 0 ? 0 : (m >= n ? n - 1 : m);
    }
    case Border::Mirror:
    default: {
        if (n == 1) return 0;
        const int period = 2 * (n - 1);
        int m = i % period;
        if (m < 0) m += period;
        return m < n ? m : period - m;
    }
    }
}

}  // namespace vf
