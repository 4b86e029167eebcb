#include "gpu_call.hpp"

#include <algorithm>
#include <vector>

#include "common/error.hpp"
#include "compiled_chain.hpp"
#include "gpu_apply.hpp"
#include "gpu_array.hpp"
#include "plane_layout.hpp"

namespace py = pybind11;

namespace vf {
namespace {

// `out` checked against the image it is written from.
void check_out(const GpuArray& src, const GpuArray& dst) {
    if (dst.shape != src.shape || dst.itemsize != src.itemsize)
        throw Error(ErrorCategory::Usage, "out must have the image's shape " + shape_text(src.shape) + " and dtype " + src.dtype());
    if (dst.readonly) throw Error(ErrorCategory::Usage, "out is read-only");
    if (!dst.plain()) throw Error(ErrorCategory::Usage, "out must have positive strides in whole samples");
    const auto a = src.extent(), b = dst.extent();
    if (a.first < b.second && b.first < a.second)
        throw Error(ErrorCategory::Usage, "out overlaps the image: filtering in place is not supported");
}

std::vector<PlaneView> plane_views(const GpuArray& a, const std::string& layout, int bits) {
    std::vector<PlaneView> views;
    for (const PlaneSpan& s : plane_spans(a.shape, a.strides, layout)) {
        PlaneView v;
        v.data = reinterpret_cast<uint8_t*>(a.ptr + static_cast<uintptr_t>(s.offset));
        v.pitch = static_cast<std::ptrdiff_t>(s.pitch);
        v.width = static_cast<int>(s.width);
        v.height = static_cast<int>(s.height);
        v.step = static_cast<int>(s.pixel_stride / a.itemsize);
        v.bytes_per_sample = a.itemsize;
        v.depth = bits;
        views.push_back(v);
    }
    return views;
}

}  // namespace

void apply_gpu(CompiledPlaneChain& chain, py::handle image, py::handle out, std::optional<int> bits,
               const std::optional<std::string>& layout, std::optional<uintptr_t> stream, const CallMoment& when) {
    // Without a stream the image is a torch tensor, read without one (only DLPack needs it).
    const GpuArray src = read_gpu_array(image, stream.value_or(0), "image");
    const uintptr_t handle = stream ? *stream : src.device >= 0 ? torch_current_stream(src.device) : torch_current_stream(image);
    const int depth = src.itemsize == 1 ? 8 : 10;
    if (bits && *bits != depth)
        throw Error(ErrorCategory::Usage, "bits=" + std::to_string(*bits) + " with " + src.dtype() +
                                              " samples: vfilter filters uint8 as 8-bit and uint16 as 10-bit");
    const std::string lay = layout_of(src.shape, layout);
    const int64_t height = src.shape[lay.find('h')], width = src.shape[lay.find('w')];
    if (std::min(height, width) < 1) throw Error(ErrorCategory::Usage, "shape " + shape_text(src.shape) + ": the image is empty");
    if (width > 65535 || height > 65535) throw Error(ErrorCategory::Usage, "planes from 1 to 65535 a side");
    if (!src.plain())
        throw Error(ErrorCategory::Usage, "the image's strides must be positive whole samples: pass a contiguous tensor (.contiguous())");
    const GpuArray dst = read_gpu_array(out, handle, "out");
    check_out(src, dst);
    const std::vector<PlaneView> from = plane_views(src, lay, depth), to = plane_views(dst, lay, depth);
    const auto plans = chain.plans(static_cast<int>(width), static_cast<int>(height));
    const auto gpu_plans = chain.gpu_plans(*plans, chain.filters_applying(*plans, when, static_cast<int>(width), static_cast<int>(height)));
    py::gil_scoped_release unlocked;
    apply_device_planes(chain.gpu_cache(), from, to, GpuArrayDevices{src.device, dst.device}, gpu_plans, handle, src.producer);
}

}  // namespace vf
