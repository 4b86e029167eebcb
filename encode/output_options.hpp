// What the command line asks of an output: where it goes, how it is encoded and how it is written.
#pragma once

#include <optional>
#include <string>

#include "media/io_watchdog.hpp"

namespace vf {

struct OutputOptions {
    std::string path;
    std::string input_path;   // refused as output
    bool overwrite = false;   // -y
    std::string codec = "auto";  // auto: h264_nvenc when prefer_nvenc and the GPU has NVENC, else libx264
    bool prefer_nvenc = false;   // set when the filters run on the GPU
    int gpu = 0;                 // NVENC encodes on this GPU (the filters'), not on the first one
    std::optional<double> crf;
    std::string preset = "veryfast";
    std::string bitrate;      // "4M", "2500k", "800000"; empty = constant quality
    std::string format;       // container; empty: from the name (files), the protocol (network), mpegts (stdout)
    bool fragmented = false;  // MP4/MOV written as 1 s fragments, in place (crash-safe recording)
    double segment_s = 0;     // > 0: a new file every this many seconds (the name holds %d or strftime fields)
    double hls_time_s = 2;    // HLS outputs (.m3u8): seconds a segment
    bool hls_fmp4 = false;    // HLS outputs: fragmented MP4 segments (.m4s, with an init segment) instead of MPEG-TS
    int hls_window = 6;       // HLS outputs of live inputs: segments the playlist lists; older ones are deleted
    bool live = false;        // the input is live: keyframes every 2 s for fragments, segments and viewers
    bool low_latency = false; // no B-frames, no look-ahead (x264 tune zerolatency), packets flushed at once
    int encoder_threads = 0;  // 0: the encoder's own choice (x264: 1.5 per core)
    bool bitexact = false;    // no library versions or dates in the container or the stream (ffmpeg's -bitexact)
    bool time_base_from_frame_rate = false;  // 1/frame rate, ffmpeg's time base; else the input's (timestamps exact)
    bool packets_only = false;  // encoded for the packet tap alone (serve's clips): nothing written
    double timeout_s = kDefaultNetworkTimeoutS;  // a network output that accepts nothing this long fails
};

}  // namespace vf
