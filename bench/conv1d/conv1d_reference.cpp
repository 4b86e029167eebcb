#include "bench/conv1d/conv1d_reference.hpp"

namespace vf {

void conv1d_reference(const float* x, const float* f, int taps, float* y, int count) {
    for (int n = 0; n < count; ++n) {
        double s = 0;
        for (int t = 0; t < taps; ++t) s += static_cast<double>(x[n + t]) * f[t];
        y[n] = static_cast<float>(s);
    }
}

}  // namespace vf
