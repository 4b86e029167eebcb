// Encodes video (libx264 by default; libx265, mpeg4, ffv1, rawvideo, or any FFmpeg encoder)
// and muxes it with the passthrough streams into a container chosen from the output name.
// Writes to "<out>.partial" and renames it to <out> only when the trailer is written.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "decode/source.hpp"
#include "encode/sink.hpp"

namespace vf {

struct OutputOptions {
    std::string path;
    std::string input_path;   // refused as output
    bool overwrite = false;   // -y
    std::string codec = "auto";  // auto: h264_nvenc when prefer_nvenc and the GPU has NVENC, else libx264
    bool prefer_nvenc = false;   // set when the filters run on the GPU
    std::optional<double> crf;
    std::string preset = "veryfast";
    std::string bitrate;      // "4M", "2500k", "800000"; empty = constant quality
};

// Resolves codec aliases (h264, hevc, ...; auto means libx264 here) to an encoder; throws Usage
// for unknown names.
const AVCodec* find_video_encoder(const std::string& name);

// Refuses an output that is the input, or that exists without -y. Throws Error(Output).
void check_output_path(const OutputOptions& options);

class OutputFile : public Sink {
public:
    OutputFile(const OutputOptions& options, const VideoInfo& video, const std::vector<PassthroughStream>& passthrough,
               const AVDictionary* metadata);
    ~OutputFile() override;

    void write_frame(const AVFrame* frame) override;
    void write_packet(PassthroughPacket& packet) override;
    void finish() override;
    std::string describe() const override;

private:
    void open(const OutputOptions& options, const VideoInfo& video, const std::vector<PassthroughStream>& passthrough,
              const AVDictionary* metadata);
    void release();  // closes and frees the muxer; removes the partial file unless finished
    int open_encoder(const AVCodec* codec);
    void drain_encoder();
    void write(AVPacket* packet);

    OutputOptions options_;
    std::string partial_path_;
    VideoInfo video_;
    AVFormatContext* mux_ = nullptr;
    AvCodecContextPtr encoder_;
    AVStream* video_stream_ = nullptr;
    std::map<int, int> stream_map_;  // source stream index -> output stream index
    std::map<int, AVRational> source_time_base_;
    AvPacketPtr packet_;
    AvFramePtr converted_;
    AvFramePtr sending_;  // a reference to the frame being sent, with the encoder's pts
    FrameConverter converter_;
    int64_t last_pts_ = AV_NOPTS_VALUE;
    bool finished_ = false;
};

}  // namespace vf
