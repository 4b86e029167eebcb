#include "plane_layout.hpp"

#include "common/error.hpp"

namespace vf {
namespace {

const char* const kLayouts[] = {"hw", "hwc", "chw", "nhw", "nhwc", "nchw"};

std::string checked_layout(const std::vector<int64_t>& shape, const std::string& layout) {
    bool known = false;
    for (const char* l : kLayouts) known = known || layout == l;
    if (!known) throw Error(ErrorCategory::Usage, "layout '" + layout + "': use one of hw, hwc, chw, nhw, nhwc, nchw");
    if (layout.size() != shape.size())
        throw Error(ErrorCategory::Usage, "layout '" + layout + "' needs " + std::to_string(layout.size()) +
                                              " dimensions, the image has " + std::to_string(shape.size()));
    return layout;
}

}  // namespace

std::string shape_text(const std::vector<int64_t>& shape) {
    std::string s = "(";
    for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + (shape.size() == 1 ? ",)" : ")");
}

std::string layout_of(const std::vector<int64_t>& shape, const std::optional<std::string>& layout) {
    if (layout) return checked_layout(shape, *layout);
    switch (shape.size()) {
    case 2:
        return "hw";
    case 3:
        if (shape[2] <= 4) return "hwc";
        if (shape[0] <= 4) return "chw";
        throw Error(ErrorCategory::Usage,
                    "shape " + shape_text(shape) + ": which axis holds the channels? pass layout='nhw' for a batch");
    case 4:
        if (shape[3] <= 4) return "nhwc";
        if (shape[1] <= 4) return "nchw";
        throw Error(ErrorCategory::Usage, "shape " + shape_text(shape) + ": pass layout='nhwc' or 'nchw'");
    default:
        throw Error(ErrorCategory::Usage, "an image has 2 to 4 dimensions (H x W, with channels, in a batch), not " +
                                              std::to_string(shape.size()));
    }
}

std::vector<PlaneSpan> plane_spans(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides,
                                   const std::string& layout) {
    if (shape.size() != layout.size() || strides.size() != shape.size())
        throw Error(ErrorCategory::Internal, "plane_spans: a layout letter for each axis");
    const size_t h = layout.find('h'), w = layout.find('w');
    std::vector<int64_t> offsets{0};
    for (size_t axis = 0; axis < layout.size(); ++axis) {
        if (layout[axis] != 'n' && layout[axis] != 'c') continue;
        std::vector<int64_t> next;
        next.reserve(offsets.size() * static_cast<size_t>(shape[axis]));
        for (int64_t o : offsets)
            for (int64_t k = 0; k < shape[axis]; ++k) next.push_back(o + k * strides[axis]);
        offsets = std::move(next);
    }
    std::vector<PlaneSpan> spans;
    spans.reserve(offsets.size());
    for (int64_t o : offsets) spans.push_back(PlaneSpan{o, strides[h], shape[w], shape[h], strides[w]});
    return spans;
}

}  // namespace vf
