// Everything a run needs, as the command line (app/cli.cpp) fills it in.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "common/logging.hpp"

namespace vf {

struct RunOptions {
    std::string input;            // empty: the built-in synthetic source
    std::string output;           // a file, or "null" to discard
    std::string filter = "identity";
    bool overwrite = false;
    std::string codec = "auto";   // auto: NVENC when filtering on a GPU that has it, else libx264
    std::optional<double> crf;
    std::string preset = "veryfast";
    std::string bitrate;
    bool no_audio = false;
    int threads = 0;              // CPU filter threads; 0 = one per core
    std::string device = "auto";  // auto | cpu | cuda
    std::string kernel = "auto";  // GPU path: auto | naive | constant | tiled | separable | fft
    std::string hwdec = "auto";   // auto | cuda | none: NVDEC decoding when filtering on the GPU
    int decoder_threads = 0;      // 0: FFmpeg's choice on the CPU, 1 with NVDEC
    int gpu_streams = 6;          // CUDA streams (frames in flight) in the GPU stage: 6 measured best
    double timeout_s = -1;        // --timeout; <0: 10 s for network inputs, none for local ones
    std::string allow_protocols;  // empty: local inputs may use file,pipe; network inputs network protocols
    // Live inputs and outputs
    std::string rtsp_transport = "tcp";  // tcp | udp
    std::string input_size, input_format;  // capture devices
    double input_fps = 0;
    bool realtime = false;              // pace the input by its timestamps (ffmpeg -re)
    std::string on_overload = "auto";   // drop | block | auto (drop for live inputs, block for files)
    int reconnect_max = -1;             // live inputs: attempts per outage; -1 forever, 0 never
    double reconnect_delay_s = 1;       // first wait, doubled per attempt up to 30 s
    std::string out_format;             // container; empty: from the name / protocol
    std::string fragmented = "auto";    // auto (live inputs to MP4/MOV) | yes | no
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
