#include "decode/file_source.hpp"

#include "decode/clean_start.hpp"
#include "decode/input_open.hpp"
#include "decode/live_input.hpp"
#include "media/protocols.hpp"
#include "media/rgb_planes.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <thread>

extern "C" {
#include <libavutil/hwcontext.h>
}

namespace vf {
namespace {

// Frame threads for a live or paced input decoded on the CPU: each frame thread holds every frame
// back a frame period (serve's whole share of threads made one camera wait half a second:
// docs/benchmarks.md), so only as many as real time needs: one up to 1080p30's pixels a second,
// which one core decodes in a fraction of a frame period, beyond it one for each 1080p30's worth
// and one to spare (a heavier codec such as HEVC, a busier core). At most `limit` (serve's share,
// or the cores).
int live_cpu_decoder_threads(const AVStream* st, int limit) {
    const AVRational rate = st->avg_frame_rate.num > 0 ? st->avg_frame_rate : st->r_frame_rate;
    const double fps = rate.num > 0 && rate.den > 0 ? std::min(av_q2d(rate), 240.0) : 0;
    const double cameras = in_1080p30_cameras(st->codecpar->width, st->codecpar->height, fps);
    const int needed = cameras <= 1.01 ? 1 : static_cast<int>(std::ceil(cameras)) + 1;
    return std::clamp(needed, 1, std::max(1, limit));
}

}  // namespace

FileSource::FileSource(const FileSourceOptions& options)
    : options_(options), watchdog_(input_timeout(options.url, options.timeout_s), &stop_requested_), packet_(make_packet()) {
    if (!options_.nvdec_device) options_.nvdec_device = std::make_shared<NvdecDevice>(options_.gpu_index, 0);
    open();
    if (options_.seek_s > 0) seek_input(format_.get(), options_.seek_s, options_.url);
    const AVStream* st = format_->streams[video_index_];
    const AVPixelFormat decoded = static_cast<AVPixelFormat>(st->codecpar->format);
    const AVPixelFormat on_gpu = info_.format;  // set by open() when NVDEC decodes
    info_ = describe_video_stream(format_.get(), st);
    info_.format = nvdec_ ? on_gpu : is_native_format(decoded) ? decoded : native_format_for(decoded);
    if (!nvdec_ && rgb_repackable(decoded, info_.format) && decoded != info_.format) {
        info_.stored_format = decoded;  // the output writes it back where its encoder takes it
        spdlog::debug("input pixel format {} is filtered as the planes of {}", av_get_pix_fmt_name(decoded),
                      av_get_pix_fmt_name(info_.format));
    } else if (!nvdec_ && !is_native_format(decoded)) {
        spdlog::info("input pixel format {} is converted to {}", av_get_pix_fmt_name(decoded), av_get_pix_fmt_name(info_.format));
    }
    av_dict_copy(&metadata_, format_->metadata, 0);
    passthrough_.choose(format_.get(), video_index_, options.passthrough_audio);
    if (live_) spdlog::debug("'{}' is a live input", options.url);
    description_ = "'" + options_.url + "' (" + format_->iformat->name + ", " + avcodec_get_name(decoder_->codec_id) +
                   " " + std::to_string(info_.width) + "x" + std::to_string(info_.height) + " " +
                   av_get_pix_fmt_name(info_.stored_format != AV_PIX_FMT_NONE ? info_.stored_format : info_.format) +
                   (nvdec_ ? ", NVDEC" : "") + (live_ ? ", live" : "") + ")";
}

FileSource::~FileSource() {
    own_nvdec_.reset();
    nvdec_turn_.reset();
    decoder_.reset();
    buffers_.reset();
    format_.reset();
    av_dict_free(&metadata_);
}

void FileSource::open() {
    const AVCodec* forced = nullptr;
    if (!options_.video_decoder.empty()) {
        forced = avcodec_find_decoder_by_name(options_.video_decoder.c_str());
        if (!forced || forced->type != AVMEDIA_TYPE_VIDEO)
            fail(ErrorCategory::Usage, "--decoder '" + options_.video_decoder + "': not a video decoder of this FFmpeg (ffmpeg -decoders lists them)");
    }
    format_ = open_demuxer(options_.url, options_.live, options_.allowed_protocols, watchdog_, forced);
    AVFormatContext* ctx = format_.get();
    const AVCodec* codec = nullptr;
    video_index_ = av_find_best_stream(ctx, AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0);
    if (forced && video_index_ >= 0) codec = forced;
    if (video_index_ == AVERROR_STREAM_NOT_FOUND)
        fail(ErrorCategory::Input, "input '" + options_.url + "' has no video stream");
    if (video_index_ < 0 || !codec)
        fail_lasting(ErrorCategory::Input, "input '" + options_.url + "': no decoder for its video stream");
    const AVStream* st = ctx->streams[video_index_];
    stream_tb_ = st->time_base;
    const bool first = info_.format == AV_PIX_FMT_NONE;
    if (first) {  // before the decoder, whose threads depend on it
        const std::string proto = input_protocol(options_.url);
        reconnectable_ = is_live_url(options_.url) || ((proto == "http" || proto == "https") && ctx->duration <= 0);
        live_ = reconnectable_ || options_.realtime;
    }
    open_decoder(codec, st, first ? DecoderOpen::First : DecoderOpen::Reconnect, first ? options_.hwdec != HwDecode::None : nvdec_.load());
    if (!first) passthrough_.match(ctx, video_index_);
}

void FileSource::open_decoder(const AVCodec* codec, const AVStream* st, DecoderOpen why_open, bool nvdec_wanted) {
    const bool first = why_open == DecoderOpen::First;
    own_nvdec_.reset();
    decoder_.reset();  // a reconnect or a move replaces the decoder; the old one goes before its buffers
    buffers_.reset();
    nvdec_ = false;
    vfilter_nvdec_ = false;
    decoder_.reset(avcodec_alloc_context3(codec));
    if (!decoder_) fail(ErrorCategory::Internal, "out of memory creating a decoder");
    VF_AV_CHECK(avcodec_parameters_to_context(decoder_.get(), st->codecpar), ErrorCategory::Input, "decoder setup");
    decoder_->pkt_timebase = st->time_base;
    decoder_->thread_count = options_.decoder_threads;
    // Frame threading delays every frame by one per thread; low latency decodes slices in parallel instead.
    decoder_->thread_type = options_.live.low_latency ? FF_THREAD_SLICE : FF_THREAD_FRAME | FF_THREAD_SLICE;
    if (options_.live.low_latency) decoder_->flags |= AV_CODEC_FLAG_LOW_DELAY;

    const AVPixelFormat fmt = static_cast<AVPixelFormat>(st->codecpar->format);
    if (fmt == AV_PIX_FMT_NONE || st->codecpar->width <= 0 || st->codecpar->height <= 0)
        fail(ErrorCategory::Input, "input '" + options_.url + "': cannot determine the video size or pixel format");
    // serve --nvdec-share: a stream that would wait for its shared decoder to be made (the driver
    // makes one at a time for the whole machine, ~0.1 s each) decodes on the CPU meanwhile; read()
    // moves it to NVDEC at a clean start once its turn is ready.
    if (first && nvdec_wanted && waits_on_cpu_for_nvdec(st)) {
        nvdec_turn_ = options_.nvdec_device->pool()->turn(nvdec_stream_kind(st, nvdec_ahead()));
        if (!nvdec_turn_->ready()) {
            nvdec_wanted = false;
            waiting_for_nvdec_ = true;
            spdlog::info("the shared NVDEC decoders of GPU {} have no room for this stream yet: the CPU decodes until one is made",
                         options_.gpu_index);
        }
    }
    // NVDEC is chosen on the first connection (or by a move); a reconnect decodes the same way.
    if (nvdec_wanted) {
        std::string why;
        const AVPixelFormat on_gpu = nvdec_output_format(fmt);
        bool ok = false;
        if (on_gpu == AV_PIX_FMT_NONE)
            why = std::string("NVDEC does not decode ") + av_get_pix_fmt_name(fmt);
        else {
            // NVDEC decodes; frame threads overlap parsing and surface mapping of several
            // frames, one more surface each: serve's share of threads, up to 3. One for a live
            // or paced input, which needs no overlap at its own pace, while each frame thread
            // would hold every frame back a frame period (one NVDEC camera in serve: p99
            // latency 69 ms with 3, 34 with 2); and with low latency.
            if (options_.decoder_threads == 0 && !options_.live.low_latency && !live_)
                decoder_->thread_count = std::clamp(options_.software_decoder_threads, 1, 3);
            if (options_.nvdec_decoder == NvdecDecoderKind::Vfilter) ok = open_own_nvdec(st, &why);
            if (!ok) ok = enable_nvdec(decoder_.get(), options_.hw_frames_held, &why, options_.gpu_index);
        }
        if (why_open == DecoderOpen::Reconnect && !ok)
            fail(ErrorCategory::Device, "the reconnected input cannot be decoded with NVDEC: " + why);
        nvdec_ = ok;
        vfilter_nvdec_ = own_nvdec_ != nullptr;
        nvdec_decoding_ = false;  // a new decoder: created on its first frame
        if (ok && !nvdec_gate_) nvdec_gate_ = options_.nvdec_device->gate();
        if (first && nvdec_)
            spdlog::info("decoding on the GPU (NVDEC{}), frames stay in device memory as {}", own_nvdec_ ? ", vfilter's decoder" : "",
                         av_get_pix_fmt_name(on_gpu));
        else if (options_.hwdec == HwDecode::Cuda && !nvdec_) fail(ErrorCategory::Device, "--hwdec cuda: " + why);
        else if (first && !nvdec_) spdlog::info("{}; decoding on the CPU", why);
        else if (why_open == DecoderOpen::Move && !nvdec_) spdlog::warn("the decoder cannot move to NVDEC ({}); the CPU decodes on", why);
        if (first && nvdec_) info_.format = on_gpu;
    }
    if (own_nvdec_) return;  // FFmpeg's decoder stays unopened: it only describes the codec
    if (!nvdec_ && options_.decoder_threads == 0) {
        int threads = options_.software_decoder_threads;  // serve's share; 0: FFmpeg's own count (a core each)
        if (live_ && !options_.live.low_latency) {
            const int cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
            threads = live_cpu_decoder_threads(st, threads > 0 ? threads : cores);
        }
        decoder_->thread_count = threads;
    }
    if (!nvdec_ && options_.frame_alloc) {
        buffers_ = std::make_unique<DecoderBuffers>(options_.frame_alloc);
        buffers_->install(decoder_.get());
    }
    const int err = avcodec_open2(decoder_.get(), codec, nullptr);
    if (err < 0) fail(ErrorCategory::Input, "cannot open the " + std::string(codec->name) + " decoder: " + av_error_string(err));
}

bool FileSource::open_own_nvdec(const AVStream* st, std::string* why) {
    AVBufferRef* device = make_nvdec_device(options_.gpu_index, why);
    if (!device) return false;
    // A live input's frame waits for no other; a file's decoder sends a few ahead.
    own_nvdec_ = NvdecDecoder::open(st, device, nvdec_ahead(), options_.nvdec_share ? options_.nvdec_device->pool() : nullptr,
                                    nvdec_turn_.get(), why);
    av_buffer_unref(&device);  // the decoder holds its own reference
    nvdec_turn_.reset();       // its held slice went to the decoder (or back to the pool)
    waiting_for_nvdec_ = false;
    if (!own_nvdec_) spdlog::info("--nvdec-decoder vfilter: {}; FFmpeg's NVDEC decodes instead", *why);
    return own_nvdec_ != nullptr;
}

bool FileSource::waits_on_cpu_for_nvdec(const AVStream* st) const {
    const AVCodecParameters* par = st->codecpar;
    // Not a live input: 128 cameras starting on the CPU had their last camera's frames no sooner,
    // and their moves dropped frames under a camera's policy (176 of 38400; docs/benchmarks.md,
    // "Shared NVDEC decoders").
    return !live_ && options_.nvdec_share && options_.nvdec_wait_on_cpu && options_.decoder_movable && options_.hwdec == HwDecode::Auto &&
           options_.nvdec_decoder == NvdecDecoderKind::Vfilter && par->codec_id == AV_CODEC_ID_H264 &&
           (par->format == AV_PIX_FMT_YUV420P || par->format == AV_PIX_FMT_YUVJ420P);
}

bool FileSource::request_decoder_move(bool nvdec) {
    if (!options_.decoder_movable) return false;
    move_to_ = nvdec ? 1 : 0;
    return true;
}

bool FileSource::move_starts_here() const {
    const int to = move_to_.load();
    return to >= 0 && (to == 1) != nvdec_ && starts_clean_decode(packet_.get(), format_->streams[video_index_]->codecpar);
}

void FileSource::start_move() {
    move_target_ = move_to_.exchange(-1) == 1;
    moving_ = true;
    move_started_ = Clock::now();
    move_start_ = make_packet();
    av_packet_move_ref(move_start_.get(), packet_.get());
    const NvdecGate::Pass pass = gate_pass();
    send_to_decoder(nullptr);  // the old decoder gives out every frame it holds, then AVERROR_EOF
}

void FileSource::finish_move() {
    moving_ = false;
    const bool was_nvdec = nvdec_;
    const AVCodec* codec = decoder_->codec;
    const auto opening = Clock::now();
    if (move_started_) move_drain_ms_ = std::chrono::duration<double, std::milli>(opening - *move_started_).count();
    open_decoder(codec, format_->streams[video_index_], DecoderOpen::Move, move_target_);
    move_open_ms_ = std::chrono::duration<double, std::milli>(Clock::now() - opening).count();
    if (nvdec_ == was_nvdec) move_started_.reset();  // NVDEC refused: nothing moved
    send_video_packet(move_start_.get());
    if (decoder_moved_) decoder_moved_(nvdec_);
}

void FileSource::send_video_packet(AVPacket* packet) {
    int sent;
    {
        const NvdecGate::Pass pass = gate_pass();
        sent = send_to_decoder(packet);
    }
    av_packet_unref(packet);
    if (sent < 0 && sent != AVERROR(EAGAIN)) {
        damage_.packet_rejected();
        spdlog::debug("video packet rejected: {}", av_error_string(sent));
    }
}

int FileSource::send_to_decoder(const AVPacket* packet) {
    const int err = own_nvdec_ ? own_nvdec_->send(packet) : avcodec_send_packet(decoder_.get(), packet);
    if (err < 0 && own_nvdec_ && !own_nvdec_->last_error().empty()) spdlog::debug("{}", own_nvdec_->last_error());
    return err;
}

int FileSource::receive_from_decoder(AVFrame* frame) {
    const int err = own_nvdec_ ? own_nvdec_->receive(frame) : avcodec_receive_frame(decoder_.get(), frame);
    // Damaged data is counted by the caller (as FFmpeg's decoder errors are); a driver failure is news.
    if (err < 0 && err != AVERROR(EAGAIN) && err != AVERROR_EOF && own_nvdec_) {
        if (err == AVERROR_INVALIDDATA)
            spdlog::debug("{}", own_nvdec_->last_error());
        else
            spdlog::warn("{}", own_nvdec_->last_error());
    }
    return err;
}

std::optional<PipelineItem> FileSource::deliver(AvFramePtr decoded) {
    damage_.frame_decoded(decoded->decode_error_flags || (decoded->flags & AV_FRAME_FLAG_CORRUPT));
    const int64_t stream_pts = decoded->best_effort_timestamp;
    int64_t pts = stream_pts;
    if (pts != AV_NOPTS_VALUE && av_cmp_q(stream_tb_, info_.time_base) != 0) pts = av_rescale_q(pts, stream_tb_, info_.time_base);
    decoded->pts = timeline_.continuous_pts(pts, next_index_);
    VideoFrame out;
    out.index = next_index_++;
    out.read_at = timeline_.read_time_of(stream_pts);
    const AVPixelFormat layout = frame_layout_format(decoded.get());
    // A stream that may move between decoders gives out either decoder's frames as they are (the
    // GPU stage takes NVDEC's in device memory and the CPU's in any native layout): converting
    // them to the first decoder's layout would copy every frame on the host.
    const bool layout_taken =
        layout == info_.format || (options_.decoder_movable && (decoded->format == AV_PIX_FMT_CUDA || is_native_format(layout)));
    if (layout_taken && decoded->width == info_.width && decoded->height == info_.height) {
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
            damage_.reconnected();
            draining_ = false;
            went_silent_ = false;
            timeline_.forget_reads();
            return true;
        } catch (const Error& e) {
            if (e.category() != ErrorCategory::Input) throw;  // a usage or GPU problem will not heal
            if (stop_requested_) return false;
            spdlog::warn("{}", e.what());
        }
        delay = next_reconnect_delay(delay);
    }
    damage_.health().lost =
        "the live input went down and " + std::to_string(max) + " reconnect attempts failed (--reconnect-max)";
    return false;
}

void FileSource::input_ended(int err) {
    const std::string why = went_silent_ ? silent_message(options_.url, watchdog_.timeout_s(), "reading") : av_error_string(err);
    if (reconnectable_ && options_.reconnect_max != 0) {
        spdlog::warn("input '{}' {}", options_.url, err == AVERROR_EOF ? "ended" : "failed: " + why);
        status_.up = false;
        down_since_ = Clock::now();
        reconnect_after_drain_ = true;
        damage_.connection_lost();
    } else if (err != AVERROR_EOF) {
        ++damage_.health().read_errors;
        spdlog::warn("reading '{}' stopped: {}", options_.url, why);
    } else {
        damage_.health().truncated = timeline_.truncation(format_->duration);
    }
    drain_decoder();
}

void FileSource::drain_decoder() {
    // Nothing more is read, but what arrived is kept: the frames the decoder holds (one a frame
    // thread; a live input stopped by Ctrl-C lost 7 with 8 threads) come out before the end.
    draining_ = true;
    const NvdecGate::Pass pass = gate_pass();
    send_to_decoder(nullptr);
}

std::optional<PipelineItem> FileSource::read() {
    for (;;) {
        if (!receiving_) receiving_ = make_frame();
        int got;
        {
            const NvdecGate::Pass pass = gate_pass();
            got = receive_from_decoder(receiving_.get());
        }
        if (got >= 0) {
            nvdec_decoding_ = nvdec_;
            if (move_started_ && !moving_) {  // the new decoder's first frame: what the move cost this stream
                spdlog::info("decoding moved to {} at frame {} (a key frame); its first frame came {:.0f} ms after the key frame was read "
                             "(the old decoder's last frames {:.0f} ms, opening the new one {:.0f} ms)",
                             nvdec_ ? "NVDEC" : "the CPU", next_index_,
                             std::chrono::duration<double, std::milli>(Clock::now() - *move_started_).count(), move_drain_ms_,
                             move_open_ms_);
                move_started_.reset();
            }
            return deliver(std::move(receiving_));
        }
        if (got == AVERROR_EOF) {
            if (moving_) {  // the old decoder gave out its last frame: the new one starts at the held key frame
                finish_move();
                continue;
            }
            // The decoder gave back every frame of the lost connection: now reconnect.
            if (reconnect_after_drain_) {
                reconnect_after_drain_ = false;
                if (!stop_requested_ && reconnect()) continue;
            }
            return std::nullopt;
        }
        if (got != AVERROR(EAGAIN)) {
            damage_.packet_rejected();
            spdlog::debug("decoder error: {}", av_error_string(got));
            continue;
        }
        if (draining_) return std::nullopt;  // defensive: a drained decoder that still wants input
        if (stop_requested_) {
            drain_decoder();
            continue;
        }

        watchdog_.arm();
        const int err = av_read_frame(format_.get(), packet_.get());
        // The deadline may end a read that still returns a packet (a demuxer flushing what it
        // held); the error comes one call later, so remember that the input went silent.
        if (watchdog_.expired()) went_silent_ = true;
        if (err < 0) {
            if (stop_requested_)  // Ctrl-C or --frames interrupted a blocking read
                drain_decoder();
            else
                input_ended(err);
            continue;
        }
        if (stop_requested_) {
            // Asked to stop during the read: FFmpeg's demuxer ends an interrupted read by flushing
            // its parser, which hands over the part of the next frame that had arrived (a live
            // camera's lone access unit delimiter). Decoding it would count as damage and fail a
            // run the user stopped, so nothing read after the stop is decoded.
            av_packet_unref(packet_.get());
            drain_decoder();
            continue;
        }
        if (std::optional<PipelineItem> item = route_packet()) return item;
    }
}

std::optional<PipelineItem> FileSource::route_packet() {
    const AVStream* st = format_->streams[packet_->stream_index];
    if (rebase_pending_) {
        const double gap_s = std::chrono::duration<double>(Clock::now() - down_since_).count();
        if (timeline_.rebase(packet_.get(), st->time_base, gap_s)) {
            status_.gap_s = status_.gap_s + gap_s;
            rebase_pending_ = false;
        }
    }
    timeline_.note_extent(packet_.get(), st->time_base, format_->start_time);
    if (packet_->stream_index == video_index_) {
        // --realtime: a packet is read when a live source would have sent it (its dts), so
        // latency counts from there, decoding included.
        if (options_.realtime && packet_->dts != AV_NOPTS_VALUE)
            pacer_.pace(packet_->dts * av_q2d(st->time_base), stop_requested_);
        timeline_.note_read(packet_.get());
        if (nvdec_turn_ && !nvdec_ && !moving_ && starts_clean_decode(packet_.get(), st->codecpar) && nvdec_turn_->ready())
            move_to_ = 1;  // a shared decoder has room now (a slice is held): NVDEC decodes from this clean start
        if (move_starts_here()) start_move();
        else send_video_packet(packet_.get());
        return std::nullopt;
    }
    if (passthrough_.carries(packet_->stream_index)) {
        PassthroughPacket p = passthrough_.take(packet_.get(), st);
        // Passthrough streams stay aligned with the video after a jump back or a reconnect.
        timeline_.shift(p.packet.get(), passthrough_.time_base(p.source_stream));
        return PipelineItem(std::move(p));
    }
    av_packet_unref(packet_.get());
    return std::nullopt;
}

}  // namespace vf
