#include "encode/output_file.hpp"

#include <spdlog/spdlog.h>

#include "encode/container.hpp"
#include "encode/hls_output.hpp"
#include "encode/recording_repair.hpp"
#include "encode/video_encoder.hpp"
#include "media/protocols.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <thread>

namespace vf {
namespace {

[[noreturn]] void output_error(const std::string& msg) { fail(ErrorCategory::Output, msg); }

}  // namespace

// A failure of FFmpeg's writing: a full disk says so first (serve waits for space and records
// again), and what it cut short is repaired when the muxer is released.
void OutputFile::writing_failed(const std::string& msg, int err) {
    if (io_ && !io_->refusal().empty()) output_error(io_->refusal());  // what FFmpeg's error code hides
    if (err == AVERROR(ENOSPC) || err == AVERROR(EDQUOT)) {
        disk_full_ = true;
        throw Error(ErrorCategory::Output, "disk full: " + msg, false, true);
    }
    output_error(msg);
}

OutputFile::OutputFile(const OutputOptions& options, const VideoInfo& video,
                       const std::vector<PassthroughStream>& passthrough, const AVDictionary* metadata)
    : options_(options),
      kind_(output_kind(options.path)),
      video_(video),
      packet_(make_packet()),
      watchdog_(kind_ == OutputKind::Network ? options.timeout_s : 0, nullptr) {
    hls_ = kind_ == OutputKind::File && is_hls_output(options);
    cut_every_s_ = options.segment_s > 0 ? options.segment_s : hls_ ? options.hls_time_s : 0;
    partial_ = kind_ == OutputKind::File && options.segment_s <= 0 && !hls_ && !options.packets_only;
    write_path_ = options.packets_only          ? "null"
                  : kind_ == OutputKind::Stdout ? "pipe:1"
                  : options.segment_s > 0   ? segment_pattern(options.path)
                  : hls_                    ? options.path
                  : partial_                ? options.path + ".partial"
                                            : options.path;
    if (kind_ == OutputKind::File && !options.packets_only) io_ = std::make_unique<OutputFileIo>(options.overwrite, hls_);
    // A constructor that throws runs no destructor: release the muxer and the partial file here.
    try {
        open(options, video, passthrough, metadata);
    } catch (...) {
        release();
        throw;
    }
}

void OutputFile::open(const OutputOptions& options, const VideoInfo& video, const std::vector<PassthroughStream>& passthrough,
                      const AVDictionary* metadata) {
    MuxerChoice muxer;
    if (options.packets_only) {  // FFmpeg's null muxer: the packets go to the tap alone
        muxer.muxer = muxer.container = av_guess_format("null", nullptr, nullptr);
    } else {
        check_output_path(options);
        choose_muxer(options, kind_, write_path_, muxer);
    }
    const AVOutputFormat* ofmt = muxer.muxer;
    const AVOutputFormat* container = muxer.container;
    VF_AV_CHECK(avformat_alloc_output_context2(&mux_, ofmt, nullptr, write_path_.c_str()), ErrorCategory::Internal,
                "creating the muxer");
    mux_->interrupt_callback = watchdog_.callback();
    if (options.bitexact) mux_->flags |= AVFMT_FLAG_BITEXACT;
    if (io_) {
        io_->install(mux_);
        // A live HLS recording that starts again goes on in its playlist (check_output_path
        // allows it), and writes again what its last run may have left unlisted.
        if (hls_ && options.live && !options.overwrite)
            for (const std::string& f : hls_series_files(options.path, options.hls_fmp4)) io_->files().adopt(f);
    }
    // Live outputs and recordings hand each packet to the OS at once: a viewer sees it now, and
    // a killed process cannot take completed fragments down with it in a write buffer.
    if (kind_ != OutputKind::File || options.low_latency || options.live || options.fragmented) mux_->flush_packets = 1;
    // The segment muxer hands each segment's muxer its flags, not its flush_packets: without the
    // flag a killed recorder's current segment stayed in a write buffer, for seconds.
    if (mux_->flush_packets == 1 && (options.segment_s > 0 || hls_)) mux_->flags |= AVFMT_FLAG_FLUSH_PACKETS;

    // Clips alone: their containers (MP4, Matroska) want the headers global.
    const bool global_header = (ofmt->flags & AVFMT_GLOBALHEADER) || options.segment_s > 0 || hls_ || kind_ == OutputKind::Network ||
                               options.packets_only;
    encoder_ = open_video_encoder(options, video, global_header);
    AVCodecContext* enc = encoder_.get();
    int err = 0;
    video_stream_ = avformat_new_stream(mux_, nullptr);
    if (!video_stream_) fail(ErrorCategory::Internal, "out of memory creating a stream");
    VF_AV_CHECK(avcodec_parameters_from_context(video_stream_->codecpar, enc), ErrorCategory::Internal, "stream setup");
    video_stream_->time_base = enc->time_base;
    video_stream_->avg_frame_rate = video.frame_rate;
    video_stream_->sample_aspect_ratio = video.sample_aspect_ratio;

    for (const PassthroughStream& p : passthrough) {
        if (avformat_query_codec(container, p.codecpar->codec_id, FF_COMPLIANCE_NORMAL) == 0) {
            spdlog::warn("stream {} cannot be stored in {}; it is left out (use .mkv to keep it)", p.description, container->name);
            continue;
        }
        AVStream* s = avformat_new_stream(mux_, nullptr);
        if (!s) fail(ErrorCategory::Internal, "out of memory creating a stream");
        VF_AV_CHECK(avcodec_parameters_copy(s->codecpar, p.codecpar), ErrorCategory::Internal, "stream setup");
        s->codecpar->codec_tag = 0;
        s->time_base = p.time_base;
        av_dict_copy(&s->metadata, p.metadata, 0);
        stream_map_[p.source_index] = s->index;
        source_time_base_[p.source_index] = p.time_base;
    }
    av_dict_copy(&mux_->metadata, metadata, 0);
    av_dict_set(&mux_->metadata, "encoder", nullptr, 0);

    watchdog_.arm();
    if (!(ofmt->flags & AVFMT_NOFILE)) {
        // SRT in live mode drops what is still unsent when the socket closes: linger lets the
        // last packets reach the receiver (without it the receiver lost the last frames).
        AVDictionary* io_options = nullptr;
        if (input_protocol(options.path) == "srt" && options.path.find("linger=") == std::string::npos)
            av_dict_set(&io_options, "linger", "5", 0);
        err = io_ ? io_->open(write_path_, AVIO_FLAG_WRITE, &mux_->pb)
                  : avio_open2(&mux_->pb, write_path_.c_str(), AVIO_FLAG_WRITE, &mux_->interrupt_callback, &io_options);
        av_dict_free(&io_options);
        if (err < 0)
            writing_failed("cannot " + std::string(kind_ == OutputKind::Network ? "connect to" : "write") + " output '" +
                               options.path + "': " + (watchdog_.expired() ? "no answer (--timeout)" : av_error_string(err)),
                           err);
    }
    err = avformat_write_header(mux_, &muxer.options);
    if (err < 0)
        writing_failed("cannot start output '" + options.path + "': " + (watchdog_.expired() ? "no answer (--timeout)" : av_error_string(err)),
                       err);
    header_written_ = true;
    if (mux_->pb) header_bytes_ = avio_tell(mux_->pb);
    // The container's time base is known once its header is written (Matroska's: a millisecond).
    container_tick_ = std::max<int64_t>(1, av_rescale_q_rnd(1, video_stream_->time_base, encoder_->time_base, AV_ROUND_UP));
}

void OutputFile::close_file() {
    AVIOContext* pb = mux_->pb;
    mux_->pb = nullptr;
    const int err = io_ ? io_->close(pb) : avio_close(pb);
    if (err < 0) writing_failed("closing output '" + options_.path + "' failed: " + av_error_string(err), err);
}

void OutputFile::release() {
    if (mux_) {
        // FFmpeg's hls muxer frees its segment buffer in its trailer only. After a refusal every
        // write is refused, so that trailer writes nothing: it only frees.
        if (hls_ && header_written_ && !trailer_written_ && !io_->refusal().empty()) {
            trailer_written_ = true;
            QuietFfmpegLogs quiet;  // its failures to write are the refusal already reported
            av_write_trailer(mux_);
        }
        if (mux_->pb) {
            try {
                close_file();
            } catch (const Error&) {  // already failing; the file is removed or repaired below
            }
        }
        avformat_free_context(mux_);
        mux_ = nullptr;
    }
    // Never leave a broken file behind. A fragmented recording that holds a fragment is not
    // broken: every fragment written is playable, so it is kept unless no video was written.
    // One that a full disk cut inside a fragment is cut back to its last whole one.
    if (finished_ || kind_ != OutputKind::File || hls_ || options_.packets_only) return;
    if (options_.segment_s > 0) {
        repair_own_segments();
        return;
    }
    if (partial_ || video_packets_ == 0) io_->files().remove_if_owned(write_path_);
    else if (disk_full_) repair_cut_recording(write_path_);
}

// The segment muxer opens a segment and writes its header at once: the first with the output,
// each later one when the keyframe that starts it is written, its fragment still in memory. So a
// segmented output released unfinished (a failure mid-run) can leave its newest segment with a
// header alone or inside a fragment, and one stopped before its first frame (a camera still
// connecting) holds a header alone. Only this output's own newest two are looked at.
void OutputFile::repair_own_segments() {
    for (const std::string& path : io_->newest_written()) {
        if (!io_->files().owns(path)) continue;
        if (video_packets_ == 0) io_->files().remove_if_owned(path);
        else if (disk_full_ || mp4_header_complete(path)) repair_cut_recording(path, disk_full_ ? "the full disk" : "a failure");
    }
}

OutputFile::~OutputFile() {
    if (packet_tap_) packet_tap_->close();
    release();
}

void OutputFile::tap_packets(PacketTap* tap) {
    packet_tap_ = tap;
    if (tap && encoder_) tap->open(*encoder_);
}

std::string OutputFile::describe() const {
    if (!mux_) return description_;
    if (options_.packets_only) return "'" + options_.path + "' (not recorded: encoded for its clips alone, " + encoder_->codec->name + ")";
    std::string how = mux_->oformat->name;
    if (options_.segment_s > 0) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "segments of %g s as '", options_.segment_s);
        how = buf + write_path_ + "'";
    }
    if (hls_) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%g s", options_.hls_time_s);
        how = std::string("HLS playlist, segments of ") + buf + " as '" + hls_segment_pattern(options_.path, options_.hls_fmp4) + "'" +
              (options_.live ? ", the last " + std::to_string(options_.hls_window) + " listed" : ", all listed");
    }
    if (options_.fragmented) how += ", fragmented";
    return "'" + options_.path + "' (" + how + ", " + encoder_->codec->name + " " + av_get_pix_fmt_name(encoder_->pix_fmt) + ")";
}

void OutputFile::write(AVPacket* pkt) {
    watchdog_.arm();
    const int err = av_interleaved_write_frame(mux_, pkt);
    if (err < 0)
        writing_failed("writing output '" + options_.path + "' failed: " +
                           (watchdog_.expired() ? "the receiver accepted nothing for " + std::to_string(int(options_.timeout_s)) + " s (--timeout)"
                                                : av_error_string(err)),
                       err);
    // The muxers inside HLS and --segment outputs carry on past a file they could not open or
    // publish (the HLS muxer ignores some failures): a refusal stops the output here.
    if (io_ && !io_->refusal().empty()) output_error(io_->refusal());
    // Fragmented files flush every packet (flush_packets), so once the file has grown past its
    // header a whole fragment has reached it.
    if (partial_ && options_.fragmented && avio_tell(mux_->pb) > header_bytes_) publish();
}

// A file that appeared under <out> while recording is never replaced (unless -y): the recording
// is kept beside it under a free name, and finish() fails saying where, so that a script never
// takes the other file for the recording.
void OutputFile::publish() {
    const std::string kept = move_without_replacing(write_path_, options_.path, options_.overwrite);
    if (kept != options_.path) {
        published_elsewhere_ = "output '" + options_.path + "' appeared while recording and was not written by vfilter; it "
                               "was left as it is and the recording was kept as '" + kept + "'";
        spdlog::warn("{}", published_elsewhere_);
    }
    write_path_ = kept;
    partial_ = false;
}

void OutputFile::drain_encoder() {
    for (;;) {
        const int err = avcodec_receive_packet(encoder_.get(), packet_.get());
        if (err == AVERROR(EAGAIN) || err == AVERROR_EOF) return;
        VF_AV_CHECK(err, ErrorCategory::Output, "encoding");
        const int64_t pts = packet_->pts;
        std::optional<Clock::time_point> read_at;
        for (auto it = read_at_.begin(); it != read_at_.end(); ++it)
            if (it->first == pts) {
                read_at = it->second;
                read_at_.erase(it);
                break;
            }
        if (packet_tap_) packet_tap_->offer(packet_.get(), read_at.value_or(Clock::now()));  // in the encoder's time base
        av_packet_rescale_ts(packet_.get(), encoder_->time_base, video_stream_->time_base);
        packet_->stream_index = video_stream_->index;
        write(packet_.get());
        ++video_packets_;
        if (read_at) latency_.add(*read_at);
    }
}

void OutputFile::write_frame(const AVFrame* frame, Clock::time_point read_at) {
    const AVFrame* in = frame;
    if (frame->format != encoder_->pix_fmt) {
        // A frame-threaded encoder (rawvideo's) may still hold the last converted frame: convert
        // into a fresh buffer then, never under it.
        if (!converted_ || (converted_->buf[0] && !av_frame_is_writable(converted_.get()))) converted_ = make_frame();
        converter_.convert(frame, converted_.get(), encoder_->width, encoder_->height, encoder_->pix_fmt);
        in = converted_.get();
    }
    if (!sending_) sending_ = make_frame();
    AVFrame* f = sending_.get();
    VF_AV_CHECK(av_frame_ref(f, in), ErrorCategory::Internal, "frame reference");
    // Encoders need increasing timestamps. Sources hand on increasing ones; a frame that has none,
    // or one not after the last, is placed a frame interval after the last (a tick would make two
    // frames a player shows at once).
    int64_t pts = frame->pts == AV_NOPTS_VALUE ? AV_NOPTS_VALUE : av_rescale_q(from_origin(frame->pts, video_.time_base), video_.time_base, encoder_->time_base);
    if (last_pts_ != AV_NOPTS_VALUE && (pts == AV_NOPTS_VALUE || pts <= last_pts_))
        pts = last_pts_ + video_.frame_interval(encoder_->time_base);
    // Two frames must differ in the container's time base too: frames read in a burst after a
    // camera's reconnect can come closer than that.
    if (last_pts_ != AV_NOPTS_VALUE && pts < last_pts_ + container_tick_) pts = last_pts_ + container_tick_;
    if (pts == AV_NOPTS_VALUE) pts = 0;
    last_pts_ = pts;
    f->pts = pts;
    f->pict_type = AV_PICTURE_TYPE_NONE;
    if (cut_every_s_ > 0) {  // a keyframe at each boundary, so segments are cut on time
        const double t = pts * av_q2d(encoder_->time_base);
        if (t >= next_segment_s_) {
            f->pict_type = AV_PICTURE_TYPE_I;
            next_segment_s_ = (std::floor(t / cut_every_s_ + 1e-9) + 1) * cut_every_s_;
        }
    }
    read_at_.emplace_back(pts, read_at);
    if (read_at_.size() > 512) read_at_.pop_front();  // an encoder that drops frames must not grow this
    const int sent = avcodec_send_frame(encoder_.get(), f);
    av_frame_unref(f);  // the encoder holds its own reference
    VF_AV_CHECK(sent, ErrorCategory::Output, "encoding");
    drain_encoder();
}

void OutputFile::write_packet(PassthroughPacket& p) {
    const auto it = stream_map_.find(p.source_stream);
    if (it == stream_map_.end()) return;
    AVPacket* pkt = p.packet.get();
    const AVRational source_base = source_time_base_[p.source_stream];
    pkt->pts = from_origin(pkt->pts, source_base);
    pkt->dts = from_origin(pkt->dts, source_base);
    av_packet_rescale_ts(pkt, source_base, mux_->streams[it->second]->time_base);
    pkt->stream_index = it->second;
    pkt->pos = -1;
    write(pkt);
}

int64_t OutputFile::from_origin(int64_t ts, AVRational time_base) {
    if (options_.segment_s <= 0 || ts == AV_NOPTS_VALUE) return ts;
    if (!origin_us_) origin_us_ = av_rescale_q(ts, time_base, AV_TIME_BASE_Q);
    return ts - av_rescale_q(*origin_us_, AV_TIME_BASE_Q, time_base);
}

void OutputFile::let_receivers_catch_up() {
    const double delay_s = srt_close_delay_s(options_.path);
    if (delay_s <= 0 || !mux_->pb) return;
    avio_flush(mux_->pb);
    const Clock::time_point until = Clock::now() + std::chrono::microseconds(int64_t(delay_s * 1e6));
    while (!hurry_ && Clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(10));
}

void OutputFile::finish() {
    VF_AV_CHECK(avcodec_send_frame(encoder_.get(), nullptr), ErrorCategory::Output, "flushing the encoder");
    drain_encoder();
    // Not one frame encoded (stopped before the first, or nothing decoded): a container without
    // video is no recording, and players cannot even probe it, so the file is not kept.
    if (video_packets_ == 0 && kind_ == OutputKind::File && !hls_ && !options_.packets_only) {
        const bool segments = options_.segment_s > 0 && !io_->newest_written().empty();
        spdlog::warn("no video frames were written: '{}' was not kept", segments ? io_->newest_written().back() : options_.path);
        description_ = "'" + options_.path + "' (not kept: no video frames)";
        release();
        return;
    }
    trailer_written_ = true;
    int err = av_write_trailer(mux_);
    if (err < 0) writing_failed("finishing output '" + options_.path + "' failed: " + av_error_string(err), err);
    let_receivers_catch_up();
    if (mux_->pb) close_file();
    if (io_) {
        io_->remove_temporary_names();
        if (!io_->refusal().empty()) output_error(io_->refusal());
    }
    if (partial_) publish();
    finished_ = true;
    if (!published_elsewhere_.empty()) output_error(published_elsewhere_);
}

}  // namespace vf
