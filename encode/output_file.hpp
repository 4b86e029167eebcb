// Encodes video (libx264 by default; libx265, mpeg4, ffv1, rawvideo, or any FFmpeg encoder)
// and muxes it with the passthrough streams into a container chosen from the output name, or
// publishes it (rtsp://, rtmp://, srt://, udp://) or writes it to stdout ('-').
// A file is written to "<out>.partial" and renamed to <out> only when the trailer is written;
// recordings of live inputs are instead written in place as fragmented MP4 (or MKV), where every
// completed fragment is playable even if the process is killed, or as --segment files.
#pragma once

#include <atomic>
#include <deque>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "encode/output_file_io.hpp"
#include "encode/output_options.hpp"
#include "encode/output_target.hpp"
#include "encode/sink.hpp"
#include "media/frame.hpp"
#include "media/io_watchdog.hpp"

namespace vf {

class OutputFile : public Sink {
public:
    OutputFile(const OutputOptions& options, const VideoInfo& video, const std::vector<PassthroughStream>& passthrough,
               const AVDictionary* metadata);
    ~OutputFile() override;

    void write_frame(const AVFrame* frame, Clock::time_point read_at) override;
    void write_packet(PassthroughPacket& packet) override;
    void finish() override;
    std::string describe() const override;
    void hurry() override { hurry_ = true; }
    void tap_packets(PacketTap* tap) override;

private:
    void open(const OutputOptions& options, const VideoInfo& video, const std::vector<PassthroughStream>& passthrough,
              const AVDictionary* metadata);
    void release();  // closes and frees the muxer; removes the partial file unless finished
    void repair_own_segments();  // release() of a segmented output: what it cut short made whole
    [[noreturn]] void writing_failed(const std::string& msg, int av_error);
    void drain_encoder();
    void write(AVPacket* packet);
    PacketTap* packet_tap_ = nullptr;
    void publish();  // moves <out>.partial to <out>: from now on a kill leaves a playable file
    void close_file();  // closes what FFmpeg wrote the file through (mux_->pb)
    void let_receivers_catch_up();  // SRT: stays connected until the receiver has its last packets

    OutputOptions options_;
    OutputKind kind_ = OutputKind::File;
    std::string write_path_;    // what FFmpeg writes: <out>.partial, <out> itself, a URL or a pattern
    // A file lies under <out>.partial until it can be played: a plain file until its trailer is
    // written, a fragmented one until its first fragment is in it (its header alone plays nothing).
    // Segments, HLS (its muxer renames each finished segment and rewrites the playlist whole),
    // network outputs and stdout are written in place.
    bool partial_ = false;
    bool hls_ = false;          // an .m3u8 playlist and its segments
    double cut_every_s_ = 0;    // > 0: segments of this length, each starting at a forced keyframe
    int64_t header_bytes_ = 0;  // the file's size once the header was written
    VideoInfo video_;
    // Every file of a file output is created and written through this (never by name by FFmpeg).
    std::unique_ptr<OutputFileIo> io_;
    // Set when <out> was taken by someone else's file when the recording was published: where
    // the recording went instead, said when it finishes.
    std::string published_elsewhere_;
    AVFormatContext* mux_ = nullptr;
    AvCodecContextPtr encoder_;
    AVStream* video_stream_ = nullptr;
    int64_t container_tick_ = 1;  // one tick of the container's time base, in the encoder's
    std::map<int, int> stream_map_;  // source stream index -> output stream index
    std::map<int, AVRational> source_time_base_;
    AvPacketPtr packet_;
    AvFramePtr converted_;
    AvFramePtr sending_;  // a reference to the frame being sent, with the encoder's pts
    FrameConverter converter_;
    int64_t last_pts_ = AV_NOPTS_VALUE;
    double next_segment_s_ = -1;  // the next segment boundary, where a keyframe is forced
    // Segments: the first item's time (µs), taken off every timestamp. FFmpeg's segment muxer
    // resets each segment's timestamps to 0 but the first one's, which keeps them as they come:
    // a recording that starts late in its input's time (a camera handed over from another shard)
    // then had a first segment cut early and a frame lost at its end.
    std::optional<int64_t> origin_us_;
    int64_t from_origin(int64_t ts, AVRational time_base);
    std::deque<std::pair<int64_t, Clock::time_point>> read_at_;  // encoder pts -> when the frame entered
    IoWatchdog watchdog_;
    int64_t video_packets_ = 0;
    std::string description_;  // describe() once the muxer is gone (an empty output not kept)
    bool finished_ = false;
    bool header_written_ = false;
    bool trailer_written_ = false;
    bool disk_full_ = false;  // a write found no room: release() repairs what it cut short
    std::atomic<bool> hurry_{false};
};

}  // namespace vf
