#include "support/clip_writer.hpp"

#include <cmath>
#include <random>
#include <stdexcept>

extern "C" {
#include <libavutil/channel_layout.h>
#include <libavutil/imgutils.h>
}

namespace vf::test {
namespace {

void check(int err, const char* what) {
    if (err < 0) throw std::runtime_error(std::string(what) + ": " + av_error_string(err));
}

struct Encoder {
    AvCodecContextPtr ctx;
    AVStream* stream = nullptr;
};

void drain(AVFormatContext* mux, Encoder& e, AVPacket* pkt) {
    for (;;) {
        const int err = avcodec_receive_packet(e.ctx.get(), pkt);
        if (err == AVERROR(EAGAIN) || err == AVERROR_EOF) return;
        check(err, "receive packet");
        av_packet_rescale_ts(pkt, e.ctx->time_base, e.stream->time_base);
        pkt->stream_index = e.stream->index;
        check(av_interleaved_write_frame(mux, pkt), "write packet");
    }
}

}  // namespace

std::vector<AvFramePtr> write_clip(const ClipSpec& spec) {
    AVFormatContext* mux = nullptr;
    check(avformat_alloc_output_context2(&mux, nullptr, nullptr, spec.path.c_str()), "output context");
    std::unique_ptr<AVFormatContext, void (*)(AVFormatContext*)> mux_guard(mux, [](AVFormatContext* m) {
        if (m->pb) avio_closep(&m->pb);
        avformat_free_context(m);
    });

    Encoder video;
    const AVCodec* vc = avcodec_find_encoder_by_name(spec.video_codec.c_str());
    if (!vc) throw std::runtime_error("no encoder " + spec.video_codec);
    video.ctx.reset(avcodec_alloc_context3(vc));
    video.ctx->width = spec.width;
    video.ctx->height = spec.height;
    video.ctx->pix_fmt = spec.format;
    video.ctx->time_base = av_inv_q(spec.frame_rate);
    video.ctx->framerate = spec.frame_rate;
    video.ctx->sample_aspect_ratio = {1, 1};
    if (spec.gop_size > 0) video.ctx->gop_size = spec.gop_size;
    if (mux->oformat->flags & AVFMT_GLOBALHEADER) video.ctx->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    check(avcodec_open2(video.ctx.get(), vc, nullptr), "open video encoder");
    video.stream = avformat_new_stream(mux, nullptr);
    avcodec_parameters_from_context(video.stream->codecpar, video.ctx.get());
    video.stream->time_base = video.ctx->time_base;

    Encoder audio;
    if (spec.audio) {
        const bool mp4 = std::string(mux->oformat->name).find("mp4") != std::string::npos;
        const AVCodec* ac = avcodec_find_encoder(mp4 ? AV_CODEC_ID_AAC : AV_CODEC_ID_MP2);
        audio.ctx.reset(avcodec_alloc_context3(ac));
        audio.ctx->sample_rate = 48000;
        audio.ctx->sample_fmt = ac->sample_fmts[0];
        av_channel_layout_default(&audio.ctx->ch_layout, 2);
        audio.ctx->bit_rate = 128000;
        audio.ctx->time_base = {1, 48000};
        if (mux->oformat->flags & AVFMT_GLOBALHEADER) audio.ctx->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
        check(avcodec_open2(audio.ctx.get(), ac, nullptr), "open audio encoder");
        audio.stream = avformat_new_stream(mux, nullptr);
        avcodec_parameters_from_context(audio.stream->codecpar, audio.ctx.get());
        audio.stream->time_base = audio.ctx->time_base;
    }
    check(avio_open(&mux->pb, spec.path.c_str(), AVIO_FLAG_WRITE), "open file");
    check(avformat_write_header(mux, nullptr), "header");

    AvPacketPtr pkt = make_packet();
    std::vector<AvFramePtr> frames;
    std::mt19937 rng(spec.seed);
    const double duration = spec.frames * av_q2d(av_inv_q(spec.frame_rate));
    int64_t audio_samples = 0;
    for (int i = 0; i < spec.frames; ++i) {
        AvFramePtr f = make_frame();
        f->width = spec.width;
        f->height = spec.height;
        f->format = spec.format;
        check(av_frame_get_buffer(f.get(), 0), "frame buffer");
        // RGB: random alpha, and random padding bytes (rgb0), which no channel view covers.
        if (const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(spec.format); d && (d->flags & AV_PIX_FMT_FLAG_RGB))
            for (int p = 0; p < 4 && f->data[p]; ++p)
                for (int y = 0; y < spec.height; ++y)
                    for (int x = 0; x < av_image_get_linesize(spec.format, spec.width, p); ++x)
                        f->data[p][y * f->linesize[p] + x] = static_cast<uint8_t>(rng());
        for (const PlaneView& v : channel_views(f.get())) {
            std::uniform_int_distribution<int> d(0, v.peak());
            for (int y = 0; y < v.height; ++y)
                for (int x = 0; x < v.width; ++x) v.write(x, y, d(rng));
        }
        f->pts = i;
        AvFramePtr copy = make_frame();
        av_frame_ref(copy.get(), f.get());
        frames.push_back(std::move(copy));
        check(avcodec_send_frame(video.ctx.get(), f.get()), "send video");
        drain(mux, video, pkt.get());
        // Audio up to the same time as the video written so far.
        while (spec.audio && audio_samples < (i + 1) * duration / spec.frames * 48000) {
            AvFramePtr a = make_frame();
            a->nb_samples = audio.ctx->frame_size ? audio.ctx->frame_size : 1024;
            a->format = audio.ctx->sample_fmt;
            av_channel_layout_copy(&a->ch_layout, &audio.ctx->ch_layout);
            a->sample_rate = 48000;
            check(av_frame_get_buffer(a.get(), 0), "audio buffer");
            for (int s = 0; s < a->nb_samples; ++s) {
                const double v = 0.3 * std::sin(2 * M_PI * 1000 * (audio_samples + s) / 48000.0);
                for (int c = 0; c < 2; ++c) {
                    if (a->format == AV_SAMPLE_FMT_FLTP) reinterpret_cast<float*>(a->data[c])[s] = static_cast<float>(v);
                    else reinterpret_cast<int16_t*>(a->data[0])[2 * s + c] = static_cast<int16_t>(v * 32767);
                }
            }
            a->pts = audio_samples;
            audio_samples += a->nb_samples;
            check(avcodec_send_frame(audio.ctx.get(), a.get()), "send audio");
            drain(mux, audio, pkt.get());
        }
    }
    check(avcodec_send_frame(video.ctx.get(), nullptr), "flush video");
    drain(mux, video, pkt.get());
    if (spec.audio) {
        check(avcodec_send_frame(audio.ctx.get(), nullptr), "flush audio");
        drain(mux, audio, pkt.get());
    }
    check(av_write_trailer(mux), "trailer");
    return frames;
}

std::string write_h264_clip(const std::string& path, int width, int height, int frames, int gop_size) {
    ClipSpec clip;
    clip.path = path;
    clip.width = width;
    clip.height = height;
    clip.frames = frames;
    clip.gop_size = gop_size;
    clip.video_codec = "libx264";
    clip.audio = false;
    write_clip(clip);
    return path;
}

std::vector<AvFramePtr> read_video_frames(const std::string& path) {
    AVFormatContext* raw = nullptr;
    check(avformat_open_input(&raw, path.c_str(), nullptr, nullptr), "open");
    AvInputPtr in(raw);
    check(avformat_find_stream_info(raw, nullptr), "stream info");
    const AVCodec* codec = nullptr;
    const int vi = av_find_best_stream(raw, AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0);
    check(vi, "video stream");
    AvCodecContextPtr dec(avcodec_alloc_context3(codec));
    avcodec_parameters_to_context(dec.get(), raw->streams[vi]->codecpar);
    check(avcodec_open2(dec.get(), codec, nullptr), "open decoder");
    std::vector<AvFramePtr> frames;
    AvPacketPtr pkt = make_packet();
    auto receive = [&] {
        for (;;) {
            AvFramePtr f = make_frame();
            if (avcodec_receive_frame(dec.get(), f.get()) < 0) return;
            frames.push_back(std::move(f));
        }
    };
    while (av_read_frame(raw, pkt.get()) >= 0) {
        if (pkt->stream_index == vi) {
            check(avcodec_send_packet(dec.get(), pkt.get()), "decode");
            receive();
        }
        av_packet_unref(pkt.get());
    }
    avcodec_send_packet(dec.get(), nullptr);
    receive();
    return frames;
}

StreamSummary summarize(const std::string& path) {
    AVFormatContext* raw = nullptr;
    check(avformat_open_input(&raw, path.c_str(), nullptr, nullptr), "open");
    AvInputPtr in(raw);
    check(avformat_find_stream_info(raw, nullptr), "stream info");
    StreamSummary s;
    int vi = -1;
    for (unsigned i = 0; i < raw->nb_streams; ++i) {
        const AVCodecParameters* p = raw->streams[i]->codecpar;
        if (p->codec_type == AVMEDIA_TYPE_VIDEO) {
            ++s.video_streams;
            vi = static_cast<int>(i);
            s.width = p->width;
            s.height = p->height;
            s.format = static_cast<AVPixelFormat>(p->format);
            s.video_time_base = raw->streams[i]->time_base;
        }
        if (p->codec_type == AVMEDIA_TYPE_AUDIO) ++s.audio_streams;
    }
    AvPacketPtr pkt = make_packet();
    while (av_read_frame(raw, pkt.get()) >= 0) {
        if (pkt->stream_index == vi) s.video_pts.push_back(pkt->pts);
        else if (raw->streams[pkt->stream_index]->codecpar->codec_type == AVMEDIA_TYPE_AUDIO) ++s.audio_packets;
        av_packet_unref(pkt.get());
    }
    std::sort(s.video_pts.begin(), s.video_pts.end());
    return s;
}

}  // namespace vf::test
