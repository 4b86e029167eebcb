#include "decode/file_source.hpp"

#include "media/protocols.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>

extern "C" {
#include <libavutil/hwcontext.h>
}

namespace vf {

std::string DecodeHealth::summary() const {
    std::string s;
    auto add = [&](const std::string& part) { s += (s.empty() ? "" : ", ") + part; };
    if (bad_packets) add(std::to_string(bad_packets) + " video packets could not be decoded");
    if (corrupt_frames) add(std::to_string(corrupt_frames) + " frames were decoded with errors");
    if (read_errors) add("reading stopped early on an error");
    if (!truncated.empty()) add(truncated);
    if (!lost.empty()) add(lost);
    return s;
}

namespace {

double default_timeout(const FileSourceOptions& o) {
    if (o.timeout_s >= 0) return o.timeout_s;
    const std::string proto = input_protocol(o.url);
    return (proto == "file" || proto == "pipe") && !is_capture_device(o.url) ? 0 : kDefaultNetworkTimeoutS;
}

constexpr size_t kReadTimesKept = 256;  // more than any decoder holds back
// After a reconnect, errors are charged to the cut until a frame decodes clean, for at most this
// many damaged frames (10 s at 30 fps): a stream that stays broken is damage, not a cut.
constexpr int64_t kCutGraceFrames = 300;

}  // namespace

FileSource::FileSource(const FileSourceOptions& options)
    : options_(options), watchdog_(default_timeout(options), &stop_requested_), packet_(make_packet()) {
    open();
    describe_video(format_->streams[video_index_]);
    av_dict_copy(&metadata_, format_->metadata, 0);
    find_passthrough();
    const std::string proto = input_protocol(options.url);
    reconnectable_ = is_live_url(options.url) || ((proto == "http" || proto == "https") && format_->duration <= 0);
    live_ = reconnectable_ || options.realtime;
    if (live_) spdlog::debug("'{}' is a live input", options.url);
    description_ = "'" + options_.url + "' (" + format_->iformat->name + ", " + avcodec_get_name(decoder_->codec_id) +
                   " " + std::to_string(info_.width) + "x" + std::to_string(info_.height) + " " +
                   av_get_pix_fmt_name(info_.format) + (nvdec_ ? ", NVDEC" : "") + (live_ ? ", live" : "") + ")";
}

FileSource::~FileSource() {
    decoder_.reset();
    buffers_.reset();
    format_.reset();
    for (AVCodecParameters*& p : passthrough_params_) avcodec_parameters_free(&p);
    for (AVDictionary*& d : passthrough_metadata_) av_dict_free(&d);
    av_dict_free(&metadata_);
}

void FileSource::open() {
    const FileSourceOptions& options = options_;
    std::string device;
    const bool capture = is_capture_device(options.url, &device);
    const std::string url = options.url == "-" ? "pipe:0" : capture ? device : options.url;
    const AVInputFormat* demuxer = nullptr;
    AVDictionary* open_options = live_open_options(options.url, options.live, &demuxer);
    AVFormatContext* ctx = avformat_alloc_context();
    if (!ctx) {
        av_dict_free(&open_options);
        fail(ErrorCategory::Internal, "out of memory opening an input");
    }
    ctx->interrupt_callback = watchdog_.callback();
    try {
        av_dict_set(&open_options, "protocol_whitelist",
                    protocol_whitelist(capture ? device : options.url, options.allowed_protocols).c_str(), 0);
    } catch (...) {
        av_dict_free(&open_options);
        avformat_free_context(ctx);
        throw;
    }
    watchdog_.arm();
    int err = avformat_open_input(&ctx, url.c_str(), demuxer, &open_options);  // frees ctx on failure
    av_dict_free(&open_options);
    if (err < 0) {
        if (watchdog_.expired()) fail(ErrorCategory::Input, silent_message("opening"));
        if (err == AVERROR_INVALIDDATA)
            fail(ErrorCategory::Input, "input '" + options.url + "' is not a media file FFmpeg can read");
        fail(ErrorCategory::Input, "cannot open input '" + options.url + "': " + av_error_string(err));
    }
    format_.reset(ctx);
    watchdog_.arm();
    err = avformat_find_stream_info(ctx, nullptr);
    if (err < 0 && watchdog_.expired()) fail(ErrorCategory::Input, silent_message("probing"));
    if (err < 0) fail(ErrorCategory::Input, "cannot read the streams of '" + options.url + "': " + av_error_string(err));

    const AVCodec* codec = nullptr;
    video_index_ = av_find_best_stream(ctx, AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0);
    if (video_index_ == AVERROR_STREAM_NOT_FOUND)
        fail(ErrorCategory::Input, "input '" + options.url + "' has no video stream");
    if (video_index_ < 0 || !codec)
        fail(ErrorCategory::Input, "input '" + options.url + "': no decoder for its video stream");
    AVStream* st = ctx->streams[video_index_];
    stream_tb_ = st->time_base;

    decoder_.reset();  // a reconnect replaces the decoder; the old one goes before its buffers
    buffers_.reset();
    decoder_.reset(avcodec_alloc_context3(codec));
    if (!decoder_) fail(ErrorCategory::Internal, "out of memory creating a decoder");
    VF_AV_CHECK(avcodec_parameters_to_context(decoder_.get(), st->codecpar), ErrorCategory::Input, "decoder setup");
    decoder_->pkt_timebase = st->time_base;
    decoder_->thread_count = options.decoder_threads;
    // Frame threading delays every frame by one per thread; low latency decodes slices in parallel instead.
    decoder_->thread_type = options.live.low_latency ? FF_THREAD_SLICE : FF_THREAD_FRAME | FF_THREAD_SLICE;
    if (options.live.low_latency) decoder_->flags |= AV_CODEC_FLAG_LOW_DELAY;

    const AVPixelFormat fmt = static_cast<AVPixelFormat>(st->codecpar->format);
    if (fmt == AV_PIX_FMT_NONE || st->codecpar->width <= 0 || st->codecpar->height <= 0)
        fail(ErrorCategory::Input, "input '" + options.url + "': cannot determine the video size or pixel format");
    const bool first = info_.format == AV_PIX_FMT_NONE;
    if (options.hwdec != HwDecode::None && (first || nvdec_)) {
        std::string why;
        const AVPixelFormat on_gpu = nvdec_output_format(fmt);
        bool ok = false;
        if (on_gpu == AV_PIX_FMT_NONE)
            why = std::string("NVDEC does not decode ") + av_get_pix_fmt_name(fmt);
        else if (enable_nvdec(decoder_.get(), options.hw_frames_held, &why))
            ok = true;
        if (!first && !ok) fail(ErrorCategory::Device, "the reconnected input cannot be decoded with NVDEC: " + why);
        nvdec_ = ok;
        if (first && nvdec_) spdlog::info("decoding on the GPU (NVDEC), frames stay in device memory as {}", av_get_pix_fmt_name(on_gpu));
        else if (options.hwdec == HwDecode::Cuda && !nvdec_) fail(ErrorCategory::Device, "--hwdec cuda: " + why);
        else if (first && !nvdec_) spdlog::info("{}; decoding on the CPU", why);
        if (first && nvdec_) info_.format = on_gpu;
    }
    if (!nvdec_ && options.frame_alloc) {
        buffers_ = std::make_unique<DecoderBuffers>(options.frame_alloc);
        buffers_->install(decoder_.get());
    }
    err = avcodec_open2(decoder_.get(), codec, nullptr);
    if (err < 0) fail(ErrorCategory::Input, "cannot open the " + std::string(codec->name) + " decoder: " + av_error_string(err));

    // Passthrough streams of this connection, matched to the first connection's by type and codec.
    passthrough_of_.assign(ctx->nb_streams, -1);
    for (unsigned i = 0; i < ctx->nb_streams; ++i) {
        AVStream* s = ctx->streams[i];
        const AVMediaType type = s->codecpar->codec_type;
        if (static_cast<int>(i) == video_index_) continue;
        for (size_t k = 0; k < passthrough_.size(); ++k) {
            const AVCodecParameters* p = passthrough_params_[k];
            const bool taken = std::find(passthrough_of_.begin(), passthrough_of_.end(), passthrough_[k].source_index) !=
                               passthrough_of_.end();
            if (!taken && p->codec_type == type && p->codec_id == s->codecpar->codec_id) {
                passthrough_of_[i] = passthrough_[k].source_index;
                break;
            }
        }
        // Unused streams are discarded; audio is still read (it marks where the input ends).
        if (passthrough_of_[i] < 0 && !first)
            s->discard = type == AVMEDIA_TYPE_AUDIO ? AVDISCARD_NONE : AVDISCARD_ALL;
    }
}

void FileSource::describe_video(const AVStream* st) {
    const AVFormatContext* ctx = format_.get();
    const AVPixelFormat fmt = static_cast<AVPixelFormat>(st->codecpar->format);
    info_.width = st->codecpar->width;
    info_.height = st->codecpar->height;
    if (!nvdec_) info_.format = is_native_format(fmt) ? fmt : native_format_for(fmt);
    if (!nvdec_ && !is_native_format(fmt))
        spdlog::info("input pixel format {} is converted to {}", av_get_pix_fmt_name(fmt), av_get_pix_fmt_name(info_.format));
    info_.time_base = st->time_base;
    info_.frame_rate = av_guess_frame_rate(const_cast<AVFormatContext*>(ctx), const_cast<AVStream*>(st), nullptr);
    if (info_.frame_rate.num <= 0 || info_.frame_rate.den <= 0) info_.frame_rate = {25, 1};
    info_.sample_aspect_ratio =
        av_guess_sample_aspect_ratio(const_cast<AVFormatContext*>(ctx), const_cast<AVStream*>(st), nullptr);
    info_.color_range = st->codecpar->color_range;
    info_.colorspace = st->codecpar->color_space;
    info_.color_primaries = st->codecpar->color_primaries;
    info_.color_trc = st->codecpar->color_trc;
    info_.chroma_location = st->codecpar->chroma_location;
    if (st->duration > 0) info_.duration_s = st->duration * av_q2d(st->time_base);
    else if (ctx->duration > 0) info_.duration_s = ctx->duration / static_cast<double>(AV_TIME_BASE);
    info_.expected_frames = st->nb_frames;
    if (info_.expected_frames <= 0 && info_.duration_s > 0)
        info_.expected_frames = static_cast<int64_t>(std::llround(info_.duration_s * av_q2d(info_.frame_rate)));
}

void FileSource::find_passthrough() {
    AVFormatContext* ctx = format_.get();
    for (unsigned i = 0; i < ctx->nb_streams; ++i) {
        AVStream* s = ctx->streams[i];
        const AVMediaType type = s->codecpar->codec_type;
        if (static_cast<int>(i) == video_index_) continue;
        if (options_.passthrough_audio && (type == AVMEDIA_TYPE_AUDIO || type == AVMEDIA_TYPE_SUBTITLE)) {
            AVCodecParameters* par = avcodec_parameters_alloc();
            AVDictionary* meta = nullptr;
            if (!par || avcodec_parameters_copy(par, s->codecpar) < 0) {
                avcodec_parameters_free(&par);
                fail(ErrorCategory::Internal, "out of memory copying stream parameters");
            }
            av_dict_copy(&meta, s->metadata, 0);
            passthrough_params_.push_back(par);
            passthrough_metadata_.push_back(meta);
            PassthroughStream p;
            p.source_index = static_cast<int>(i);
            p.codecpar = par;
            p.time_base = s->time_base;
            p.metadata = meta;
            p.description = "#" + std::to_string(i) + " " + av_get_media_type_string(type) + " " +
                            avcodec_get_name(s->codecpar->codec_id);
            passthrough_.push_back(p);
            passthrough_of_[i] = static_cast<int>(i);
        } else {
            s->discard = type == AVMEDIA_TYPE_AUDIO ? AVDISCARD_NONE : AVDISCARD_ALL;  // audio still marks the end
        }
    }
}

std::string FileSource::silent_message(const char* doing) const {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", watchdog_.timeout_s());
    return "input '" + options_.url + "' sent nothing for " + buf + " s while " + doing +
           " (--timeout); is the source alive?";
}

DecodeHealth FileSource::health() const { return health_; }

void FileSource::count_decode_error(bool frame) {
    if (cut_ != Cut::None) {
        ++status_.damaged_at_cuts;
        spdlog::debug("a {} damaged where the live input was cut", frame ? "frame" : "packet");
    } else {
        ++(frame ? health_.corrupt_frames : health_.bad_packets);
    }
}

void FileSource::note_read_time(const AVPacket* packet) {
    const int64_t ts = packet->pts != AV_NOPTS_VALUE ? packet->pts : packet->dts;
    if (ts == AV_NOPTS_VALUE) return;
    read_times_.emplace_back(ts, Clock::now());
    if (read_times_.size() > kReadTimesKept) read_times_.pop_front();
}

Clock::time_point FileSource::read_time_of(int64_t pts) {
    for (auto it = read_times_.begin(); it != read_times_.end(); ++it)
        if (it->first == pts) {
            const Clock::time_point t = it->second;
            read_times_.erase(it);
            return t;
        }
    return Clock::now();
}

std::optional<PipelineItem> FileSource::deliver(AvFramePtr decoded) {
    const bool damaged = decoded->decode_error_flags || (decoded->flags & AV_FRAME_FLAG_CORRUPT);
    if (cut_ == Cut::Resuming && (!damaged || frames_since_cut_++ >= kCutGraceFrames)) cut_ = Cut::None;
    if (damaged) count_decode_error(true);
    const int64_t stream_pts = decoded->best_effort_timestamp;
    int64_t pts = stream_pts;
    if (pts != AV_NOPTS_VALUE && av_cmp_q(stream_tb_, info_.time_base) != 0) pts = av_rescale_q(pts, stream_tb_, info_.time_base);
    decoded->pts = continuous_pts(pts, next_index_);
    VideoFrame out;
    out.index = next_index_++;
    out.read_at = read_time_of(stream_pts);
    if (frame_layout_format(decoded.get()) == info_.format && decoded->width == info_.width &&
        decoded->height == info_.height) {
        out.frame = std::move(decoded);  // in device memory for NVDEC, where the kernels read it
    } else {
        if (decoded->format == AV_PIX_FMT_CUDA) {  // a changed size: fetch it to rescale on the host
            AvFramePtr host = make_frame();
            VF_AV_CHECK(av_hwframe_transfer_data(host.get(), decoded.get(), 0), ErrorCategory::Device,
                        "copying a decoded frame from the GPU");
            VF_AV_CHECK(av_frame_copy_props(host.get(), decoded.get()), ErrorCategory::Internal, "frame properties");
            decoded = std::move(host);
        }
        if ((decoded->width != info_.width || decoded->height != info_.height) && !warned_resize_) {
            spdlog::warn("video size changed from {}x{} to {}x{} at frame {}; scaling back to {}x{}", info_.width,
                         info_.height, decoded->width, decoded->height, out.index, info_.width, info_.height);
            warned_resize_ = true;
        }
        out.frame = make_frame();
        converter_.convert(decoded.get(), out.frame.get(), info_.width, info_.height, info_.format);
        ++host_copies_;
    }
    return PipelineItem(std::move(out));
}

int64_t FileSource::continuous_pts(int64_t pts, int64_t index) {
    if (pts == AV_NOPTS_VALUE) return pts;
    const AVRational tb = info_.time_base;
    pts += av_rescale_q(ts_offset_us_, AV_TIME_BASE_Q, tb);
    if (last_pts_ != AV_NOPTS_VALUE && pts <= last_pts_) {
        // Timestamps went back (concatenated parts, a restarted camera): continue one frame
        // interval after the last frame, so the output's timeline stays monotonic.
        const int64_t step = std::max<int64_t>(1, av_rescale_q(1, av_inv_q(info_.frame_rate), tb));
        const int64_t target = last_pts_ + step;
        ts_offset_us_ += av_rescale_q(target - pts, tb, AV_TIME_BASE_Q);
        if (!warned_jump_)
            spdlog::warn("timestamps go back {:.3f} s at frame {} (or repeat); continuing the timeline after the last frame",
                         (last_pts_ - pts) * av_q2d(tb), index);
        warned_jump_ = true;
        pts = target;
    }
    last_pts_ = pts;
    return pts;
}

// After a reconnect the stream starts a new timeline of its own; it continues ours after the
// last frame plus the time the input was down, so the recording's clock stays true.
void FileSource::rebase_timeline(const AVPacket* packet, const AVStream* st) {
    const int64_t ts = packet->dts != AV_NOPTS_VALUE ? packet->dts : packet->pts;
    if (ts == AV_NOPTS_VALUE) return;
    const double gap_s = std::chrono::duration<double>(Clock::now() - down_since_).count();
    status_.gap_s = status_.gap_s + gap_s;
    int64_t resume_us = 0;
    if (last_pts_ != AV_NOPTS_VALUE)
        resume_us = av_rescale_q(last_pts_, info_.time_base, AV_TIME_BASE_Q) +
                    av_rescale_q(1, av_inv_q(info_.frame_rate), AV_TIME_BASE_Q);
    ts_offset_us_ = resume_us + static_cast<int64_t>(gap_s * 1e6) - av_rescale_q(ts, st->time_base, AV_TIME_BASE_Q);
    rebase_pending_ = false;
}

bool FileSource::reconnect() {
    const int max = options_.reconnect_max;
    double delay = options_.reconnect_delay_s;
    for (int attempt = 1; max < 0 || attempt <= max; ++attempt) {
        spdlog::warn("input '{}' is down; reconnecting in {:.1f} s (attempt {}{})", options_.url, delay, attempt,
                     max < 0 ? "" : " of " + std::to_string(max));
        if (!sleep_unless_stopped(delay, stop_requested_)) return false;
        try {
            format_.reset();
            open();
            spdlog::info("input '{}' is back after {:.1f} s", options_.url,
                         std::chrono::duration<double>(Clock::now() - down_since_).count());
            ++status_.reconnects;
            status_.up = true;
            rebase_pending_ = true;
            cut_ = Cut::Resuming;
            frames_since_cut_ = 0;
            draining_ = false;
            went_silent_ = false;
            read_times_.clear();
            return true;
        } catch (const Error& e) {
            if (e.category() != ErrorCategory::Input) throw;  // a usage or GPU problem will not heal
            if (stop_requested_) return false;
            spdlog::warn("{}", e.what());
        }
        delay = std::min(delay * 2, 30.0);
    }
    health_.lost = "the live input went down and " + std::to_string(max) + " reconnect attempts failed (--reconnect-max)";
    return false;
}

void FileSource::check_truncation() {
    const double duration = format_->duration > 0 ? format_->duration / static_cast<double>(AV_TIME_BASE) : 0;
    // Containers disagree on whether their duration counts from the first timestamp or from 0
    // (Matroska), so the input is short only when it falls short both ways.
    const double tolerance = std::max(0.5, 0.02 * duration);
    if (duration > 0 && furthest_s_ > 0 && furthest_s_ < duration - tolerance && furthest_abs_s_ < duration - tolerance) {
        char buf[128];
        std::snprintf(buf, sizeof buf, "the input ends at %.1f s of its stated %.1f s (truncated?)", furthest_s_, duration);
        health_.truncated = buf;
    }
}

std::optional<PipelineItem> FileSource::passthrough_packet(AVStream* st) {
    const int original = passthrough_of_[packet_->stream_index];
    PassthroughPacket p;
    p.packet = make_packet();
    av_packet_move_ref(p.packet.get(), packet_.get());
    for (const PassthroughStream& s : passthrough_) {
        if (s.source_index != original) continue;
        if (av_cmp_q(s.time_base, st->time_base) != 0) av_packet_rescale_ts(p.packet.get(), st->time_base, s.time_base);
        if (ts_offset_us_) {  // keep passthrough streams aligned with the video after a jump or reconnect
            const int64_t shift = av_rescale_q(ts_offset_us_, AV_TIME_BASE_Q, s.time_base);
            if (p.packet->pts != AV_NOPTS_VALUE) p.packet->pts += shift;
            if (p.packet->dts != AV_NOPTS_VALUE) p.packet->dts += shift;
        }
    }
    p.source_stream = original;
    return PipelineItem(std::move(p));
}

std::optional<PipelineItem> FileSource::read() {
    for (;;) {
        if (!receiving_) receiving_ = make_frame();
        const int got = avcodec_receive_frame(decoder_.get(), receiving_.get());
        if (got >= 0) return deliver(std::move(receiving_));
        if (got == AVERROR_EOF) {
            // The decoder gave back every frame of the lost connection: now reconnect.
            if (reconnect_after_drain_) {
                reconnect_after_drain_ = false;
                if (!stop_requested_ && reconnect()) continue;
            }
            return std::nullopt;
        }
        if (got != AVERROR(EAGAIN)) {
            count_decode_error(false);
            spdlog::debug("decoder error: {}", av_error_string(got));
            continue;
        }
        if (draining_) return std::nullopt;  // defensive: a drained decoder that still wants input
        if (stop_requested_) return std::nullopt;

        watchdog_.arm();
        const int err = av_read_frame(format_.get(), packet_.get());
        // The deadline may end a read that still returns a packet (a demuxer flushing what it
        // held); the error comes one call later, so remember that the input went silent.
        if (watchdog_.expired()) went_silent_ = true;
        if (err < 0) {
            if (stop_requested_) return std::nullopt;  // Ctrl-C or --frames interrupted a blocking read
            const std::string why = went_silent_ ? silent_message("reading") : av_error_string(err);
            if (reconnectable_ && options_.reconnect_max != 0) {
                spdlog::warn("input '{}' {}", options_.url, err == AVERROR_EOF ? "ended" : "failed: " + why);
                status_.up = false;
                down_since_ = Clock::now();
                reconnect_after_drain_ = true;
                cut_ = Cut::Draining;
            } else if (err != AVERROR_EOF) {
                ++health_.read_errors;
                spdlog::warn("reading '{}' stopped: {}", options_.url, why);
            } else {
                check_truncation();
            }
            draining_ = true;
            avcodec_send_packet(decoder_.get(), nullptr);
            continue;
        }
        AVStream* st = format_->streams[packet_->stream_index];
        if (rebase_pending_) rebase_timeline(packet_.get(), st);
        if (packet_->pts != AV_NOPTS_VALUE || packet_->dts != AV_NOPTS_VALUE) {
            const int64_t ts = packet_->pts != AV_NOPTS_VALUE ? packet_->pts : packet_->dts;
            const double end = (ts + std::max<int64_t>(packet_->duration, 0)) * av_q2d(st->time_base);
            furthest_abs_s_ = std::max(furthest_abs_s_, end);
            furthest_s_ = std::max(furthest_s_, end - (format_->start_time > 0 ? format_->start_time / double(AV_TIME_BASE) : 0));
        }
        if (packet_->stream_index == video_index_) {
            // --realtime: a packet is read when a live source would have sent it (its dts), so
            // latency counts from there, decoding included.
            if (options_.realtime && packet_->dts != AV_NOPTS_VALUE)
                pacer_.pace(packet_->dts * av_q2d(st->time_base), stop_requested_);
            note_read_time(packet_.get());
            const int sent = avcodec_send_packet(decoder_.get(), packet_.get());
            av_packet_unref(packet_.get());
            if (sent < 0 && sent != AVERROR(EAGAIN)) {
                count_decode_error(false);
                spdlog::debug("video packet rejected: {}", av_error_string(sent));
            }
            continue;
        }
        if (packet_->stream_index < static_cast<int>(passthrough_of_.size()) && passthrough_of_[packet_->stream_index] >= 0)
            return passthrough_packet(st);
        av_packet_unref(packet_.get());
    }
}

}  // namespace vf
