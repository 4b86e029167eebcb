// Border handling: where a coordinate outside [0, n) reads from.
#pragma once

#include <string>

namespace vf {

// Reflect is the half-sample reflection (cba|abcd|dcb, the edge sample repeated once), FFmpeg's
// boxblur's edge: only FFmpeg's boxblur arithmetic (OpKind::BoxPasses) takes it.
enum class Border { Mirror, Replicate, Zero, Reflect };

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
