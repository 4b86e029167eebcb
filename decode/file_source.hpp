// Demuxes and decodes any input FFmpeg opens (file, URL, '-' for stdin) with frame threading.
// Video frames come out in a native pixel format at the first frame's size (converted once with
// libswscale when needed); audio and subtitle packets come out untouched for passthrough.
#pragma once

#include <string>
#include <vector>

#include "decode/source.hpp"

namespace vf {

struct FileSourceOptions {
    std::string url;
    bool passthrough_audio = true;  // audio and subtitle streams
    int decoder_threads = 0;        // 0 = FFmpeg's choice (all cores)
};

class FileSource : public Source {
public:
    explicit FileSource(const FileSourceOptions& options);
    ~FileSource() override;

    const VideoInfo& video() const override { return info_; }
    std::vector<PassthroughStream> passthrough() const override { return passthrough_; }
    const AVDictionary* metadata() const override { return format_->metadata; }
    std::string describe() const override;
    std::optional<PipelineItem> read() override;
    DecodeHealth health() const override;

private:
    std::optional<PipelineItem> deliver(AvFramePtr decoded);
    void check_truncation();

    FileSourceOptions options_;
    AvInputPtr format_;
    AvCodecContextPtr decoder_;
    int video_index_ = -1;
    VideoInfo info_;
    std::vector<PassthroughStream> passthrough_;
    std::vector<char> is_passthrough_;
    AvPacketPtr packet_;
    AvFramePtr receiving_;  // the decoder writes here; a new one is made only after handing it on
    FrameConverter converter_;
    bool draining_ = false;
    bool warned_resize_ = false;
    int64_t next_index_ = 0;
    double furthest_s_ = 0;  // the latest packet end seen on any stream
    DecodeHealth health_;
};

}  // namespace vf
