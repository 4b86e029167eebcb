// The three parts of a run, each made from its own typed options (config/options.hpp): the
// source from RunInput, the filter stage from RunFilter, the sink's options from RunOutput. Job
// assembles them (app/run/job.cpp); what one part must know of the others is passed as a RunContext.
#pragma once

#include <memory>
#include <vector>

#include "config/options.hpp"
#include "decode/source.hpp"
#include "encode/converting_sink.hpp"
#include "encode/output_options.hpp"
#include "kernels/plan.hpp"
#include "pipeline/filter_stage.hpp"

namespace vf {

// What the parts must know of each other.
struct RunContext {
    Device device = Device::Cpu;  // where the filters run
    bool null_output = false;     // the frames are discarded
    bool low_latency = false;
    StreamPlacement placement;    // what serve decided (defaults for a single run): placement.gpu runs the filters, NVDEC and NVENC
    std::shared_ptr<GpuDevice> gpu_device;  // that GPU in the job's runtime (device cuda)
};

// auto: the GPU when this build has CUDA and a device answers, else the CPU (said in one line).
Device resolve_device(DeviceChoice choice, const KernelChoice& kernel);

// The source of `in` (the built-in pattern when it names none), and the frames that may wait
// between stages (`queue`, lowered where NVDEC decodes: every decoded frame holds a surface).
struct SourcePart {
    std::unique_ptr<Source> source;
    int queue_frames = kDefaultQueueFrames;
};
SourcePart make_source(const RunInput& in, const RunOutput& out, const RunContext& c, int queue_frames, int gpu_frames);

// The filter stage of `chain` (built for the input's frames) as `f` asks, on c.device; the frames'
// pts are in `time_base` and enable='...t...' counts t from `time_origin_s` ({0, 1}: t unknown).
std::unique_ptr<FilterStage> make_filter_stage(const RunFilter& f, std::vector<FilterPlan> chain, const RunContext& c,
                                               AVRational time_base = {0, 1}, double time_origin_s = 0);
// Frames the filter stage keeps in flight on the GPU.
int gpu_frames_of(const RunFilter& f, const RunContext& c);

// --retain and --retain-size delete old --segment recordings: refused (Usage) without --segment.
void check_retention_fits(const RunOutput& out);

// The encoder's and muxer's options of `out`; `live` and what follows from it are set once the
// source is open (output_options_for_input).
// vfilter ffmpeg's -s and -r for frames of `video` written to `out` (the container decides -r's
// video sync, as in ffmpeg); nothing to do when neither is set.
OutputConversion output_conversion(const RunOptions& o, const VideoInfo& video, bool null_output);

OutputOptions output_options(const RunOutput& out, const RunInput& in, const RunContext& c);
// What the input decides of the output: live inputs get fragments (auto) and the input's timeout.
void output_options_for_input(OutputOptions& o, const RunOutput& out, const RunInput& in, bool live);

}  // namespace vf
