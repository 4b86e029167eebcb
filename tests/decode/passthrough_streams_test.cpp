#include "decode/passthrough_streams.hpp"

#include <gtest/gtest.h>

namespace vf {
namespace {

// An output context is the simplest way to hold streams without a file: the matching only looks
// at each stream's parameters.
struct Streams {
    AVFormatContext* ctx = avformat_alloc_context();
    ~Streams() { avformat_free_context(ctx); }
    void add(AVMediaType type, AVCodecID codec, AVRational tb) {
        AVStream* s = avformat_new_stream(ctx, nullptr);
        ASSERT_NE(s, nullptr);
        s->codecpar->codec_type = type;
        s->codecpar->codec_id = codec;
        s->time_base = tb;
    }
};

TEST(PassthroughStreams, AudioAndSubtitlesPassOthersAreDiscardedButAudioIsRead) {
    Streams in;
    in.add(AVMEDIA_TYPE_VIDEO, AV_CODEC_ID_H264, {1, 90000});
    in.add(AVMEDIA_TYPE_AUDIO, AV_CODEC_ID_AAC, {1, 48000});
    in.add(AVMEDIA_TYPE_DATA, AV_CODEC_ID_NONE, {1, 1000});
    in.add(AVMEDIA_TYPE_SUBTITLE, AV_CODEC_ID_MOV_TEXT, {1, 1000});
    PassthroughStreams p;
    p.choose(in.ctx, 0, true);
    ASSERT_EQ(p.streams().size(), 2u);
    EXPECT_EQ(p.streams()[0].description, "#1 audio aac");
    EXPECT_EQ(p.streams()[1].source_index, 3);
    EXPECT_FALSE(p.carries(0));
    EXPECT_TRUE(p.carries(1));
    EXPECT_FALSE(p.carries(2));
    EXPECT_FALSE(p.carries(7));
    EXPECT_EQ(in.ctx->streams[2]->discard, AVDISCARD_ALL);

    PassthroughStreams none;
    Streams again;
    again.add(AVMEDIA_TYPE_VIDEO, AV_CODEC_ID_H264, {1, 90000});
    again.add(AVMEDIA_TYPE_AUDIO, AV_CODEC_ID_AAC, {1, 48000});
    none.choose(again.ctx, 0, false);
    EXPECT_TRUE(none.streams().empty());
    EXPECT_EQ(again.ctx->streams[1]->discard, AVDISCARD_NONE);  // still read: it marks the end
}

TEST(PassthroughStreams, AReconnectIsMatchedByTypeAndCodecAndRescaled) {
    Streams first;
    first.add(AVMEDIA_TYPE_VIDEO, AV_CODEC_ID_H264, {1, 90000});
    first.add(AVMEDIA_TYPE_AUDIO, AV_CODEC_ID_AAC, {1, 48000});
    PassthroughStreams p;
    p.choose(first.ctx, 0, true);

    Streams second;  // reordered, a new time base, and an extra stream of another codec
    second.add(AVMEDIA_TYPE_AUDIO, AV_CODEC_ID_MP3, {1, 44100});
    second.add(AVMEDIA_TYPE_AUDIO, AV_CODEC_ID_AAC, {1, 1000});
    second.add(AVMEDIA_TYPE_VIDEO, AV_CODEC_ID_H264, {1, 90000});
    p.match(second.ctx, 2);
    EXPECT_FALSE(p.carries(0));
    EXPECT_TRUE(p.carries(1));
    EXPECT_FALSE(p.carries(2));

    AvPacketPtr packet = make_packet();
    packet->stream_index = 1;
    packet->pts = packet->dts = 500;  // 0.5 s at 1/1000
    const PassthroughPacket out = p.take(packet.get(), second.ctx->streams[1]);
    EXPECT_EQ(out.source_stream, 1);
    EXPECT_EQ(out.packet->pts, 24000);  // 0.5 s at 1/48000, the first connection's time base
    EXPECT_EQ(av_cmp_q(p.time_base(1), AVRational{1, 48000}), 0);
}

}  // namespace
}  // namespace vf
