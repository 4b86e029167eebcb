// box-passes: FFmpeg 5.1's boxblur in its own arithmetic (OpKind::BoxPasses), plainly: the plane
// read into 32-bit values, then one launch a pass (power across, then power down), one thread an
// output summing its window through the border rule and rounding as FFmpeg's pass does
// (kernels/ffmpeg_arith.hpp), then written back. Two planes of the stream's scratch hold the
// passes between launches.
#include <memory>
#include <utility>

#include "common/error.hpp"
#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/device/device_plane.cuh"
#include "kernels/cuda/variants.hpp"
#include "kernels/ffmpeg_arith.hpp"

namespace vf::cuda {
namespace {

constexpr int kBoxPassesScratch = 2;  // the workspace's tag for these planes (fft.cu's is 1)

struct PassPlanes {
    DeviceBuffer a, b;
    explicit PassPlanes(size_t samples) : a(samples * sizeof(int32_t)), b(samples * sizeof(int32_t)) {}
};

template <typename T>
__global__ void read_plane(DevPlane src, int32_t* out) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= src.width || y >= src.height) return;
    const T* row = reinterpret_cast<const T*>(src.data + y * src.pitch);
    out[static_cast<long long>(y) * src.width + x] = row[x * src.step] >> src.shift;
}

template <typename T>
__global__ void write_plane(const int32_t* in, DevPlane dst) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= dst.width || y >= dst.height) return;
    T* row = reinterpret_cast<T*>(dst.data + y * dst.pitch);
    row[x * dst.step] = static_cast<T>(in[static_cast<long long>(y) * dst.width + x] << dst.shift);
}

// One pass of the box across (across = true) or down, w x h values from `in` to `out`.
__global__ void box_pass(const int32_t* in, int32_t* out, int w, int h, int radius, int mask, int mode, bool across) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    const int n = across ? w : h, at = across ? x : y;
    long long sum = 0;
    for (int i = at - radius; i <= at + radius; ++i) {
        const int k = border_index_dev(i, n, mode);
        if (k >= 0) sum += in[across ? static_cast<long long>(y) * w + k : static_cast<long long>(k) * w + x];
    }
    out[static_cast<long long>(y) * w + x] = ffmpeg_box_mean(sum, ffmpeg_box_inverse(radius), mask);
}

}  // namespace

void box_passes(const BoxPassesOp& op, const Launch& l) {
    if (!l.workspace) throw Error(ErrorCategory::Internal, "the box-passes row launched without a workspace");
    const int w = l.src.width, h = l.src.height;
    const size_t samples = static_cast<size_t>(w) * h;
    PassPlanes& planes = l.workspace->get<PassPlanes>(kBoxPassesScratch, samples, [&] { return std::make_shared<PassPlanes>(samples); });
    int32_t* from = reinterpret_cast<int32_t*>(planes.a.data());
    int32_t* to = reinterpret_cast<int32_t*>(planes.b.data());
    const dim3 block(32, 8), grid((w + 31) / 32, (h + 7) / 8);
    const bool bytes = l.src.bytes_per_sample == 1;
    if (bytes) read_plane<uint8_t><<<grid, block, 0, l.stream>>>(to_dev(l.src), from);
    else read_plane<uint16_t><<<grid, block, 0, l.stream>>>(to_dev(l.src), from);
    VF_CUDA_CHECK_LAUNCH("read_plane");
    const int mask = ffmpeg_sample_bits_mask(l.src.bytes_per_sample), mode = border_mode(l.border);
    for (int pass = 0; pass < 2 * op.power; ++pass) {
        box_pass<<<grid, block, 0, l.stream>>>(from, to, w, h, op.radius, mask, mode, pass < op.power);
        VF_CUDA_CHECK_LAUNCH("box_pass");
        std::swap(from, to);
    }
    if (bytes) write_plane<uint8_t><<<grid, block, 0, l.stream>>>(from, to_dev(l.dst));
    else write_plane<uint16_t><<<grid, block, 0, l.stream>>>(from, to_dev(l.dst));
    VF_CUDA_CHECK_LAUNCH("write_plane");
}

}  // namespace vf::cuda
