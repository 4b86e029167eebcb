#include "encode/live_fmp4.hpp"

#include <cstdio>

extern "C" {
#include <libavutil/opt.h>
}

#include "common/error.hpp"
#include "encode/jpeg_encoder.hpp"

namespace vf {
namespace {

// avc1.PPCCLL from an H.264 SPS: profile, constraint flags and level, as MSE asks for them. The
// extradata is an avcC record (first byte 1) or Annex B NAL units (start codes).
std::string avc1_codec(const uint8_t* d, int size) {
    char s[32];
    if (size >= 4 && d[0] == 1) {
        std::snprintf(s, sizeof s, "avc1.%02x%02x%02x", d[1], d[2], d[3]);
        return s;
    }
    for (int i = 0; i + 6 < size; ++i)
        if (d[i] == 0 && d[i + 1] == 0 && d[i + 2] == 1 && (d[i + 3] & 0x1f) == 7) {
            std::snprintf(s, sizeof s, "avc1.%02x%02x%02x", d[i + 4], d[i + 5], d[i + 6]);
            return s;
        }
    return "avc1.42c01f";  // constrained baseline 3.1
}

const std::string kNothing;

}  // namespace

// ---- LiveFmp4Writer -----------------------------------------------------------------------------

LiveFmp4Writer::LiveFmp4Writer(const AVCodecParameters& codecpar, AVRational time_base) : time_base_(time_base) {
    if (codecpar.codec_id != AV_CODEC_ID_H264 || codecpar.extradata_size <= 0)
        fail(ErrorCategory::Internal, "live video: needs H.264 with its SPS and PPS as extradata");
    codec_ = avc1_codec(codecpar.extradata, codecpar.extradata_size);
    try {
        av_check(avformat_alloc_output_context2(&mux_, nullptr, "mp4", nullptr), ErrorCategory::Internal,
                 "live video: creating the MP4 muxer");
        const int buffer_size = 64 * 1024;
        auto* buffer = static_cast<unsigned char*>(av_malloc(buffer_size));
        if (!buffer) fail(ErrorCategory::Internal, "live video: out of memory");
        mux_->pb = avio_alloc_context(buffer, buffer_size, 1, this, nullptr, &LiveFmp4Writer::write_bytes, nullptr);
        if (!mux_->pb) {
            av_free(buffer);
            fail(ErrorCategory::Internal, "live video: out of memory");
        }
        mux_->flags |= AVFMT_FLAG_CUSTOM_IO;
        stream_ = avformat_new_stream(mux_, nullptr);
        if (!stream_) fail(ErrorCategory::Internal, "live video: out of memory");
        av_check(avcodec_parameters_copy(stream_->codecpar, &codecpar), ErrorCategory::Internal, "live video: stream setup");
        stream_->codecpar->codec_tag = 0;
        stream_->time_base = time_base;
        AVDictionary* options = nullptr;
        // Fragments only where write() flushes one: one a frame. empty_moov: the init segment
        // holds no samples; default_base_moof: what MSE expects of each fragment's offsets.
        av_dict_set(&options, "movflags", "frag_custom+empty_moov+default_base_moof+omit_tfhd_offset", 0);
        const int err = avformat_write_header(mux_, &options);
        av_dict_free(&options);
        av_check(err, ErrorCategory::Internal, "live video: starting the MP4 stream");
        avio_flush(mux_->pb);
    } catch (...) {
        release();  // a constructor that throws runs no destructor
        throw;
    }
    init_ = std::move(written_);
    written_.clear();
}

LiveFmp4Writer::~LiveFmp4Writer() { release(); }

void LiveFmp4Writer::release() {
    if (mux_) {
        if (mux_->pb) {
            av_freep(&mux_->pb->buffer);
            avio_context_free(&mux_->pb);
        }
        avformat_free_context(mux_);
        mux_ = nullptr;
    }
}

int LiveFmp4Writer::write_bytes(void* self, AvioWriteBuffer data, int size) {
    static_cast<LiveFmp4Writer*>(self)->written_.append(reinterpret_cast<const char*>(data), static_cast<size_t>(size));
    return size;
}

std::vector<LiveFragment> LiveFmp4Writer::write(const AVPacket& packet, int64_t taken_ms) {
    AvPacketPtr p = make_packet();
    av_check(av_packet_ref(p.get(), &packet), ErrorCategory::Internal, "live video: taking a packet");
    if (p->dts == AV_NOPTS_VALUE) p->dts = p->pts;
    if (first_dts_ == AV_NOPTS_VALUE) first_dts_ = p->dts;
    p->dts -= first_dts_;  // the timeline starts at 0, B-frames' decode times included
    p->pts -= first_dts_;
    std::vector<LiveFragment> out;
    if (held_) {
        if (p->dts <= held_->dts) p->dts = held_->dts + 1;  // a muxer takes only increasing times
        if (p->pts < p->dts) p->pts = p->dts;
        held_->duration = p->dts - held_->dts;
        out.push_back(flush_held());
    }
    held_ = std::move(p);
    held_taken_ms_ = taken_ms;
    return out;
}

LiveFragment LiveFmp4Writer::flush_held() {
    LiveFragment f;
    f.keyframe = (held_->flags & AV_PKT_FLAG_KEY) != 0;
    f.pts_ms = av_rescale_q(held_->pts, time_base_, {1, 1000});
    f.taken_ms = held_taken_ms_;
    av_packet_rescale_ts(held_.get(), time_base_, stream_->time_base);
    held_->stream_index = stream_->index;
    av_check(av_write_frame(mux_, held_.get()), ErrorCategory::Internal, "live video: writing a fragment");
    av_check(av_write_frame(mux_, nullptr), ErrorCategory::Internal, "live video: writing a fragment");  // the fragment, now
    avio_flush(mux_->pb);
    f.bytes = std::move(written_);
    written_.clear();
    held_.reset();
    return f;
}

// ---- LiveFmp4Encoder ----------------------------------------------------------------------------

LiveFmp4Encoder::LiveFmp4Encoder(int width, double gop_s) : asked_width_(width), gop_s_(gop_s), packet_(make_packet()) {}

LiveFmp4Encoder::~LiveFmp4Encoder() = default;

const std::string& LiveFmp4Encoder::init_segment() const { return writer_ ? writer_->init_segment() : kNothing; }
const std::string& LiveFmp4Encoder::codec() const { return writer_ ? writer_->codec() : kNothing; }

void LiveFmp4Encoder::open(const AVFrame& frame) {
    writer_.reset();
    encoder_.reset();
    in_width_ = frame.width;
    in_height_ = frame.height;
    const JpegSize size = jpeg_size(frame.width, frame.height, frame.sample_aspect_ratio, asked_width_);
    out_width_ = size.width;
    out_height_ = size.height;

    const AVCodec* codec = avcodec_find_encoder_by_name("libx264");
    if (!codec) fail(ErrorCategory::Internal, "live video: this FFmpeg has no libx264 encoder");
    encoder_.reset(avcodec_alloc_context3(codec));
    if (!encoder_) fail(ErrorCategory::Internal, "live video: out of memory");
    AVCodecContext* enc = encoder_.get();
    enc->width = out_width_;
    enc->height = out_height_;
    enc->pix_fmt = AV_PIX_FMT_YUV420P;
    enc->time_base = {1, 1000};  // milliseconds of a steady clock
    enc->gop_size = 100000;      // keyframes are placed by encode(): every gop_s, and when asked
    enc->max_b_frames = 0;
    enc->thread_count = 2;
    enc->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;  // the moov's avcC
    av_opt_set(enc->priv_data, "preset", "ultrafast", 0);
    av_opt_set(enc->priv_data, "tune", "zerolatency", 0);
    av_opt_set(enc->priv_data, "crf", "26", 0);
    av_check(avcodec_open2(enc, codec, nullptr), ErrorCategory::Internal, "live video: opening libx264");
    AVCodecParameters* par = avcodec_parameters_alloc();
    if (!par) fail(ErrorCategory::Internal, "live video: out of memory");
    const int err = avcodec_parameters_from_context(par, enc);
    if (err >= 0) {
        try {
            writer_ = std::make_unique<LiveFmp4Writer>(*par, enc->time_base);
        } catch (...) {
            avcodec_parameters_free(&par);
            throw;
        }
    }
    avcodec_parameters_free(&par);
    av_check(err, ErrorCategory::Internal, "live video: stream setup");
    ++init_generation_;
    first_ms_ = -1;
    last_pts_ = -1;
    next_keyframe_ms_ = 0;
}

std::vector<LiveFragment> LiveFmp4Encoder::encode(const AVFrame& in, int64_t taken_ms) {
    AvFramePtr downloaded;
    const AVFrame* frame = host_frame(in, downloaded, "live video");
    if (frame->width <= 0 || frame->height <= 0 || frame->format < 0)
        fail(ErrorCategory::Internal, "live video: frames of this format or size cannot be shown");
    // A new size makes a new stream (init segment); a new layout (a stream whose decoding moved
    // between NVDEC and the CPU) is only converted otherwise.
    if (!encoder_ || frame->width != in_width_ || frame->height != in_height_) open(*frame);

    if (!scaled_) scaled_ = make_frame();
    converter_.convert(frame, scaled_.get(), out_width_, out_height_, AV_PIX_FMT_YUV420P);
    if (first_ms_ < 0) first_ms_ = taken_ms;
    int64_t pts = taken_ms - first_ms_;
    if (pts <= last_pts_) pts = last_pts_ + 1;
    last_pts_ = pts;
    scaled_->pts = pts;
    scaled_->pict_type = AV_PICTURE_TYPE_NONE;
    if (keyframe_asked_ || pts >= next_keyframe_ms_) {
        scaled_->pict_type = AV_PICTURE_TYPE_I;
        keyframe_asked_ = false;
        next_keyframe_ms_ = pts + static_cast<int64_t>(gop_s_ * 1000);
    }
    av_check(avcodec_send_frame(encoder_.get(), scaled_.get()), ErrorCategory::Internal, "live video: encoding");
    std::vector<LiveFragment> out;
    for (;;) {
        const int err = avcodec_receive_packet(encoder_.get(), packet_.get());
        if (err == AVERROR(EAGAIN) || err == AVERROR_EOF) break;
        av_check(err, ErrorCategory::Internal, "live video: encoding");
        // With zero latency the packet is this frame's: it arrived at taken_ms.
        for (LiveFragment& f : writer_->write(*packet_, taken_ms)) out.push_back(std::move(f));
        av_packet_unref(packet_.get());
    }
    return out;
}

}  // namespace vf
