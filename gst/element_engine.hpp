// What the GStreamer element filters with: the command line's own filter strings, chain building
// and filter stage (CPU, or the GPU stage with its prepared chains), driven one frame at a time.
// No GStreamer here, so it is the same code path as `vfilter -f ...` and testable on its own.
//
// Thread use: settings (check/set_filter) come from the application's thread while frames are
// filtered on GStreamer's streaming thread; a new filter applies from the next frame.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "config/options.hpp"
#include "media/av_helpers.hpp"
#include "pipeline/filter_stage.hpp"

namespace vf {

struct ElementSettings {
    FilterChain filter;  // compiled where the property was set
    FilterDefaults compat = FilterDefaults::Vfilter;
    DeviceChoice device = DeviceChoice::Auto;
    int gpu_id = 0;
    KernelChoice kernel;
};

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
    // A new compiled chain from the next frame; throws Error(Usage) and keeps the old one when
    // it cannot run on these frames.
    void set_filter(const FilterChain& chain);
    // True when the current chain changes nothing (the element then passes buffers through).
    bool identity() const;
    std::string describe() const;  // "sobel on the CPU" for the log

private:
    std::vector<FilterPlan> chain_for(const FilterChain& chain) const;

    ElementSettings settings_;
    std::shared_ptr<GpuRuntime> runtime_;  // the elements' shared one, while filtering on a GPU
    FrameGeometry geometry_;
    Device device_ = Device::Cpu;
    mutable std::mutex mutex_;  // identity_, description_
    bool identity_ = true;
    std::string description_;
    std::unique_ptr<FilterStage> stage_;
    std::unique_ptr<FramePool> planes_;  // packed RGB's planes (gbrp, gbrap), while the frames are packed RGB
    bool planes_on_gpu_ = false;         // they and the frames are GPU memory (GStreamer's CUDA buffers)
};

}  // namespace vf
