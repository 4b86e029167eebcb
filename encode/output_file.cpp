#include "encode/output_file.hpp"

#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include "media/protocols.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

extern "C" {
#include <libavutil/opt.h>
}

namespace vf {
namespace {

[[noreturn]] void output_error(const std::string& msg) { fail(ErrorCategory::Output, msg); }

int64_t parse_bitrate(const std::string& s) {
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    double mult = 1;
    if (end && (*end == 'k' || *end == 'K')) mult = 1e3, ++end;
    else if (end && (*end == 'm' || *end == 'M')) mult = 1e6, ++end;
    if (end == s.c_str() || *end != '\0' || !std::isfinite(v) || v <= 0 || v * mult > 1e10)
        fail(ErrorCategory::Usage, "--bitrate '" + s + "': expected a positive number with optional k or M, e.g. 4M");
    return static_cast<int64_t>(v * mult);
}

bool is_mp4_family(const AVOutputFormat* f) {
    return f && (std::strcmp(f->name, "mp4") == 0 || std::strcmp(f->name, "mov") == 0 || std::strcmp(f->name, "ipod") == 0);
}

// One second fragments, each starting a new moof: a killed recording loses at most the last one.
void set_fragmented(AVDictionary** d) {
    av_dict_set(d, "movflags", "+frag_keyframe+empty_moov+default_base_moof", 0);
    av_dict_set(d, "frag_duration", "1000000", 0);
}

}  // namespace

OutputKind output_kind(const std::string& path) {
    if (path == "-" || path == "pipe:1" || path == "pipe:") return OutputKind::Stdout;
    const std::string p = input_protocol(path);
    if (p == "file") return OutputKind::File;
    if (p == "rtsp" || p == "rtsps" || p == "rtmp" || p == "rtmps" || p == "srt" || p == "udp" || p == "tcp")
        return OutputKind::Network;
    fail(ErrorCategory::Usage, "output '" + path + "': vfilter writes files, '-' (stdout) and rtsp://, rtmp://, srt://, "
                               "udp://, tcp:// URLs, not '" + p + "'");
}

// strftime fields name segments by their start time (FFmpeg's segment muxer, strftime=1).
// %d is left out: it is the segment number's field (as in rec-%d.mp4).
bool dated_pattern(const std::string& pattern) {
    for (const char* f : {"%Y", "%y", "%m", "%H", "%M", "%S", "%s", "%F", "%T"})
        if (pattern.find(f) != std::string::npos) return true;
    return false;
}

std::string segment_pattern(const std::string& path) {
    // %d-style fields number the segments, strftime fields (%Y, %H, ...) date them.
    if (path.find('%') != std::string::npos) return path;
    const size_t slash = path.find_last_of('/');
    const size_t dot = path.find_last_of('.');
    const size_t at = (dot == std::string::npos || (slash != std::string::npos && dot < slash)) ? path.size() : dot;
    return path.substr(0, at) + "-%05d" + path.substr(at);
}

const AVCodec* find_video_encoder(const std::string& name) {
    static const std::map<std::string, std::string> aliases = {
        {"h264", "libx264"}, {"x264", "libx264"}, {"avc", "libx264"}, {"hevc", "libx265"},
        {"h265", "libx265"}, {"x265", "libx265"}, {"raw", "rawvideo"}, {"auto", "libx264"}};
    const auto it = aliases.find(name);
    const std::string real = it == aliases.end() ? name : it->second;
    const AVCodec* c = avcodec_find_encoder_by_name(real.c_str());
    if (!c || c->type != AVMEDIA_TYPE_VIDEO)
        fail(ErrorCategory::Usage, "unknown video codec '" + name +
                                       "'; try libx264, libx265, mpeg4, ffv1 or rawvideo (ffmpeg -encoders lists all)");
    return c;
}

void check_output_path(const OutputOptions& o) {
    if (o.path.empty()) fail(ErrorCategory::Usage, "no output given: use --out FILE (or --out null to discard)");
    if (output_kind(o.path) != OutputKind::File) return;
    std::string path = o.path;
    if (o.segment_s > 0) {  // the first segment stands for the series
        const std::string pattern = segment_pattern(o.path);
        char first[4096];
        if (dated_pattern(pattern) || av_get_frame_filename(first, sizeof first, pattern.c_str(), 0) < 0)
            return;  // dated names: each is new
        path = first;
    }
    struct stat out_st {};
    if (stat(path.c_str(), &out_st) != 0) return;  // does not exist: nothing to protect
    struct stat in_st {};
    if (!o.input_path.empty() && stat(o.input_path.c_str(), &in_st) == 0 && in_st.st_dev == out_st.st_dev &&
        in_st.st_ino == out_st.st_ino)
        output_error("output '" + o.path + "' is the input file; refusing to overwrite the source");
    if (S_ISDIR(out_st.st_mode)) output_error("output '" + o.path + "' is a directory; give a file name");
    if (!o.overwrite) output_error("output '" + path + "' already exists; pass -y to overwrite it");
}

// Sets the encoder up for `codec` and opens it; returns FFmpeg's error code.
int OutputFile::open_encoder(const AVCodec* codec) {
    encoder_.reset(avcodec_alloc_context3(codec));
    if (!encoder_) fail(ErrorCategory::Internal, "out of memory creating an encoder");
    AVCodecContext* enc = encoder_.get();
    enc->width = video_.width;
    enc->height = video_.height;
    enc->pix_fmt = video_.format;
    if (codec->pix_fmts) {
        bool supported = false;
        for (const AVPixelFormat* p = codec->pix_fmts; *p != AV_PIX_FMT_NONE; ++p) supported |= *p == video_.format;
        if (!supported) {
            enc->pix_fmt = avcodec_find_best_pix_fmt_of_list(codec->pix_fmts, video_.format, 0, nullptr);
            spdlog::info("{} cannot encode {}; frames are converted to {}", codec->name,
                         av_get_pix_fmt_name(video_.format), av_get_pix_fmt_name(enc->pix_fmt));
        }
    }
    // Keep the source's time base so timestamps pass through exactly; MPEG-4 part 2 cannot
    // store time bases with denominators above 65535, so it gets 1/frame rate.
    enc->time_base = video_.time_base;
    if (codec->id == AV_CODEC_ID_MPEG4 && enc->time_base.den > 65535) enc->time_base = av_inv_q(video_.frame_rate);
    enc->framerate = video_.frame_rate;
    enc->sample_aspect_ratio = video_.sample_aspect_ratio;
    enc->color_range = video_.color_range;
    enc->colorspace = video_.colorspace;
    enc->color_primaries = video_.color_primaries;
    enc->color_trc = video_.color_trc;
    enc->chroma_sample_location = video_.chroma_location;
    enc->thread_count = 0;
    if (mux_->oformat->flags & AVFMT_GLOBALHEADER) enc->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    if (options_.segment_s > 0 || kind_ == OutputKind::Network) enc->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    // Live: a keyframe every 2 s, so fragments stay short and a viewer joining can start soon.
    if (options_.live) enc->gop_size = std::max(1, static_cast<int>(std::lround(2 * av_q2d(video_.frame_rate))));
    if (options_.low_latency) enc->max_b_frames = 0;

    const bool nvenc = std::strstr(codec->name, "_nvenc") != nullptr;
    const bool x26x = !nvenc && (codec->id == AV_CODEC_ID_H264 || codec->id == AV_CODEC_ID_HEVC);
    if (x26x && !options_.preset.empty() && av_opt_set(enc->priv_data, "preset", options_.preset.c_str(), 0) < 0)
        fail(ErrorCategory::Usage, "--preset '" + options_.preset + "' is not a preset of " + codec->name);
    // Low latency: no B-frames, no look-ahead, no frame threading (each frame leaves as it arrives).
    if (x26x && options_.low_latency) av_opt_set(enc->priv_data, "tune", "zerolatency", 0);
    if (nvenc && options_.low_latency) {
        av_opt_set(enc->priv_data, "zerolatency", "1", 0);
        av_opt_set(enc->priv_data, "delay", "0", 0);
    }
    // NVENC names its presets p1 (fastest) .. p7; x264 names such as veryfast mean its default p4.
    if (nvenc && options_.preset.size() == 2 && options_.preset[0] == 'p')
        av_opt_set(enc->priv_data, "preset", options_.preset.c_str(), 0);
    if (!options_.bitrate.empty()) {
        enc->bit_rate = parse_bitrate(options_.bitrate);
    } else if (nvenc) {
        av_opt_set(enc->priv_data, "rc", "vbr", 0);  // constant quality, as close to crf as NVENC gets
        av_opt_set_double(enc->priv_data, "cq", options_.crf.value_or(23.0), 0);
    } else if (x26x) {
        av_opt_set_double(enc->priv_data, "crf", options_.crf.value_or(23.0), 0);
    } else if (codec->id == AV_CODEC_ID_MPEG4 || codec->id == AV_CODEC_ID_MPEG2VIDEO) {
        enc->flags |= AV_CODEC_FLAG_QSCALE;  // constant quality instead of the 200 kb/s default
        enc->global_quality = FF_QP2LAMBDA * static_cast<int>(options_.crf.value_or(3.0));
    }
    return avcodec_open2(enc, codec, nullptr);

}

OutputFile::OutputFile(const OutputOptions& options, const VideoInfo& video,
                       const std::vector<PassthroughStream>& passthrough, const AVDictionary* metadata)
    : options_(options),
      kind_(output_kind(options.path)),
      video_(video),
      packet_(make_packet()),
      watchdog_(kind_ == OutputKind::Network ? options.timeout_s : 0, nullptr) {
    partial_ = kind_ == OutputKind::File && options.segment_s <= 0;
    write_path_ = kind_ == OutputKind::Stdout ? "pipe:1"
                  : options.segment_s > 0   ? segment_pattern(options.path)
                  : partial_                ? options.path + ".partial"
                                            : options.path;
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
    check_output_path(options);
    std::string format = options.format;
    if (format.empty() && kind_ == OutputKind::Stdout) format = "mpegts";
    if (format.empty() && kind_ == OutputKind::Network) {
        const std::string p = input_protocol(options.path);
        format = p == "rtsp" || p == "rtsps" ? "rtsp" : p == "rtmp" || p == "rtmps" ? "flv" : "mpegts";
    }
    const AVOutputFormat* ofmt = format.empty() ? av_guess_format(nullptr, options.path.c_str(), nullptr)
                                                : av_guess_format(format.c_str(), nullptr, nullptr);
    if (!ofmt && !format.empty())
        fail(ErrorCategory::Usage, "--out-format '" + format + "' is not a container FFmpeg can write (ffmpeg -muxers lists them)");
    if (!ofmt)
        fail(ErrorCategory::Usage, "cannot tell the container format from '" + options.path +
                                       "'; use an extension such as .mp4, .mkv, .mov, .avi, .ts (or --out-format)");
    AVDictionary* mux_options = nullptr;
    struct FreeOptions {
        AVDictionary** d;
        ~FreeOptions() { av_dict_free(d); }
    } free_options{&mux_options};
    if (options.fragmented && is_mp4_family(ofmt)) set_fragmented(&mux_options);
    if (kind_ == OutputKind::Network && std::strcmp(ofmt->name, "rtsp") == 0) av_dict_set(&mux_options, "rtsp_transport", "tcp", 0);
    const AVOutputFormat* container = ofmt;  // what the streams are stored in (the segments' format)
    if (options.segment_s > 0) {
        if (kind_ != OutputKind::File) fail(ErrorCategory::Usage, "--segment writes files; '" + options.path + "' is not a file");
        AVDictionary* inner = nullptr;
        if (options.fragmented && is_mp4_family(ofmt)) set_fragmented(&inner);
        char* inner_text = nullptr;
        av_dict_get_string(inner, &inner_text, '=', ':');
        av_dict_free(&inner);
        if (inner_text && *inner_text) av_dict_set(&mux_options, "segment_format_options", inner_text, 0);
        av_freep(&inner_text);
        av_dict_set(&mux_options, "segment_format", ofmt->name, 0);
        av_dict_set(&mux_options, "segment_time", std::to_string(options.segment_s).c_str(), 0);
        av_dict_set(&mux_options, "reset_timestamps", "1", 0);
        if (dated_pattern(write_path_)) av_dict_set(&mux_options, "strftime", "1", 0);
        ofmt = av_guess_format("segment", nullptr, nullptr);
    }
    VF_AV_CHECK(avformat_alloc_output_context2(&mux_, ofmt, nullptr, write_path_.c_str()), ErrorCategory::Internal,
                "creating the muxer");
    mux_->interrupt_callback = watchdog_.callback();
    // Live outputs and recordings hand each packet to the OS at once: a viewer sees it now, and
    // a killed process cannot take completed fragments down with it in a write buffer.
    if (kind_ != OutputKind::File || options.low_latency || options.live || options.fragmented) mux_->flush_packets = 1;

    // auto: NVENC when filtering on the GPU and this GPU has it (H100/H200 do not), else libx264.
    if (options.codec == "auto") {
        const AVCodec* nv = options.prefer_nvenc ? avcodec_find_encoder_by_name("h264_nvenc") : nullptr;
        int err = AVERROR_ENCODER_NOT_FOUND;
        if (nv) {
            QuietFfmpegLogs quiet;  // NVENC's own complaints would be two more lines for one fact
            err = open_encoder(nv);
        }
        if (err < 0) {
            if (options.prefer_nvenc) {
                spdlog::info("{}; encoding with libx264 on the CPU",
                             nv ? "this GPU has no usable NVENC" : "this FFmpeg has no h264_nvenc");
                if (nv) spdlog::debug("h264_nvenc: {}", av_error_string(err));
            }
            const AVCodec* x264 = find_video_encoder("libx264");
            const int e2 = open_encoder(x264);
            if (e2 < 0) output_error("cannot open the libx264 encoder: " + av_error_string(e2));
        }
    } else {
        const AVCodec* codec = find_video_encoder(options.codec);
        const int err = open_encoder(codec);
        if (err < 0 && std::strstr(codec->name, "_nvenc"))
            fail(ErrorCategory::Device, std::string("cannot open the ") + codec->name + " encoder: " + av_error_string(err) +
                                            " (this machine has no usable NVENC; use --codec auto or libx264)");
        if (err < 0) output_error(std::string("cannot open the ") + codec->name + " encoder: " + av_error_string(err));
    }
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
        // last packets reach the receiver (measured: 37 of 60 frames arrived without it).
        AVDictionary* io_options = nullptr;
        if (input_protocol(options.path) == "srt" && options.path.find("linger=") == std::string::npos)
            av_dict_set(&io_options, "linger", "5", 0);
        err = avio_open2(&mux_->pb, write_path_.c_str(), AVIO_FLAG_WRITE, &mux_->interrupt_callback, &io_options);
        av_dict_free(&io_options);
        if (err < 0)
            output_error("cannot " + std::string(kind_ == OutputKind::Network ? "connect to" : "write") + " output '" +
                         options.path + "': " + (watchdog_.expired() ? "no answer (--timeout)" : av_error_string(err)));
    }
    err = avformat_write_header(mux_, &mux_options);
    if (err < 0)
        output_error("cannot start output '" + options.path + "': " + (watchdog_.expired() ? "no answer (--timeout)" : av_error_string(err)));
    if (mux_->pb) header_bytes_ = avio_tell(mux_->pb);
}

void OutputFile::release() {
    if (mux_) {
        if (mux_->pb) avio_closep(&mux_->pb);
        avformat_free_context(mux_);
        mux_ = nullptr;
    }
    // Never leave a broken file behind. A fragmented recording that holds a fragment is not
    // broken: every fragment written is playable, so it is kept unless no video was written.
    if (finished_ || kind_ != OutputKind::File || options_.segment_s > 0) return;
    if (partial_ || video_packets_ == 0) std::remove(write_path_.c_str());
}

OutputFile::~OutputFile() { release(); }

std::string OutputFile::describe() const {
    if (!mux_) return description_;
    std::string how = mux_->oformat->name;
    if (options_.segment_s > 0) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "segments of %g s as '", options_.segment_s);
        how = buf + write_path_ + "'";
    }
    if (options_.fragmented) how += ", fragmented";
    return "'" + options_.path + "' (" + how + ", " + encoder_->codec->name + " " + av_get_pix_fmt_name(encoder_->pix_fmt) + ")";
}

void OutputFile::write(AVPacket* pkt) {
    watchdog_.arm();
    const int err = av_interleaved_write_frame(mux_, pkt);
    if (err < 0)
        output_error("writing output '" + options_.path + "' failed: " +
                     (watchdog_.expired() ? "the receiver accepted nothing for " + std::to_string(int(options_.timeout_s)) + " s (--timeout)"
                                          : av_error_string(err)));
    // Fragmented files flush every packet (flush_packets), so once the file has grown past its
    // header a whole fragment has reached it.
    if (partial_ && options_.fragmented && avio_tell(mux_->pb) > header_bytes_) publish();
}

void OutputFile::publish() {
    if (std::rename(write_path_.c_str(), options_.path.c_str()) != 0)
        output_error("cannot move '" + write_path_ + "' to '" + options_.path + "': " + std::strerror(errno));
    write_path_ = options_.path;
    partial_ = false;
}

void OutputFile::drain_encoder() {
    for (;;) {
        const int err = avcodec_receive_packet(encoder_.get(), packet_.get());
        if (err == AVERROR(EAGAIN) || err == AVERROR_EOF) return;
        VF_AV_CHECK(err, ErrorCategory::Output, "encoding");
        const int64_t pts = packet_->pts;
        av_packet_rescale_ts(packet_.get(), encoder_->time_base, video_stream_->time_base);
        packet_->stream_index = video_stream_->index;
        write(packet_.get());
        ++video_packets_;
        for (auto it = read_at_.begin(); it != read_at_.end(); ++it)
            if (it->first == pts) {
                latency_.add(it->second);
                read_at_.erase(it);
                break;
            }
    }
}

void OutputFile::write_frame(const AVFrame* frame, Clock::time_point read_at) {
    const AVFrame* in = frame;
    if (frame->format != encoder_->pix_fmt) {
        if (!converted_) converted_ = make_frame();
        converter_.convert(frame, converted_.get(), encoder_->width, encoder_->height, encoder_->pix_fmt);
        in = converted_.get();
    }
    if (!sending_) sending_ = make_frame();
    AVFrame* f = sending_.get();
    VF_AV_CHECK(av_frame_ref(f, in), ErrorCategory::Internal, "frame reference");
    int64_t pts = frame->pts == AV_NOPTS_VALUE
                      ? (last_pts_ == AV_NOPTS_VALUE ? 0 : last_pts_ + 1)
                      : av_rescale_q(frame->pts, video_.time_base, encoder_->time_base);
    if (last_pts_ != AV_NOPTS_VALUE && pts <= last_pts_) pts = last_pts_ + 1;  // encoders need increasing pts
    last_pts_ = pts;
    f->pts = pts;
    f->pict_type = AV_PICTURE_TYPE_NONE;
    if (options_.segment_s > 0) {  // a keyframe at each boundary, so segments are cut on time
        const double t = pts * av_q2d(encoder_->time_base);
        if (t >= next_segment_s_) {
            f->pict_type = AV_PICTURE_TYPE_I;
            next_segment_s_ = (std::floor(t / options_.segment_s + 1e-9) + 1) * options_.segment_s;
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
    av_packet_rescale_ts(pkt, source_time_base_[p.source_stream], mux_->streams[it->second]->time_base);
    pkt->stream_index = it->second;
    pkt->pos = -1;
    write(pkt);
}

void OutputFile::finish() {
    VF_AV_CHECK(avcodec_send_frame(encoder_.get(), nullptr), ErrorCategory::Output, "flushing the encoder");
    drain_encoder();
    // Not one frame encoded (stopped before the first, or nothing decoded): a container without
    // video is no recording, and players cannot even probe it, so the file is not kept.
    if (video_packets_ == 0 && kind_ == OutputKind::File && options_.segment_s <= 0) {
        spdlog::warn("no video frames were written: '{}' was not kept", options_.path);
        description_ = "'" + options_.path + "' (not kept: no video frames)";
        release();
        return;
    }
    int err = av_write_trailer(mux_);
    if (err < 0) output_error("finishing output '" + options_.path + "' failed: " + av_error_string(err));
    if (mux_->pb) {
        err = avio_closep(&mux_->pb);
        if (err < 0) output_error("closing output '" + options_.path + "' failed: " + av_error_string(err));
    }
    if (partial_) publish();
    finished_ = true;
}

}  // namespace vf
