// Everything a run needs, as the command line (app/cli.cpp) fills it in. Choices among a few
// values are enums, parsed once at the command line: no library below it sees their strings.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "common/logging.hpp"
#include "config/filter_registry.hpp"
#include "kernels/gpu_kernel.hpp"

namespace vf {

enum class DeviceChoice { Auto, Cpu, Cuda };        // --device: auto = the GPU when one answers
enum class HwDecode { None, Cuda, Auto };           // --hwdec: auto = NVDEC when it can decode the stream
enum class OverloadPolicy { Auto, Drop, Block };    // --on-overload: auto = drop for live inputs
enum class FragmentedMode { Auto, Yes, No };        // --fragmented: auto = for live inputs to MP4/MOV files

struct RunOptions {
    std::string input;            // empty: the built-in synthetic source
    std::string output;           // a file, or "null" to discard
    std::string filter = "identity";
    FilterDefaults compat = FilterDefaults::Vfilter;  // --compat ffmpeg: FFmpeg's defaults for filter strings
    bool overwrite = false;
    std::string codec = "auto";   // auto: NVENC when filtering on a GPU that has it, else libx264
    std::optional<double> crf;
    std::string preset = "veryfast";
    std::string bitrate;
    bool no_audio = false;
    int threads = 0;              // CPU filter threads; 0 = one per core
    DeviceChoice device = DeviceChoice::Auto;
    KernelChoice kernel;          // auto, a family or a row of the GPU dispatch table
    HwDecode hwdec = HwDecode::Auto;  // NVDEC decoding when filtering on the GPU
    int decoder_threads = 0;      // 0: FFmpeg's choice on the CPU, 1 with NVDEC
    int encoder_threads = 0;      // 0: the encoder's choice (x264: 1.5 per core)
    int decoder_thread_share = 0; // serve: decoder threads when decoder_threads is 0 (NVDEC: up to 3, at least 1)
    int gpu_streams = 6;          // CUDA streams (frames in flight) in the GPU stage: 6 measured best
    int gpu_index = 0;            // the GPU (CUDA device number) to run on: serve --gpus places streams
    int batch_wait_us = -1;       // serve --batch-wait: >= 0 filters through the device's shared batch window
    bool frames_on_device = false;  // GPU results stay in device memory (Python's Frames on the GPU): no download
    double timeout_s = -1;        // --timeout; <0: 10 s for network inputs, none for local ones
    std::string allow_protocols;  // empty: local inputs may use file,pipe; network inputs network protocols
    // Live inputs and outputs
    std::string rtsp_transport = "tcp";  // tcp | udp
    std::string input_size, input_format;  // capture devices
    double input_fps = 0;
    bool realtime = false;              // pace the input by its timestamps (ffmpeg -re)
    OverloadPolicy on_overload = OverloadPolicy::Auto;
    int reconnect_max = -1;             // live inputs: attempts per outage; -1 forever, 0 never
    double reconnect_delay_s = 1;       // first wait, doubled per attempt up to 30 s
    std::string out_format;             // container; empty: from the name / protocol
    FragmentedMode fragmented = FragmentedMode::Auto;
    double segment_s = 0;               // > 0: a new output file every this many seconds
    bool low_latency = false;           // zero-latency encoding, small queues, no demuxer buffering
    int metrics_port = -1;              // < 0: no metrics endpoint
    std::string metrics_bind = "127.0.0.1";
    std::string stats_json;
    int verbosity = 0;
    LogFormat log_format = LogFormat::Text;
    int queue_frames = 8;
    int64_t max_frames = 0;
    bool progress = true;
};

}  // namespace vf
