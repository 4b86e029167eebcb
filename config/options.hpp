// Everything a stream's run needs, typed once: what to read (RunInput), how to filter (RunFilter),
// where to write (RunOutput) and how the stages run (RunPipeline). The command line, a serve config entry
// and an API request fill these structs through one table of options (app/run/stream_options.cpp);
// nothing is turned back into strings and parsed again. Choices among a few values are enums;
// what the user did not set is an empty std::optional, so a default that depends on the context
// (serve's share of the threads, a low-latency preset) is decided where that context is known.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "config/filter_registry.hpp"
#include "media/recording_window.hpp"
#include "config/quantities.hpp"
#include "config/time_window.hpp"
#include "kernels/gpu_kernel.hpp"

namespace vf {

enum class DeviceChoice { Auto, Cpu, Cuda };        // --device: auto = the GPU when one answers
enum class HwDecode { None, Cuda, Auto };
// --nvdec-decoder: who drives NVDEC: FFmpeg's hwaccel (maps each frame as soon as it is sent) or
// vfilter's own (decode/nvdec_decoder.hpp: asks whether a frame is done, less CPU a frame).
enum class NvdecDecoderKind { Ffmpeg, Vfilter };           // --hwdec: auto = NVDEC when it can decode the stream
enum class OverloadPolicy { Auto, Drop, Block };    // --on-overload: auto = drop for live inputs
enum class FragmentedMode { Auto, Yes, No };        // --fragmented: auto = for live inputs to MP4/MOV files
enum class OutputTimeBase { Input, FrameRate };     // --time-base: the input's, or 1/frame rate (ffmpeg's)

// What to read and how (decode/).
struct RunInput {
    std::string url;                      // file, URL, capture device or "-"; empty: the built-in test pattern
    HwDecode hwdec = HwDecode::Auto;      // NVDEC decoding when filtering on the GPU
    std::optional<int> decoder_threads;   // unset: FFmpeg's choice on the CPU, 1 with NVDEC
    std::optional<double> timeout_s;      // unset: 10 s for network inputs, none for local ones; 0: never
    std::string allow_protocols;          // empty: file,pipe for local inputs, network protocols for URLs
    std::string rtsp_transport = "tcp";   // tcp | udp
    std::string size, format;             // capture devices: size and pixel format or codec to ask for
    std::string decoder;                  // the video decoder by name (ffmpeg's -c:v before -i); empty: the stream's own
    double fps = 0;                       // capture devices: frame rate to ask for
    bool realtime = false;                // pace the input by its timestamps (ffmpeg -re)
    int reconnect_max = -1;               // live inputs: attempts per outage; -1 forever, 0 never
    double reconnect_delay_s = 1;         // first wait, doubled per attempt up to 30 s
    NvdecDecoderKind nvdec_decoder = NvdecDecoderKind::Ffmpeg;  // what drives NVDEC for H.264
    std::optional<bool> wait_for_input;   // an input that cannot be opened yet is retried as a reconnect;
                                          // unset: serve waits, a single run fails at once
    TimeWindow window;                    // vfilter ffmpeg's -ss, -t, -to; unset: all of it
};

// How to filter, and where (config/, kernels/, the filter stage).
struct RunFilter {
    FilterChain chain;                    // compiled once where it came in (identity unless set)
    FilterDefaults compat = FilterDefaults::Vfilter;  // --compat ffmpeg: FFmpeg's defaults for filter strings
    KernelFiles kernel_files;             // where file= kernels may be read (an API client's chain: --kernel-dir only)
    DeviceChoice device = DeviceChoice::Auto;
    KernelChoice kernel;                  // auto, a family or a row of the GPU dispatch table
    std::optional<int> threads;           // CPU filter threads; unset: one per core
    std::optional<int> gpu_streams;       // CUDA streams (frames in flight) in the GPU stage; unset: 6
    bool frames_on_device = false;        // GPU results stay in device memory (Python's Frames on the GPU)
};

// Where the frames go and how they are encoded (encode/).
struct RunOutput {
    std::string path;                     // a file, a URL, "-" (stdout) or "null" to discard
    std::string format;                   // container; empty: from the name / protocol
    bool overwrite = false;
    std::string codec = "auto";           // auto: NVENC when filtering on a GPU that has it, else libx264
    std::optional<double> crf;
    std::optional<std::string> preset;    // unset: veryfast (superfast with --low-latency)
    std::string bitrate;
    std::optional<int> encoder_threads;   // unset: the encoder's choice (x264: 1.5 per core)
    bool no_audio = false;                // leave audio and subtitles out
    // vfilter ffmpeg's -s WxH and -r: frames scaled after the filters (libswscale with
    // scale_flags, -sws_flags), and the output's frame rate as ffmpeg's video sync makes it for
    // the container (frames dropped or repeated). 0: the frames' own size and times.
    int scale_width = 0, scale_height = 0;
    std::string scale_flags = "bicubic";
    int rate_num = 0, rate_den = 1;
    FragmentedMode fragmented = FragmentedMode::Auto;
    double segment_s = 0;                 // > 0: a new output file every this many seconds
    std::optional<double> retain_s;       // --segment: finished recordings older than this are deleted
    std::optional<int64_t> retain_bytes;  // --segment: finished recordings beyond this size are deleted, oldest first
    double hls_time_s = 2;                // .m3u8 outputs: the length of each segment
    bool hls_fmp4 = false;                // .m3u8 outputs: fragmented MP4 segments (.m4s) instead of MPEG-TS (.ts)
    int hls_window = 6;                   // .m3u8 outputs of live inputs: segments the playlist keeps; older ones are deleted
    bool bitexact = false;                // no library versions or dates in the output (ffmpeg's -bitexact)
    OutputTimeBase time_base = OutputTimeBase::Input;
    // serve's clips alone (clips.only): encoded for the clips around events, the file not written.
    bool packets_only = false;
};

// How the stages run between input and output (pipeline/).
struct RunPipeline {
    std::optional<int> queue_frames;      // frames between stages; unset: 8
    int64_t max_frames = 0;               // stop after this many; 0: all
    OverloadPolicy on_overload = OverloadPolicy::Auto;
    bool low_latency = false;             // zero-latency encoding, small queues, no input buffering
};

// What serve decides for a stream, never its user (app/serve/stream_service.cpp): the GPU it runs
// on and how it decodes. A single run keeps the defaults.
struct StreamPlacement {
    int gpu = 0;                     // the GPU (CUDA device number) of its filters, NVDEC and NVENC
    int decoder_thread_share = 0;    // decoder threads when the stream's decoder-threads is unset
    bool nvdec_share = false;        // vfilter's NVDEC decoders shared by a GPU's streams of one size
    bool decoder_movable = false;    // may move between NVDEC and the CPU at a key frame (placed by load)
    bool nvdec_wait_on_cpu = false;  // with nvdec_share: decodes on the CPU until its shared decoder has room
    // A camera handed between shards (serve with a store): when its frames are written (null: always).
    std::shared_ptr<RecordingWindow> recording_window;
};

// A whole run of one stream: what the user asks of it (the four parts) and what serve decided for
// it. What belongs to the process rather than to one stream (logs, progress, metrics, summary
// file, the recordings' free-space floor) is not here: app/run/process_options.hpp.
struct RunOptions {
    RunInput input;
    RunFilter filter;
    RunOutput output;
    RunPipeline pipeline;
    StreamPlacement placement;
};

// The defaults of what the user may leave unset, in one place.
constexpr int kDefaultGpuStreams = 6;     // frames in flight on the GPU: the best of the counts timed (docs/benchmarks.md)
constexpr int kDefaultQueueFrames = 8;
inline std::string preset_of(const RunOutput& o, bool low_latency) {
    // Low latency: one frame's encode time is the latency, so a faster preset is the better default.
    return o.preset ? *o.preset : (low_latency ? "superfast" : "veryfast");
}

}  // namespace vf
