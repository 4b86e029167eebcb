// vfilter's Python module (_vfilter, wrapped by python/vfilter/__init__.py): the filter table's
// chains applied to NumPy planes on the CPU backend, and whole runs of the pipeline. The Python
// side turns arrays of any supported shape into 2-D plane views (no copies); this side checks
// each view, releases the GIL and filters.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <cstring>
#include <chrono>
#include <map>
#include <mutex>
#include <thread>

extern "C" {
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
}

#include <nlohmann/json.hpp>

#include "app/run/job.hpp"
#include "app/run/stream_options.hpp"
#include "common/error.hpp"
#include "config/filter_registry.hpp"
#include "config/filter_spec.hpp"
#include "config/filter_table_json.hpp"
#include "encode/sink.hpp"
#include "pipeline/bounded_queue.hpp"
#include "kernels/cpu_backend.hpp"
#include "pipeline/stats.hpp"
#include "compiled_chain.hpp"
#include "gpu_array.hpp"
#include "gpu_call.hpp"
#include "plane_layout.hpp"
#include "device_arrays.hpp"
#include "gpu_apply.hpp"

namespace py = pybind11;

namespace vf {
namespace {

// Errors by category, as docs/python.md lists them.
void translate(const Error& e) {
    switch (e.category()) {
    case ErrorCategory::Usage:
        PyErr_SetString(PyExc_ValueError, e.what());
        return;
    case ErrorCategory::Input:
    case ErrorCategory::Output:
        PyErr_SetString(PyExc_OSError, e.what());
        return;
    default:
        PyErr_SetString(PyExc_RuntimeError, e.what());
        return;
    }
}

// A 2-D NumPy array (any strides with whole samples) as a PlaneView.
PlaneView plane_of(const py::array& a, int bits, bool writable, const char* what) {
    if (a.ndim() != 2) throw Error(ErrorCategory::Usage, std::string(what) + ": a plane has 2 dimensions");
    const py::ssize_t item = a.itemsize();
    if (item != 1 && item != 2) throw Error(ErrorCategory::Usage, std::string(what) + ": samples must be uint8 or uint16");
    if (writable && !a.writeable()) throw Error(ErrorCategory::Usage, std::string(what) + ": the output array is read-only");
    if (a.strides(1) <= 0 || a.strides(1) % item != 0 || a.strides(0) <= 0)
        throw Error(ErrorCategory::Internal, std::string(what) + ": unsupported strides (the wrapper copies such arrays)");
    if (a.shape(0) > 65535 || a.shape(1) > 65535) throw Error(ErrorCategory::Usage, std::string(what) + ": planes up to 65535 a side");
    PlaneView v;
    v.data = static_cast<uint8_t*>(const_cast<void*>(a.data()));
    v.pitch = a.strides(0);
    v.width = static_cast<int>(a.shape(1));
    v.height = static_cast<int>(a.shape(0));
    v.step = static_cast<int>(a.strides(1) / item);
    v.bytes_per_sample = static_cast<int>(item);
    v.depth = bits;
    return v;
}

// Filters every (src, dst) pair with the chain's first-channel operations: each plane of a NumPy
// image is one channel of its own, as a gray frame is on the command line.
void apply_planes(CompiledPlaneChain& compiled, const std::vector<py::array>& srcs, const std::vector<py::array>& dsts, int bits,
                  int threads, const CallMoment& when) {
    if (srcs.size() != dsts.size()) throw Error(ErrorCategory::Internal, "apply_planes: as many outputs as inputs");
    if (srcs.empty()) return;
    if (bits != 8 && bits != 10) throw Error(ErrorCategory::Usage, "bits must be 8 (uint8) or 10 (uint16)");
    std::vector<PlaneView> src, dst;
    for (size_t i = 0; i < srcs.size(); ++i) {
        src.push_back(plane_of(srcs[i], bits, false, "image"));
        dst.push_back(plane_of(dsts[i], bits, true, "out"));
        if (src.back().bytes_per_sample != dst.back().bytes_per_sample || src.back().width != dst.back().width ||
            src.back().height != dst.back().height)
            throw Error(ErrorCategory::Usage, "out must have the image's shape and dtype");
        if (bits > 8 && src.back().bytes_per_sample == 1) throw Error(ErrorCategory::Usage, "bits above 8 need uint16 samples");
        if (bits == 8 && src.back().bytes_per_sample == 2) throw Error(ErrorCategory::Usage, "uint16 samples are 10-bit (bits=10)");
    }
    const std::shared_ptr<const PlaneSizePlans> plans = compiled.plans(src[0].width, src[0].height);
    const std::vector<bool> applies = compiled.filters_applying(*plans, when, src[0].width, src[0].height);
    std::vector<const FilterPlan*> chain;  // the filters that apply to this frame (enable=)
    for (size_t f = 0; f < plans->cpu.size(); ++f)
        if (applies.empty() || applies[f]) chain.push_back(&plans->cpu[f]);
    py::gil_scoped_release unlocked;
    SharedCpuBackend& shared = shared_cpu_backend(threads);
    std::lock_guard<std::mutex> lock(shared.mutex);
    CpuBackend& backend = *shared.backend;
    std::vector<uint8_t> scratch[2];
    for (size_t i = 0; i < src.size(); ++i) {
        // Intermediate results of a chain in scratch planes; the last filter writes dst.
        PlaneView from = src[i];
        const PlaneView& to = dst[i];
        const size_t n = chain.size();
        if (n == 0) {
            for (int y = 0; y < to.height; ++y)
                for (int x = 0; x < to.width; ++x) to.write(x, y, from.read(x, y));
            continue;
        }
        for (size_t f = 0; f < n; ++f) {
            PlaneView out = to;
            if (f + 1 < n) {
                std::vector<uint8_t>& buf = scratch[f % 2];
                buf.resize(static_cast<size_t>(to.width) * to.height * to.bytes_per_sample);
                out.data = buf.data();
                out.pitch = static_cast<std::ptrdiff_t>(to.width) * to.bytes_per_sample;
                out.step = 1;
            }
            backend.apply(chain[f]->ops[0], from, out);
            from = out;
        }
    }
}

// The filter table as data (config/filter_table_json.cpp): names, help, options with their types,
// defaults, ranges and help, as Python lists and dicts.
py::object filters() { return py::module_::import("json").attr("loads")(filter_table_json().dump()); }

// The Python call's keyword arguments as stream fields of their own types: a bool is true/false,
// an int or float a number, a str text (os.PathLike is made a str by the wrapper).
StreamFields fields_of(const py::dict& arguments) {
    StreamFields fields;
    for (const auto& [name, value] : arguments) {
        const std::string key = py::str(name);
        if (py::isinstance<py::bool_>(value)) {
            const bool b = value.cast<bool>();
            fields[key] = FieldValue::of_boolean(b, b ? "true" : "false");
        } else if (py::isinstance<py::int_>(value) || py::isinstance<py::float_>(value)) {
            fields[key] = FieldValue::of_number(value.cast<double>(), py::str(value));
        } else if (py::isinstance<py::str>(value)) {
            fields[key] = value.cast<std::string>();
        } else {
            throw Error(ErrorCategory::Usage, "option '" + key + "': expected a str, a number or True/False, not " +
                                                  std::string(py::str(py::type::handle_of(value).attr("__name__"))));
        }
    }
    return fields;
}

// A whole run, as the command line makes it from the same options: the Python call's fields read
// by the command line's option table (an empty input is the built-in test pattern, as no --input
// is on the command line). The process's options (logs, progress, metrics, a summary file) are
// refused there, naming where they are set: the job reports nothing beyond its result, which is
// returned. Runs on a thread of its own while this one waits with the GIL free, looking for
// Ctrl-C every 50 ms: a KeyboardInterrupt stops the job as the first Ctrl-C stops the command
// (the output is finished), then propagates.
py::dict run(const py::dict& arguments) {
    Job job(stream_options_from_fields(fields_of(arguments)), module_gpu_runtime());
    JobResult result;
    std::exception_ptr error;
    std::atomic<bool> done{false};
    std::thread worker([&] {
        try {
            result = job.run();
        } catch (...) {
            error = std::current_exception();
        }
        done = true;
    });
    bool interrupted = false;
    while (!done) {
        {
            py::gil_scoped_release unlocked;
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        if (!interrupted && PyErr_CheckSignals() != 0) {
            interrupted = true;  // the KeyboardInterrupt stays set until we return
            job.interrupt();
        }
    }
    {
        py::gil_scoped_release unlocked;
        worker.join();
    }
    if (interrupted) throw py::error_already_set();
    if (error) std::rethrow_exception(error);
    nlohmann::json j = to_json(result.stats);
    j["damaged"] = result.damaged;
    j["interrupted"] = result.interrupted;
    return py::module_::import("json").attr("loads")(j.dump());
}

// Filtered frames on their way to Python: a few at a time (the pipeline waits when Python is
// slower; a live input then drops by its policy, as on the command line).
using FrameQueue = BoundedQueue<AvFramePtr>;
constexpr size_t kFramesWaiting = 4;

class PythonSink : public Sink {
public:
    explicit PythonSink(FrameQueue& queue) : queue_(queue) {}
    void write_frame(const AVFrame* frame, Clock::time_point read_at) override {
        AvFramePtr ref(av_frame_clone(frame));  // a reference, not a copy of the samples
        if (!ref) fail(ErrorCategory::Internal, "out of memory referencing a frame");
        queue_.push(std::move(ref));  // false once the reader closed: the frame is dropped
        latency_.add(read_at);
    }
    void write_packet(PassthroughPacket&) override {}
    void finish() override { queue_.close(); }
    std::string describe() const override { return "Python (vfilter.Frames)"; }

private:
    FrameQueue& queue_;
};

// One plane of a frame as a new NumPy array of its PlaneShape.
py::array plane_array(const AVFrame* f, int p) {
    const PlaneShape shape(f, p);
    py::array a(shape.wide ? py::dtype::of<uint16_t>() : py::dtype::of<uint8_t>(), shape.dims());
    auto* dst = static_cast<uint8_t*>(a.mutable_data());
    for (int64_t y = 0; y < shape.rows; ++y)
        std::memcpy(dst + y * shape.row_bytes, f->data[p] + y * f->linesize[p], static_cast<size_t>(shape.row_bytes));
    return a;
}

// vfilter.Frames: a Job whose sink hands frames to Python. next() waits with the GIL free and
// looks for Ctrl-C every 100 ms; close() stops the job (its source first) and joins its thread.
class FrameReader {
public:
    explicit FrameReader(const py::dict& arguments) {
        StreamFields f = fields_of(arguments);
        f["output"] = "null";  // the frames go to Python
        RunOptions o = stream_options_from_fields(f);
        // On the GPU the frames stay there: Python gets DevicePlanes over them, never a host copy.
        on_device_ = f.count("device") && f.at("device").text == "cuda";
        o.filter.frames_on_device = on_device_;
        gpu_ = o.placement.gpu;
        job_ = std::make_unique<Job>(o, [this](const VideoInfo& v) {
            time_base_ = v.time_base;
            frame_rate_ = v.frame_rate.num > 0 ? v.frame_rate : AVRational{30, 1};
            return std::make_unique<PythonSink>(queue_);
        }, module_gpu_runtime());
        thread_ = std::thread([this] {
            try {
                result_ = job_->run();
            } catch (...) {
                error_ = std::current_exception();
            }
            queue_.close();
        });
    }
    ~FrameReader() { stop(); }

    // The next frame as a dict, or None at the end of the input.
    py::object next() {
        for (;;) {
            AvFramePtr frame;
            FrameQueue::Popped got;
            {
                py::gil_scoped_release unlocked;
                got = closed_ ? FrameQueue::Popped::Ended : queue_.pop_for(std::chrono::milliseconds(100), &frame);
            }
            if (got == FrameQueue::Popped::Item) return to_dict(std::move(frame));
            if (got == FrameQueue::Popped::Ended) {
                finish();
                return py::none();
            }
            if (PyErr_CheckSignals() != 0) {
                close();
                throw py::error_already_set();
            }
        }
    }
    void close() {
        py::gil_scoped_release unlocked;
        stop();
    }
    py::object stats() const {
        if (!finished_) return py::none();
        nlohmann::json j = to_json(result_.stats);
        return py::module_::import("json").attr("loads")(j.dump());
    }

private:
    void stop() {
        if (!thread_.joinable()) return;
        job_->interrupt();
        queue_.abort();
        thread_.join();
        job_.reset();  // its threads (the filter's pool among them) go now, not with this object
        closed_ = true;
    }
    void finish() {
        {
            py::gil_scoped_release unlocked;
            if (thread_.joinable()) thread_.join();
            job_.reset();
        }
        closed_ = true;
        if (error_) {
            std::exception_ptr e = error_;
            error_ = nullptr;
            std::rethrow_exception(e);
        }
        finished_ = true;
    }
    py::dict to_dict(AvFramePtr frame) {
        const std::shared_ptr<const AVFrame> f(frame.release(), AvFrameDeleter{});
        py::list planes;
        for (int p = 0; p < av_pix_fmt_count_planes(static_cast<AVPixelFormat>(f->format)); ++p) {
            if (on_device_)
                planes.append(py::cast(DevicePlane(f, p, gpu_)));
            else
                planes.append(plane_array(f.get(), p));
        }
        py::dict d;
        d["planes"] = planes;
        d["format"] = av_get_pix_fmt_name(static_cast<AVPixelFormat>(f->format));
        d["width"] = f->width;
        d["height"] = f->height;
        // A frame without a timestamp (a live camera's first, at times) comes a frame interval
        // after the one before, as the encoder places it.
        double pts = f->pts != AV_NOPTS_VALUE ? f->pts * av_q2d(time_base_)
                     : f->best_effort_timestamp != AV_NOPTS_VALUE ? f->best_effort_timestamp * av_q2d(time_base_)
                     : index_ == 0 ? 0.0 : last_pts_ + 1 / av_q2d(frame_rate_);
        last_pts_ = pts;
        d["pts"] = pts;
        d["index"] = index_++;
        return d;
    }

    FrameQueue queue_{kFramesWaiting};
    std::unique_ptr<Job> job_;
    std::thread thread_;
    JobResult result_;
    std::exception_ptr error_;
    AVRational time_base_{1, 1}, frame_rate_{30, 1};
    double last_pts_ = 0;
    int64_t index_ = 0;
    bool closed_ = false, finished_ = false;
    bool on_device_ = false;
    int gpu_ = 0;
};

}  // namespace
}  // namespace vf

PYBIND11_MODULE(_vfilter, m) {
    m.doc() = "vfilter's native part: see the vfilter package";
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const vf::Error& e) {
            vf::translate(e);
        }
    });
    // vfilter.compile's chains: compiled once; plans per plane size and GPU chains kept inside.
    py::class_<vf::CompiledPlaneChain, std::shared_ptr<vf::CompiledPlaneChain>>(m, "Chain")
        .def(py::init<const std::string&, const std::string&, bool>(), py::arg("chain"), py::arg("border"),
             py::arg("ffmpeg_defaults"))
        .def_property_readonly("text", &vf::CompiledPlaneChain::text)
        .def(
            "apply_planes",
            [](vf::CompiledPlaneChain& c, const std::vector<py::array>& srcs, const std::vector<py::array>& dsts, int bits, int threads,
               std::optional<double> t, std::optional<int64_t> n, std::optional<double> pos) {
                vf::apply_planes(c, srcs, dsts, bits, threads, vf::CallMoment{t, pos, n});
            },
            py::arg("srcs"), py::arg("dsts"), py::arg("bits"), py::arg("threads"), py::arg("t") = py::none(),
            py::arg("n") = py::none(), py::arg("pos") = py::none())
        .def(
            "apply_gpu",
            [](vf::CompiledPlaneChain& c, py::handle image, py::handle out, std::optional<int> bits,
               const std::optional<std::string>& layout, std::optional<uintptr_t> stream, std::optional<double> t,
               std::optional<int64_t> n, std::optional<double> pos) {
                vf::apply_gpu(c, image, out, bits, layout, stream, vf::CallMoment{t, pos, n});
            },
            py::arg("image"), py::arg("out"), py::arg("bits"), py::arg("layout"), py::arg("stream"), py::arg("t") = py::none(),
            py::arg("n") = py::none(), py::arg("pos") = py::none())
        .def_property_readonly("timed", &vf::CompiledPlaneChain::timed);
    m.def("dlpack_info", &vf::dlpack_info, py::arg("capsule"));
    m.def("layout_of", &vf::layout_of, py::arg("shape"), py::arg("layout"));
    m.def(
        "plane_spans",
        [](const std::vector<int64_t>& shape, const std::vector<int64_t>& strides, const std::string& layout) {
            std::vector<std::tuple<int64_t, int64_t, int64_t, int64_t, int64_t>> spans;
            for (const vf::PlaneSpan& s : vf::plane_spans(shape, strides, layout))
                spans.emplace_back(s.offset, s.pitch, s.width, s.height, s.pixel_stride);
            return spans;
        },
        py::arg("shape"), py::arg("strides"), py::arg("layout"));
    m.def("torch_current_stream", py::overload_cast<py::handle>(&vf::torch_current_stream), py::arg("tensor"));
    // What a GPU array is read as (tests: a torch tensor read field by field equals its
    // __cuda_array_interface__).
    m.def(
        "gpu_array_fields",
        [](py::handle obj, uintptr_t stream) {
            const vf::GpuArray a = vf::read_gpu_array(obj, stream, "image");
            return py::make_tuple(a.ptr, py::tuple(py::cast(a.shape)), py::tuple(py::cast(a.strides)), a.itemsize, a.readonly);
        },
        py::arg("obj"), py::arg("stream"));
    m.def("built_with_cuda", &vf::built_with_cuda);
    vf::DevicePlane::bind(m);
    m.def("filters", &vf::filters);
    // How many filter strings this process has parsed (tests: one parse per call or change).
    m.def("filter_parse_count", &vf::filter_parse_count);
    m.def("run", &vf::run, py::arg("fields"));
    py::class_<vf::FrameReader>(m, "FrameReader")
        .def(py::init<const py::dict&>(), py::arg("fields"))
        .def("next", &vf::FrameReader::next)
        .def("close", &vf::FrameReader::close)
        .def("stats", &vf::FrameReader::stats);
}
