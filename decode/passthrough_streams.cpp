#include "decode/passthrough_streams.hpp"

#include <algorithm>
#include <string>

namespace vf {
namespace {

void discard_unused(AVStream* s) {
    s->discard = s->codecpar->codec_type == AVMEDIA_TYPE_AUDIO ? AVDISCARD_NONE : AVDISCARD_ALL;
}

}  // namespace

PassthroughStreams::~PassthroughStreams() {
    for (AVCodecParameters*& p : params_) avcodec_parameters_free(&p);
    for (AVDictionary*& d : metadata_) av_dict_free(&d);
}

void PassthroughStreams::choose(AVFormatContext* ctx, int video_index, bool keep) {
    source_of_.assign(ctx->nb_streams, -1);
    for (unsigned i = 0; i < ctx->nb_streams; ++i) {
        AVStream* s = ctx->streams[i];
        const AVMediaType type = s->codecpar->codec_type;
        if (static_cast<int>(i) == video_index) continue;
        if (!keep || (type != AVMEDIA_TYPE_AUDIO && type != AVMEDIA_TYPE_SUBTITLE)) {
            discard_unused(s);
            continue;
        }
        AVCodecParameters* par = avcodec_parameters_alloc();
        if (!par || avcodec_parameters_copy(par, s->codecpar) < 0) {
            avcodec_parameters_free(&par);
            fail(ErrorCategory::Internal, "out of memory copying stream parameters");
        }
        AVDictionary* meta = nullptr;
        av_dict_copy(&meta, s->metadata, 0);
        params_.push_back(par);
        metadata_.push_back(meta);
        PassthroughStream p;
        p.source_index = static_cast<int>(i);
        p.codecpar = par;
        p.time_base = s->time_base;
        p.metadata = meta;
        p.description = "#" + std::to_string(i) + " " + av_get_media_type_string(type) + " " +
                        avcodec_get_name(s->codecpar->codec_id);
        streams_.push_back(p);
        source_of_[i] = static_cast<int>(i);
    }
}

void PassthroughStreams::match(AVFormatContext* ctx, int video_index) {
    source_of_.assign(ctx->nb_streams, -1);
    for (unsigned i = 0; i < ctx->nb_streams; ++i) {
        AVStream* s = ctx->streams[i];
        if (static_cast<int>(i) == video_index) continue;
        for (const PassthroughStream& p : streams_) {
            const bool taken = std::find(source_of_.begin(), source_of_.end(), p.source_index) != source_of_.end();
            if (!taken && p.codecpar->codec_type == s->codecpar->codec_type && p.codecpar->codec_id == s->codecpar->codec_id) {
                source_of_[i] = p.source_index;
                break;
            }
        }
        if (source_of_[i] < 0) discard_unused(s);
    }
}

PassthroughPacket PassthroughStreams::take(AVPacket* packet, const AVStream* st) const {
    PassthroughPacket p;
    p.source_stream = source_of_[packet->stream_index];
    p.packet = make_packet();
    av_packet_move_ref(p.packet.get(), packet);
    const AVRational tb = time_base(p.source_stream);
    if (av_cmp_q(tb, st->time_base) != 0) av_packet_rescale_ts(p.packet.get(), st->time_base, tb);
    return p;
}

AVRational PassthroughStreams::time_base(int source_stream) const {
    for (const PassthroughStream& s : streams_)
        if (s.source_index == source_stream) return s.time_base;
    fail(ErrorCategory::Internal, "no passthrough stream #" + std::to_string(source_stream));
}

}  // namespace vf
