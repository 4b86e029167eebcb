// Demuxes and decodes any input FFmpeg opens (file, URL, '-' for stdin) with frame threading.
// Video frames come out in a native pixel format at the first frame's size (converted once with
// libswscale when needed); audio and subtitle packets come out untouched for passthrough.
#pragma once

#include <string>
#include <vector>

#include "decode/decoder_buffers.hpp"
#include "decode/hw_decode.hpp"
#include "decode/io_watchdog.hpp"
#include "decode/source.hpp"

namespace vf {

struct FileSourceOptions {
    std::string url;
    bool passthrough_audio = true;  // audio and subtitle streams
    int decoder_threads = 0;        // 0 = FFmpeg's choice (all cores)
    BufferAllocator frame_alloc = nullptr;  // decoded frames' memory (nullptr: FFmpeg's own)
    HwDecode hwdec = HwDecode::None;        // Auto: NVDEC when it can decode the stream
    int hw_frames_held = 16;
    std::string allowed_protocols;  // empty: the default of decode/input_policy.hpp
    double timeout_s = -1;  // give up on an input silent this long; <0: 10 s for network inputs, none for local ones  // decoded frames the pipeline may hold at once (NVDEC surfaces)
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
    int64_t host_copies() const override { return host_copies_; }
    std::string hw_decode() const override { return nvdec_ ? "cuda" : "none"; }

private:
    std::optional<PipelineItem> deliver(AvFramePtr decoded);
    void check_truncation();
    std::string silent_message(const char* doing) const;  // the --timeout error
    // The frame's timestamp made monotonic: a jump back shifts it (and all later timestamps,
    // passthrough included) to one frame interval after the previous frame.
    int64_t continuous_pts(int64_t pts, int64_t index);

    FileSourceOptions options_;
    IoWatchdog watchdog_;  // before format_: FFmpeg calls it until the input is closed
    AvInputPtr format_;
    std::unique_ptr<DecoderBuffers> buffers_;  // before decoder_: it must outlive the decoder
    AvCodecContextPtr decoder_;
    bool nvdec_ = false;
    int64_t host_copies_ = 0;
    int video_index_ = -1;
    VideoInfo info_;
    std::vector<PassthroughStream> passthrough_;
    std::vector<char> is_passthrough_;
    AvPacketPtr packet_;
    AvFramePtr receiving_;  // the decoder writes here; a new one is made only after handing it on
    FrameConverter converter_;
    bool draining_ = false;
    bool warned_resize_ = false;
    bool warned_jump_ = false;
    int64_t last_pts_ = AV_NOPTS_VALUE;  // of the last video frame delivered, after the offset
    int64_t ts_offset_us_ = 0;           // added to every timestamp after a jump back
    int64_t next_index_ = 0;
    double furthest_s_ = 0;      // the latest packet end seen on any stream, from the input's start
    double furthest_abs_s_ = 0;  // the same from timestamp 0
    DecodeHealth health_;
};

}  // namespace vf
