#include "app/run/run_parts.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "common/error.hpp"
#include "decode/file_source.hpp"
#include "decode/pattern_url.hpp"
#include "decode/synthetic_source.hpp"
#include "encode/hls_output.hpp"
#include "encode/output_target.hpp"
#include "media/host_memory.hpp"

#ifdef VF_HAVE_CUDA
#include "kernels/cuda_backend.hpp"
#endif

namespace vf {

Device resolve_device(DeviceChoice choice, const KernelChoice& kernel) {
    if (!kernel.is_auto() && choice == DeviceChoice::Cpu)
        fail(ErrorCategory::Usage, "--kernel selects a GPU path; it needs --device cuda");
    if (choice == DeviceChoice::Cpu) return Device::Cpu;
#ifdef VF_HAVE_CUDA
    std::string why, detail;
    if (cuda_device_available(&why, &detail)) return Device::Cuda;
    if (choice == DeviceChoice::Cuda) fail(ErrorCategory::Device, "--device cuda: " + why + " (" + detail + ")");
    spdlog::info("{}; filtering on the CPU", why);
    spdlog::debug("{}", detail);
#else
    if (choice == DeviceChoice::Cuda)
        fail(ErrorCategory::Device, "--device cuda: this vfilter was built without CUDA; use --device cpu");
#endif
    return Device::Cpu;
}

int gpu_frames_of(const RunFilter& f, const RunContext& c) {
    const int frames = f.gpu_streams.value_or(kDefaultGpuStreams);
    return c.low_latency ? std::min(frames, 2) : frames;
}

SourcePart make_source(const RunInput& in, const RunOutput& out, const RunContext& c, int queue_frames, int gpu_frames) {
    HwDecode hwdec = in.hwdec;
    if (hwdec == HwDecode::Cuda && c.device != Device::Cuda)
        fail(ErrorCategory::Usage, "--hwdec cuda decodes into GPU memory for the GPU filters; it needs --device cuda (or auto with a GPU)");
    if (c.device != Device::Cuda) hwdec = HwDecode::None;
    // Frames for the GPU land in page-locked memory, so their upload is a DMA with no host copy.
    const BufferAllocator host_alloc = c.device == Device::Cuda ? c.gpu_device->page_locked()->allocator() : BufferAllocator();
    SourcePart part;
    part.queue_frames = c.low_latency ? std::min(queue_frames, 2) : queue_frames;
    if (in.url.empty()) {
        part.source = std::make_unique<SyntheticSource>(1280, 720, 30, 300, AV_PIX_FMT_YUV420P, host_alloc);
        return part;
    }
    if (is_pattern_url(in.url)) {
        part.source = std::make_unique<SyntheticSource>(parse_pattern_url(in.url), host_alloc);
        return part;
    }
    FileSourceOptions s;
    s.url = in.url;
    s.passthrough_audio = !out.no_audio && !c.null_output;
    s.frame_alloc = host_alloc;
    s.decoder_threads = in.decoder_threads.value_or(0);
    s.software_decoder_threads = c.placement.decoder_thread_share;
    s.allowed_protocols = in.allow_protocols;
    s.timeout_s = in.timeout_s.value_or(-1);
    s.hwdec = hwdec;
    s.seek_s = in.window.input_start.value_or(0);
    s.live.rtsp_transport = in.rtsp_transport;
    s.live.input_size = in.size;
    s.live.input_fps = in.fps;
    s.live.input_format = in.format;
    s.video_decoder = in.decoder;
    s.live.low_latency = c.low_latency;
    s.realtime = in.realtime;
    s.reconnect_max = in.reconnect_max;
    s.reconnect_delay_s = in.reconnect_delay_s;
    s.nvdec_decoder = in.nvdec_decoder;
    s.nvdec_share = c.placement.nvdec_share;
    s.nvdec_wait_on_cpu = c.placement.nvdec_wait_on_cpu;
    s.gpu_index = c.placement.gpu;  // NVDEC decodes on the filters' GPU: its frames never cross GPUs
    if (c.gpu_device) s.nvdec_device = c.gpu_device->nvdec();
    s.decoder_movable = c.placement.decoder_movable && c.device == Device::Cuda;
    // NVDEC has a few dozen surfaces; every decoded frame queued or in flight holds one.
    if (hwdec != HwDecode::None || s.decoder_movable) part.queue_frames = std::min(part.queue_frames, 4);
    s.hw_frames_held = part.queue_frames + gpu_frames + 1;
    part.source = std::make_unique<FileSource>(s);
    return part;
}

std::unique_ptr<FilterStage> make_filter_stage(const RunFilter& f, std::vector<FilterPlan> chain, const RunContext& c,
                                               AVRational time_base, double time_origin_s) {
    if (f.frames_on_device && c.device != Device::Cuda)
        fail(ErrorCategory::Usage, "frames on the GPU need the GPU filter stage (device cuda)");
    FilterStageOptions o;
    o.device = c.device;
    o.threads = f.threads.value_or(0);
    o.gpu_kernel = f.kernel;
    o.gpu = c.gpu_device;
    o.gpu_output_on_device = f.frames_on_device;
    o.gpu_streams = gpu_frames_of(f, c);
    o.time_base = time_base;
    o.time_origin_s = time_origin_s;
    return std::make_unique<FilterStage>(std::move(chain), o);
}

OutputConversion output_conversion(const RunOptions& o, const VideoInfo& video, bool null_output) {
    OutputConversion c;
    c.width = o.output.scale_width;
    c.height = o.output.scale_height;
    c.scale_flags = o.output.scale_flags;
    if (o.output.rate_num > 0) {
        c.rate = AVRational{o.output.rate_num, o.output.rate_den};
        const AVOutputFormat* f = av_guess_format(null_output ? "null" : o.output.format.empty() ? nullptr : o.output.format.c_str(),
                                                  o.output.path.c_str(), nullptr);
        c.sync = default_video_sync(f, video.input_streams == 1);
        c.max_frames = o.pipeline.max_frames;  // -frames:v counts the frames written
        c.filtered = o.filter.chain.shared() != identity_chain();
        c.duration_s = o.input.window.output_duration.value_or(0);
    }
    return c;
}

OutputOptions output_options(const RunOutput& out, const RunInput& in, const RunContext& c) {
    OutputOptions o;
    o.path = out.path;
    o.format = out.format;
    o.segment_s = out.segment_s;
    o.hls_time_s = out.hls_time_s;
    o.hls_fmp4 = out.hls_fmp4;
    o.hls_window = out.hls_window;
    o.low_latency = c.low_latency;
    o.input_path = in.url;
    o.overwrite = out.overwrite;
    o.codec = out.codec;
    o.prefer_nvenc = c.device == Device::Cuda;
    o.gpu = c.placement.gpu;
    o.crf = out.crf;
    o.preset = preset_of(out, c.low_latency);
    o.bitrate = out.bitrate;
    o.encoder_threads = out.encoder_threads.value_or(0);
    o.bitexact = out.bitexact;
    o.time_base_from_frame_rate = out.time_base == OutputTimeBase::FrameRate;
    o.packets_only = out.packets_only;
    return o;
}

void check_retention_fits(const RunOutput& out) {
    if ((out.retain_s || out.retain_bytes) && out.segment_s <= 0)
        fail(ErrorCategory::Usage, "--retain and --retain-size delete old --segment recordings: add --segment SECONDS");
}

void output_options_for_input(OutputOptions& o, const RunOutput& out, const RunInput& in, bool live) {
    o.live = live;
    o.fragmented = !is_hls_output(o) && (out.fragmented == FragmentedMode::Yes ||
                                         (out.fragmented == FragmentedMode::Auto && live && output_kind(out.path) == OutputKind::File));
    if (in.timeout_s) o.timeout_s = *in.timeout_s;  // 0: never, as for inputs
}

}  // namespace vf
