// What the GStreamer element filters with: the command line's own filter strings, chain building
// and filter stage (CPU, or the GPU stage with its prepared chains), driven one frame at a time.
// No GStreamer here, so it is the same code path as `vfilter -f ...` and testable on its own.
// On the GPU with frames in system memory, several frames are in flight at once (submit/take), as
// in the command line's GPU stage: their uploads, kernels and downloads overlap on its streams.
//
// Thread use: settings (check/set_filter) come from the application's thread while frames are
// filtered on GStreamer's streaming thread; a new filter applies from the next frame.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "config/options.hpp"
#include "media/av_helpers.hpp"
#include "pipeline/filter_stage.hpp"

namespace vf {

// The time base of the frames' pts the element hands over: GStreamer's nanoseconds, its buffers'
// PTS (enable='...t...': t is that in seconds; n counts the frames filtered since the caps were set).
constexpr AVRational kGstFrameTimeBase = {1, 1000000000};

struct ElementSettings {
    FilterChain filter;  // compiled where the property was set
    FilterDefaults compat = FilterDefaults::Vfilter;
    DeviceChoice device = DeviceChoice::Auto;
    int gpu_id = 0;
    KernelChoice kernel;
    // Frames on the GPU at once (its CUDA streams) when the frames are system memory; the
    // command line's default, the count that keeps the copy engines and the kernels busy.
    int frames_in_flight = kDefaultGpuStreams;
};

// Tests: the engine elements filter through with frames in flight where they would use the GPU
// (any device but `cpu`), made from the chain and the frames in flight (a CpuFrameEngine: the
// element's frames-in-flight path without a GPU). Empty (the default): the GPU's own.
using ElementFrameEngineFactory = std::function<std::unique_ptr<FrameEngine>(const std::vector<FilterPlan>&, int frames_in_flight)>;
void set_element_frame_engine_for_tests(ElementFrameEngineFactory factory);

class ElementEngine {
public:
    // Checks a compiled chain as far as it can be without frames (what its filters need of each
    // other and of the kernel asked for); throws Error(Usage) with the command line's one-line reason.
    static void check_filter(const FilterChain& chain, FilterDefaults compat, const KernelChoice& kernel);

    // Ready to filter frames of this size and native format (media/av_helpers is_native_format),
    // or packed RGB whose planes are one (media/rgb_planes.hpp).
    // gpu_memory: the frames' planes are GPU memory and the results stay there (GStreamer's CUDA
    // buffers); it needs the GPU. Throws Error: Usage for a chain that cannot run on these
    // frames, Device when the GPU was asked for (or is needed) and none answers.
    ElementEngine(const ElementSettings& settings, int width, int height, AVPixelFormat format, bool gpu_memory = false);
    ~ElementEngine();

    // Filters one frame (the caller's planes, read and not kept) into a frame of the engine's
    // own; the input frame itself for a chain that changes nothing. Packed RGB comes back as its
    // planes (gbrp, gbrap: copy_into writes them back packed).
    AvFramePtr filter(AvFramePtr in);
    // Frames in flight (system memory with the GPU): submit() starts `in` (the caller's planes,
    // which must stay valid until its result is taken), may first wait for the oldest frame in
    // flight; take() gives the results in submission order, nullptr when none is pending or, with
    // wait=false, while the oldest still runs. The result may be `in` itself (a chain that
    // changes nothing). Packed RGB comes back as its planes, as from filter().
    void submit(AvFramePtr in);
    AvFramePtr take(bool wait);
    // Frames the engine keeps in flight: 1 where each frame is finished inside submit() (the CPU,
    // CUDA memory).
    int frames_in_flight() const { return frames_in_flight_; }
    // The page-locked memory the GPU copies frames from at full speed (the runtime's), for buffers
    // offered upstream; null where frames do not go through host memory to a GPU.
    const std::shared_ptr<PageLockedStore>& page_locked() const { return page_locked_; }
    // A new compiled chain from the next frame; throws Error(Usage) and keeps the old one when
    // it cannot run on these frames.
    void set_filter(const FilterChain& chain);
    // True when the current chain changes nothing (the element then passes buffers through).
    bool identity() const;
    std::string describe() const;  // "sobel on the CPU" for the log

private:
    std::vector<FilterPlan> chain_for(const FilterChain& chain) const;
    AvFramePtr as_planes(AvFramePtr in);  // packed RGB as the planes the stage filters
    void make_stage(std::vector<FilterPlan> chain, bool gpu_memory);
    void make_injected_stage(std::vector<FilterPlan> chain, const ElementFrameEngineFactory& factory);

    ElementSettings settings_;
    std::shared_ptr<GpuRuntime> runtime_;  // the elements' shared one, while filtering on a GPU
    FrameGeometry geometry_;
    Device device_ = Device::Cpu;
    mutable std::mutex mutex_;  // identity_, description_
    bool identity_ = true;
    std::string description_;
    std::unique_ptr<FilterStage> stage_;
    int frames_in_flight_ = 1;
    std::shared_ptr<PageLockedStore> page_locked_;
    std::unique_ptr<FramePool> planes_;  // packed RGB's planes (gbrp, gbrap), while the frames are packed RGB
    bool planes_on_gpu_ = false;         // they and the frames are GPU memory (GStreamer's CUDA buffers)
};

}  // namespace vf
