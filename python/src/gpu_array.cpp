#include "gpu_array.hpp"

#include <string>

#include "device_arrays.hpp"
#include "dlpack.hpp"

namespace py = pybind11;

namespace vf {
namespace {

// torch's own objects, looked up when the first torch object arrives (torch is imported by then)
// and kept for the interpreter's life: never freed, as a Python object must not be released after
// the interpreter has ended.
struct TorchNames {
    PyTypeObject* tensor = nullptr;
    py::object strided, uint8, uint16, raw_stream, cuda;
    // Attribute names, interned once: a tensor is read with the C API, without making strings.
    py::object dtype, layout, requires_grad, data_ptr, shape, stride, get_device;
};
TorchNames* torch_names_made = nullptr;  // read and written under the GIL

const TorchNames& torch_names() {
    if (!torch_names_made) {
        py::module_ torch = py::module_::import("torch");
        auto* names = new TorchNames;
        names->tensor = reinterpret_cast<PyTypeObject*>(torch.attr("Tensor").ptr());
        names->strided = torch.attr("strided");
        names->uint8 = torch.attr("uint8");
        names->uint16 = py::getattr(torch, "uint16", py::none());
        // The raw handle without making a Stream object, where this PyTorch has it.
        names->raw_stream = py::getattr(torch.attr("_C"), "_cuda_getCurrentRawStream", py::none());
        names->cuda = torch.attr("cuda");
        const auto interned = [](const char* s) { return py::reinterpret_steal<py::object>(PyUnicode_InternFromString(s)); };
        names->dtype = interned("dtype");
        names->layout = interned("layout");
        names->requires_grad = interned("requires_grad");
        names->data_ptr = interned("data_ptr");
        names->shape = interned("shape");
        names->stride = interned("stride");
        names->get_device = interned("get_device");
        torch_names_made = names;
    }
    return *torch_names_made;
}

// obj.name, or obj.name() when `call`: a new reference; throws what Python raised.
py::object attribute(py::handle obj, const py::object& name, bool call = false) {
    PyObject* got = call ? PyObject_CallMethodObjArgs(obj.ptr(), name.ptr(), nullptr) : PyObject_GetAttr(obj.ptr(), name.ptr());
    if (!got) throw py::error_already_set();
    return py::reinterpret_steal<py::object>(got);
}

int64_t as_int(PyObject* o) {
    const long long v = PyLong_AsLongLong(o);
    if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
    return v;
}

// The whole numbers of a tuple (torch.Size is one).
void read_ints(const py::object& tuple, std::vector<int64_t>& into, int64_t scale) {
    if (!PyTuple_Check(tuple.ptr())) throw py::type_error("a torch tensor's shape and strides are tuples");
    const Py_ssize_t n = PyTuple_GET_SIZE(tuple.ptr());
    into.resize(static_cast<size_t>(n));
    for (Py_ssize_t i = 0; i < n; ++i) into[static_cast<size_t>(i)] = as_int(PyTuple_GET_ITEM(tuple.ptr(), i)) * scale;
}

bool is_torch_object(py::handle obj) {
    PyTypeObject* type = Py_TYPE(obj.ptr());
    if (torch_names_made && type == torch_names_made->tensor) return true;
    const py::object module = py::getattr(reinterpret_cast<PyObject*>(type), "__module__", py::none());
    return py::isinstance<py::str>(module) && module.cast<std::string>().rfind("torch", 0) == 0;
}

std::string not_gpu(const std::string& what) {
    return what == "out" ? "out must be a GPU array when the image is one" : what + " is not a GPU array";
}

std::string bad_dtype(const char* what, const std::string& dtype) {
    return std::string(what) + " dtype " + dtype + ": vfilter filters uint8 and uint16 samples";
}

// A torch.Tensor's fields read one by one (what its __cuda_array_interface__ would say, without
// building that dict); false for anything else, which takes the general path.
bool read_torch(py::handle t, GpuArray& a) {
    const TorchNames& names = torch_names();
    if (Py_TYPE(t.ptr()) != names.tensor) return false;
    const py::object dtype = attribute(t, names.dtype);
    if (dtype.is(names.uint8)) a.itemsize = 1;
    else if (!names.uint16.is_none() && dtype.is(names.uint16)) a.itemsize = 2;
    else return false;
    if (!attribute(t, names.layout).is(names.strided) || attribute(t, names.requires_grad).ptr() != Py_False) return false;
    a.device = static_cast<int>(as_int(attribute(t, names.get_device, true).ptr()));  // -1: not on a GPU
    if (a.device < 0) return false;
    a.ptr = static_cast<uintptr_t>(as_int(attribute(t, names.data_ptr, true).ptr()));
    read_ints(attribute(t, names.shape), a.shape, 1);
    read_ints(attribute(t, names.stride, true), a.strides, a.itemsize);
    return true;  // PyTorch's arrays name no stream: its work is ordered on the current one
}

void read_cuda_array_interface(const py::dict& cai, GpuArray& a, const char* what) {
    const std::string typestr = py::str(cai["typestr"]);
    const std::string kind = typestr.size() == 3 ? typestr.substr(1) : "";
    if ((kind != "u1" && kind != "u2") || (kind == "u2" && typestr[0] == '>')) throw py::type_error(bad_dtype(what, typestr));
    if (cai.contains("mask") && !cai["mask"].is_none()) throw py::type_error(std::string(what) + ": masked arrays are not supported");
    a.itemsize = kind == "u1" ? 1 : 2;
    const py::tuple data = cai["data"];
    a.ptr = data[0].cast<uintptr_t>();
    a.readonly = data[1].cast<bool>();
    for (py::handle n : cai["shape"]) a.shape.push_back(n.cast<int64_t>());
    if (cai.contains("strides") && !cai["strides"].is_none())
        for (py::handle s : cai["strides"]) a.strides.push_back(s.cast<int64_t>());
    if (cai.contains("stream") && !cai["stream"].is_none()) a.producer = cai["stream"].cast<int64_t>();  // CAI v3
}

void read_dlpack(py::handle obj, GpuArray& a, uintptr_t stream, const char* what) {
    const py::tuple device = obj.attr("__dlpack_device__")();
    const int type = device[0].cast<int>();
    if (type != kDLCUDA && type != kDLCUDAManaged)
        throw py::type_error(not_gpu(what));
    // The producer orders its work before `stream` (DLPack names the legacy default stream 1).
    py::capsule capsule = obj.attr("__dlpack__")(py::arg("stream") = stream == 0 ? 1 : stream);
    const DlpackFields f = dlpack_fields(capsule);
    if (f.code != kDLUInt || (f.bits != 8 && f.bits != 16) || f.lanes != 1)
        throw py::type_error(std::string(what) + ": vfilter filters uint8 and uint16 samples");
    a.itemsize = f.bits / 8;
    a.ptr = f.ptr;
    a.shape = f.shape;
    for (int64_t s : f.strides) a.strides.push_back(s * a.itemsize);
    a.device = f.device_id;
    a.keep = std::move(capsule);  // the tensor's memory is held while this lives
}

}  // namespace

bool GpuArray::plain() const {
    if (shape.size() < 2) return false;
    for (int64_t s : strides)
        if (s <= 0 || s % itemsize != 0) return false;
    return true;
}

std::pair<uintptr_t, uintptr_t> GpuArray::extent() const {
    int64_t last = 0;
    for (size_t i = 0; i < shape.size(); ++i) last += (shape[i] - 1) * strides[i];
    return {ptr, ptr + static_cast<uintptr_t>(last) + static_cast<uintptr_t>(itemsize)};
}

GpuArray read_gpu_array(py::handle obj, uintptr_t stream, const char* what) {
    GpuArray a;
    if (is_torch_object(obj) && read_torch(obj, a)) return a;
    const py::object cai = py::getattr(obj, "__cuda_array_interface__", py::none());
    if (!cai.is_none()) read_cuda_array_interface(cai, a, what);
    else if (py::hasattr(obj, "__dlpack_device__")) read_dlpack(obj, a, stream, what);
    else throw py::type_error(not_gpu(what));
    if (a.strides.empty()) {  // compact, row-major
        a.strides.assign(a.shape.size(), 0);
        int64_t step = a.itemsize;
        for (size_t i = a.shape.size(); i-- > 0;) {
            a.strides[i] = step;
            step *= a.shape[i];
        }
    }
    return a;
}

uintptr_t torch_current_stream(int device) {
    const TorchNames& names = torch_names();
    if (!names.raw_stream.is_none()) {
        const py::object handle = py::reinterpret_steal<py::object>(PyObject_CallFunction(names.raw_stream.ptr(), "i", device));
        if (!handle) throw py::error_already_set();
        return static_cast<uintptr_t>(as_int(handle.ptr()));
    }
    return names.cuda.attr("current_stream")(device).attr("cuda_stream").cast<uintptr_t>();
}

uintptr_t torch_current_stream(py::handle tensor) {
    return torch_current_stream(static_cast<int>(as_int(attribute(tensor, torch_names().get_device, true).ptr())));
}

}  // namespace vf
