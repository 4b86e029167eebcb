#include "device_arrays.hpp"

#include <pybind11/stl.h>

#include <string>

extern "C" {
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
}

#include "common/error.hpp"
#include "dlpack.hpp"

namespace py = pybind11;

namespace vf {

DlpackFields dlpack_fields(const py::capsule& capsule) {
    if (std::string(capsule.name() ? capsule.name() : "") != "dltensor")
        throw Error(ErrorCategory::Usage, "__dlpack__ gave a capsule that is not an unused DLPack tensor");
    const auto* t = static_cast<const DLManagedTensor*>(capsule.get_pointer());
    const DLTensor& d = t->dl_tensor;
    DlpackFields f;
    f.ptr = reinterpret_cast<uintptr_t>(d.data) + d.byte_offset;
    f.device_type = static_cast<int>(d.device.device_type);
    f.device_id = d.device.device_id;
    f.shape.assign(d.shape, d.shape + d.ndim);
    if (d.strides) f.strides.assign(d.strides, d.strides + d.ndim);
    f.code = static_cast<int>(d.dtype.code);
    f.bits = static_cast<int>(d.dtype.bits);
    f.lanes = static_cast<int>(d.dtype.lanes);
    return f;
}

py::dict dlpack_info(const py::capsule& capsule) {
    const DlpackFields f = dlpack_fields(capsule);
    py::dict info;
    info["ptr"] = f.ptr;
    info["device_type"] = f.device_type;
    info["device_id"] = f.device_id;
    info["shape"] = py::tuple(py::cast(f.shape));
    info["strides"] = f.strides.empty() ? py::object(py::none()) : py::object(py::tuple(py::cast(f.strides)));
    info["code"] = f.code;
    info["bits"] = f.bits;
    info["lanes"] = f.lanes;
    return info;
}

PlaneShape::PlaneShape(const AVFrame* frame, int plane) {
    const auto fmt = static_cast<AVPixelFormat>(frame->format);
    const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(fmt);
    rows = plane == 0 ? frame->height : AV_CEIL_RSHIFT(frame->height, d->log2_chroma_h);
    row_bytes = av_image_get_linesize(fmt, frame->width, plane);
    wide = d->comp[0].depth > 8;
    interleaved = plane == 1 && av_pix_fmt_count_planes(fmt) == 2;  // nv12, p010
    cols = row_bytes / item() / (interleaved ? 2 : 1);
}

std::vector<py::ssize_t> PlaneShape::dims() const {
    if (interleaved) return {rows, cols, 2};
    return {rows, cols};
}

py::tuple DevicePlane::shape() const { return py::tuple(py::cast(shape_.dims())); }

DevicePlane::DevicePlane(std::shared_ptr<const AVFrame> frame, int plane, int device)
    : frame_(std::move(frame)), shape_(frame_.get(), plane), data_(frame_->data[plane]), pitch_(frame_->linesize[plane]),
      device_(device) {}

py::dict DevicePlane::cuda_array_interface() const {
    const int64_t item = shape_.item();
    py::dict d;
    d["shape"] = shape();
    d["typestr"] = shape_.wide ? "<u2" : "|u1";
    d["data"] = py::make_tuple(ptr(), false);
    d["strides"] = shape_.interleaved ? py::make_tuple(pitch_, 2 * item, item) : py::make_tuple(pitch_, item);
    d["version"] = 3;
    d["stream"] = py::none();  // ready: no stream to order after
    return d;
}

namespace {
// What a DLPack tensor made from a plane owns: a reference to its frame, and its shape.
struct DlpackHolder {
    std::shared_ptr<const AVFrame> frame;
    int64_t shape[3] = {0, 0, 0};
    int64_t strides[3] = {0, 0, 0};
    DLManagedTensor tensor{};
};

void delete_holder(DLManagedTensor* t) { delete static_cast<DlpackHolder*>(t->manager_ctx); }

// A capsule nobody consumed still owns its tensor (DLPack's rule); a consumed one is renamed.
void capsule_destructor(PyObject* capsule) {
    if (PyCapsule_IsValid(capsule, "dltensor")) {
        auto* t = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, "dltensor"));
        t->deleter(t);
    }
}
}  // namespace

py::capsule DevicePlane::dlpack() const {
    auto holder = std::make_unique<DlpackHolder>();
    holder->frame = frame_;
    const int ndim = shape_.interleaved ? 3 : 2;
    holder->shape[0] = shape_.rows;
    holder->shape[1] = shape_.cols;
    holder->shape[2] = 2;
    holder->strides[0] = pitch_ / shape_.item();  // DLPack counts strides in elements
    holder->strides[1] = shape_.interleaved ? 2 : 1;
    holder->strides[2] = 1;
    DLTensor& t = holder->tensor.dl_tensor;
    t.data = const_cast<uint8_t*>(data_);
    t.device = DLDevice{kDLCUDA, device_};
    t.ndim = ndim;
    t.dtype = DLDataType{kDLUInt, static_cast<uint8_t>(shape_.wide ? 16 : 8), 1};
    t.shape = holder->shape;
    t.strides = holder->strides;
    t.byte_offset = 0;
    holder->tensor.manager_ctx = holder.get();
    holder->tensor.deleter = delete_holder;
    PyObject* c = PyCapsule_New(&holder->tensor, "dltensor", capsule_destructor);
    if (!c) throw py::error_already_set();
    holder.release();
    return py::reinterpret_steal<py::capsule>(c);
}

py::tuple DevicePlane::dlpack_device() const { return py::make_tuple(static_cast<int>(kDLCUDA), device_); }

std::string DevicePlane::repr() const {
    std::string s = "vfilter.DevicePlane(shape=(" + std::to_string(shape_.rows) + ", " + std::to_string(shape_.cols);
    if (shape_.interleaved) s += ", 2";
    return s + "), dtype=" + dtype() + ", device='cuda:" + std::to_string(device_) + "')";
}

void DevicePlane::bind(py::module_& m) {
    py::class_<DevicePlane>(m, "DevicePlane",
                            "One plane of a frame in GPU memory, read in place by torch.as_tensor(plane, "
                            "device='cuda'), torch.from_dlpack(plane), cupy.asarray(plane) and any DLPack "
                            "consumer. The memory lives as long as this object or any tensor made from it.")
        .def_property_readonly("shape", &DevicePlane::shape)
        .def_property_readonly("dtype", &DevicePlane::dtype)
        .def_property_readonly("device", &DevicePlane::device, "the CUDA device number")
        .def_property_readonly("ptr", &DevicePlane::ptr, "the device address of the first sample")
        .def_property_readonly("__cuda_array_interface__", &DevicePlane::cuda_array_interface)
        .def(
            "__dlpack__",
            [](const DevicePlane& p, py::object /*stream*/, py::kwargs /*max_version, dl_device, copy*/) {
                return p.dlpack();
            },
            py::arg("stream") = py::none())
        .def("__dlpack_device__", &DevicePlane::dlpack_device)
        .def("__repr__", &DevicePlane::repr);
}

}  // namespace vf
