// Demuxes and decodes any input FFmpeg opens (file, URL, capture device, '-' for stdin) with
// frame threading. Video frames come out in a native pixel format at the first frame's size
// (converted once with libswscale when needed); audio and subtitle packets come out untouched
// for passthrough. Live inputs that fail or end are reopened with exponential backoff, keeping
// one continuous timeline (the outage shows as a gap of its real length).
#pragma once

#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "decode/decoder_buffers.hpp"
#include "decode/hw_decode.hpp"
#include "media/io_watchdog.hpp"
#include "decode/live_input.hpp"
#include "decode/source.hpp"

namespace vf {

struct FileSourceOptions {
    std::string url;
    bool passthrough_audio = true;  // audio and subtitle streams
    int decoder_threads = 0;        // 0 = FFmpeg's choice (all cores)
    BufferAllocator frame_alloc = nullptr;  // decoded frames' memory (nullptr: FFmpeg's own)
    HwDecode hwdec = HwDecode::None;        // Auto: NVDEC when it can decode the stream
    int hw_frames_held = 16;        // decoded frames the pipeline may hold at once (NVDEC surfaces)
    std::string allowed_protocols;  // empty: the default of media/protocols.hpp
    double timeout_s = -1;  // give up on an input silent this long; <0: 10 s for network inputs, none for local ones
    LiveInputOptions live;  // transport, capture device settings, low latency
    bool realtime = false;  // pace frames by their timestamps (like ffmpeg -re); makes the input live
    int reconnect_max = -1;         // live inputs: attempts per outage (-1: forever, 0: never)
    double reconnect_delay_s = 1;   // first wait; doubles per attempt up to 30 s
};

class FileSource : public Source {
public:
    explicit FileSource(const FileSourceOptions& options);
    ~FileSource() override;

    const VideoInfo& video() const override { return info_; }
    std::vector<PassthroughStream> passthrough() const override { return passthrough_; }
    const AVDictionary* metadata() const override { return metadata_; }
    std::string describe() const override { return description_; }
    std::optional<PipelineItem> read() override;
    DecodeHealth health() const override;
    int64_t host_copies() const override { return host_copies_; }
    std::string hw_decode() const override { return nvdec_ ? "cuda" : "none"; }
    bool live() const override { return live_; }

private:
    void open();  // demuxer and decoder for options_.url; throws Error(Input) and friends
    void describe_video(const AVStream* st);  // fills info_ from the first connection
    void find_passthrough();
    bool reconnect();  // false when stopped or out of attempts
    std::optional<PipelineItem> deliver(AvFramePtr decoded);
    std::optional<PipelineItem> passthrough_packet(AVStream* st);
    void note_read_time(const AVPacket* packet);
    Clock::time_point read_time_of(int64_t pts);
    void rebase_timeline(const AVPacket* packet, const AVStream* st);
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
    bool live_ = false;           // live, or paced as live (--realtime)
    bool reconnectable_ = false;  // a camera or stream that may come back after it fails
    std::string description_;
    int64_t host_copies_ = 0;
    int video_index_ = -1;
    AVRational stream_tb_{1, 1};  // the current connection's video time base
    VideoInfo info_;              // as the first connection described it; later ones are converted to it
    AVDictionary* metadata_ = nullptr;  // the first connection's, for the output
    std::vector<PassthroughStream> passthrough_;
    std::vector<AVCodecParameters*> passthrough_params_;  // owned copies, valid across reconnects
    std::vector<AVDictionary*> passthrough_metadata_;
    std::vector<int> passthrough_of_;  // current stream index -> passthrough source_index, or -1
    AvPacketPtr packet_;
    AvFramePtr receiving_;  // the decoder writes here; a new one is made only after handing it on
    FrameConverter converter_;
    RealtimePacer pacer_;
    std::deque<std::pair<int64_t, Clock::time_point>> read_times_;  // video packet pts -> when read
    bool draining_ = false;
    bool reconnect_after_drain_ = false;
    bool went_silent_ = false;  // the --timeout deadline ended a read of this connection
    bool rebase_pending_ = false;  // the first packet after a reconnect sets the timeline offset
    // Where a live connection was cut: from going down until the first clean frame after the
    // reconnect (at most kCutGraceFrames damaged frames), decode errors are charged to the cut.
    enum class Cut { None, Draining, Resuming } cut_ = Cut::None;
    int64_t frames_since_cut_ = 0;
    void count_decode_error(bool frame);
    Clock::time_point down_since_{};
    bool warned_resize_ = false;
    bool warned_jump_ = false;
    int64_t last_pts_ = AV_NOPTS_VALUE;  // of the last video frame delivered, after the offset
    int64_t ts_offset_us_ = 0;           // added to every timestamp after a jump back or a reconnect
    int64_t next_index_ = 0;
    double furthest_s_ = 0;      // the latest packet end seen on any stream, from the input's start
    double furthest_abs_s_ = 0;  // the same from timestamp 0
    DecodeHealth health_;
};

}  // namespace vf
