// Where the planes of an image lie: which axes of its shape are rows, columns, channels and images
// (its layout: hw, hwc, chw, nhw, nhwc, nchw), and each plane's address and strides. One reading
// for NumPy arrays and GPU tensors, so that both paths filter the same planes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace vf {

// A shape as Python prints a tuple: "(3, 40, 50)".
std::string shape_text(const std::vector<int64_t>& shape);

// `layout` checked against the shape, or the layout the shape implies (channels last unless the
// last axis cannot be channels and the first can). Throws Error(Usage) for a layout that is not
// one of the six, or that does not fit, and for a shape whose channels cannot be told.
std::string layout_of(const std::vector<int64_t>& shape, const std::optional<std::string>& layout);

// One plane: byte offset of its first sample, bytes between rows and between pixels, size.
struct PlaneSpan {
    int64_t offset = 0;
    int64_t pitch = 0;
    int64_t width = 0;
    int64_t height = 0;
    int64_t pixel_stride = 0;
};

// Every plane of an array of `shape` and byte `strides` in `layout` (as layout_of gives it), in
// the order images then channels: the order of the NumPy path's views.
std::vector<PlaneSpan> plane_spans(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides,
                                   const std::string& layout);

}  // namespace vf
