// Moving a running input between decoders (serve --decoder-placement load): only at a clean
// start, and every frame comes out once, exact and with its own time, whichever decoders gave
// them (FFmpeg's NVDEC or vfilter's). Without a GPU the move to NVDEC is refused and the CPU decodes on (drained and reopened
// all the same); with one, the frames come from NVDEC between the moves.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>

#include "decode/clean_start.hpp"
#include "decode/file_source.hpp"
#ifdef VF_HAVE_CUDA
#include "kernels/cuda_backend.hpp"
#endif
#include "support/clip_writer.hpp"
#include "support/expected_output.hpp"
#include "support/run_command.hpp"

extern "C" {
#include <libavcodec/bsf.h>
#include <libavformat/avformat.h>
#include <libavutil/hwcontext.h>
}

namespace vf {
namespace {

using namespace test;

// H.264 with B-frames (x264's defaults: frames shown in another order than decoded), a key frame
// every `gop` frames, at a size no decoder's alignment hides (NVDEC decodes 336x192 and crops).
std::string h264_clip(const std::string& dir, int frames, int gop) { return write_h264_clip(dir + "/in.mp4", 322, 182, frames, gop); }

AVPacket packet_of(std::vector<uint8_t>& bytes, bool key) {
    AVPacket p{};
    p.data = bytes.data();
    p.size = static_cast<int>(bytes.size());
    p.flags = key ? AV_PKT_FLAG_KEY : 0;
    return p;
}

TEST(CleanStart, OnlyAnIdrStartsAnH264DecoderCleanly) {
    AVCodecParameters* par = avcodec_parameters_alloc();
    par->codec_id = AV_CODEC_ID_H264;
    par->video_delay = 2;
    // Annex B: SPS, PPS and a slice; the slice's NAL type decides.
    std::vector<uint8_t> idr = {0, 0, 0, 1, 0x67, 0x42, 0, 0, 1, 0x68, 0xce, 0, 0, 1, 0x65, 0x88, 0x84};
    std::vector<uint8_t> recovery_point = {0, 0, 0, 1, 0x06, 0x06, 0x01, 0, 0, 1, 0x41, 0x9a, 0x02};  // SEI, non-IDR slice
    AVPacket p = packet_of(idr, true);
    EXPECT_TRUE(starts_clean_decode(&p, par));
    p = packet_of(idr, false);
    EXPECT_FALSE(starts_clean_decode(&p, par)) << "not flagged as a key frame";
    p = packet_of(recovery_point, true);
    EXPECT_FALSE(starts_clean_decode(&p, par)) << "a key frame that is no IDR: a new decoder would drop frames";
    // Length-prefixed (MP4's avcC, 4-byte lengths): an IDR after an SEI.
    std::vector<uint8_t> avcc = {1, 0x42, 0, 0x1e, 0xff};
    par->extradata = static_cast<uint8_t*>(av_mallocz(avcc.size() + AV_INPUT_BUFFER_PADDING_SIZE));
    std::memcpy(par->extradata, avcc.data(), avcc.size());
    par->extradata_size = static_cast<int>(avcc.size());
    std::vector<uint8_t> prefixed = {0, 0, 0, 2, 0x06, 0x05, 0, 0, 0, 3, 0x65, 0x88, 0x84};
    p = packet_of(prefixed, true);
    EXPECT_TRUE(starts_clean_decode(&p, par));
    prefixed[10] = 0x41;  // the slice is a non-IDR one
    p = packet_of(prefixed, true);
    EXPECT_FALSE(starts_clean_decode(&p, par));
    // Another codec: any key frame when nothing is reordered, none when frames are.
    par->codec_id = AV_CODEC_ID_MPEG4;
    p = packet_of(idr, true);
    EXPECT_FALSE(starts_clean_decode(&p, par));
    par->video_delay = 0;
    EXPECT_TRUE(starts_clean_decode(&p, par));
    avcodec_parameters_free(&par);
}

// In a real MP4 of x264's (sync samples are IDR pictures): every key packet is a clean start,
// in MP4's length-prefixed form and in Annex B (as MPEG-TS and RTSP carry it); no other packet is.
TEST(CleanStart, EveryKeyFrameOfAnX264ClipIsACleanStartInEitherForm) {
    const std::string dir = temp_dir();
    const std::string in = h264_clip(dir, 40, 10);
    AVFormatContext* fmt = nullptr;
    ASSERT_EQ(avformat_open_input(&fmt, in.c_str(), nullptr, nullptr), 0);
    ASSERT_GE(avformat_find_stream_info(fmt, nullptr), 0);
    const AVBitStreamFilter* filter = av_bsf_get_by_name("h264_mp4toannexb");
    ASSERT_TRUE(filter);
    AVBSFContext* bsf = nullptr;
    ASSERT_EQ(av_bsf_alloc(filter, &bsf), 0);
    ASSERT_GE(avcodec_parameters_copy(bsf->par_in, fmt->streams[0]->codecpar), 0);
    ASSERT_EQ(av_bsf_init(bsf), 0);
    AVPacket* p = av_packet_alloc();
    int keys = 0, packets = 0;
    while (av_read_frame(fmt, p) >= 0) {
        ++packets;
        const bool key = p->flags & AV_PKT_FLAG_KEY;
        keys += key;
        EXPECT_EQ(starts_clean_decode(p, fmt->streams[0]->codecpar), key) << "packet " << packets << " (MP4)";
        ASSERT_EQ(av_bsf_send_packet(bsf, p), 0);
        while (av_bsf_receive_packet(bsf, p) == 0) {
            EXPECT_EQ(starts_clean_decode(p, bsf->par_out), key) << "packet " << packets << " (Annex B)";
            av_packet_unref(p);
        }
    }
    EXPECT_GE(packets, 39);
    EXPECT_GE(keys, 4) << "a key frame every 10 frames";
    av_packet_free(&p);
    av_bsf_free(&bsf);
    avformat_close_input(&fmt);
}

struct MovedRun {
    std::vector<AvFramePtr> frames;  // on the host
    std::vector<int64_t> pts;
    AVRational time_base{1, 1};
    std::vector<bool> moved_to;  // what each move reported
    int from_nvdec = 0;          // frames NVDEC decoded
};

// Decodes `in` through one FileSource, asking it to move to NVDEC after frame `to_gpu` and back
// to the CPU after frame `to_cpu`.
MovedRun decode_moving(const std::string& in, int to_gpu, int to_cpu, bool realtime, NvdecDecoderKind nvdec) {
    FileSourceOptions o;
    o.nvdec_decoder = nvdec;
    o.url = in;
    o.passthrough_audio = false;
    o.hwdec = HwDecode::None;
    o.decoder_movable = true;
    o.realtime = realtime;
    FileSource source(o);
    MovedRun run;
    run.time_base = source.video().time_base;
    source.on_decoder_moved([&run](bool nvdec) { run.moved_to.push_back(nvdec); });
    while (auto item = source.read()) {
        auto* v = std::get_if<VideoFrame>(&*item);
        if (!v) continue;
        AvFramePtr f = std::move(v->frame);
        run.pts.push_back(f->pts);
        if (f->format == AV_PIX_FMT_CUDA) {
            ++run.from_nvdec;
            AvFramePtr host = make_frame();
            EXPECT_GE(av_hwframe_transfer_data(host.get(), f.get(), 0), 0);
            f = std::move(host);
        }
        run.frames.push_back(std::move(f));
        const int n = static_cast<int>(run.frames.size());
        if (n == to_gpu) {
            EXPECT_TRUE(source.request_decoder_move(true));
        }
        if (n == to_cpu) {
            EXPECT_TRUE(source.request_decoder_move(false));
        }
    }
    return run;
}

TEST(DecoderMove, EveryFrameComesOutOnceAndExactAcrossMoves) {
    const std::string dir = temp_dir();
    const std::string in = h264_clip(dir, 60, 12);
    const std::vector<AvFramePtr> reference = read_video_frames(in);
    ASSERT_GE(reference.size(), 59u);  // x264 through the clip writer may keep 59 of 60
    const AVRational reference_tb = summarize(in).video_time_base;
    std::string no_gpu = "a build without CUDA";
#ifdef VF_HAVE_CUDA
    const bool gpu = cuda_device_available(&no_gpu);
#else
    const bool gpu = false;
#endif
    for (const auto& [realtime, nvdec] : {std::pair{false, NvdecDecoderKind::Ffmpeg}, std::pair{true, NvdecDecoderKind::Ffmpeg},
                                          std::pair{false, NvdecDecoderKind::Vfilter}, std::pair{true, NvdecDecoderKind::Vfilter}}) {
        SCOPED_TRACE(std::string(realtime ? "paced as live" : "a file") + (nvdec == NvdecDecoderKind::Vfilter ? ", vfilter's NVDEC decoder" : ""));
        const MovedRun run = decode_moving(in, 5, 30, realtime, nvdec);
        ASSERT_EQ(run.frames.size(), reference.size()) << "a frame lost or repeated at a move";
        for (size_t i = 0; i < run.frames.size(); ++i) {
            std::string where;
            EXPECT_EQ(frame_differences(run.frames[i].get(), reference[i].get(), false, &where), 0) << "frame " << i << " " << where;
            EXPECT_EQ(run.pts[i] - run.pts[0], av_rescale_q(reference[i]->pts - reference[0]->pts, reference_tb, run.time_base))
                << "frame " << i << ": its time";
        }
        // Each move was reported; without a
        // GPU the move to NVDEC reports the CPU, and the one back is no move at all.
        ASSERT_EQ(run.moved_to.size(), gpu ? 2u : 1u);
        if (gpu) {
            EXPECT_TRUE(run.moved_to[0]) << "NVDEC refused the stream";
            EXPECT_FALSE(run.moved_to[1]);
            // From a key frame after the first request to one after the second; the decoder had
            // read a few frames ahead of the frames given out when each was asked.
            EXPECT_GT(run.from_nvdec, 0);
            EXPECT_LT(run.from_nvdec, static_cast<int>(run.frames.size()) - 5);
        } else {
            EXPECT_FALSE(run.moved_to[0]) << "NVDEC cannot take a stream here (" << no_gpu << ")";
            EXPECT_EQ(run.from_nvdec, 0);
        }
    }
}

// Requests from another thread (as serve's API thread asks) while the input is read, back and
// forth many times: every frame still comes out once and exact. Without a GPU each move to NVDEC
// is refused and the CPU decoder is drained and reopened at the key frame all the same.
TEST(DecoderMove, RequestsFromAnotherThreadLoseNothing) {
    const std::string dir = temp_dir();
    const std::string in = h264_clip(dir, 60, 4);
    const std::vector<AvFramePtr> reference = read_video_frames(in);
    FileSourceOptions o;
    o.url = in;
    o.passthrough_audio = false;
    o.hwdec = HwDecode::None;
    o.decoder_movable = true;
    FileSource source(o);
    std::atomic<int> moves{0};
    source.on_decoder_moved([&moves](bool) { ++moves; });
    std::atomic<bool> done{false};
    std::thread asker([&] {
        for (int i = 0; !done; ++i) {
            source.request_decoder_move(i % 2 == 0);
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        }
    });
    std::vector<AvFramePtr> frames;
    while (auto item = source.read()) {
        auto* v = std::get_if<VideoFrame>(&*item);
        if (!v) continue;
        AvFramePtr f = std::move(v->frame);
        if (f->format == AV_PIX_FMT_CUDA) {
            AvFramePtr host = make_frame();
            EXPECT_GE(av_hwframe_transfer_data(host.get(), f.get(), 0), 0);
            f = std::move(host);
        }
        frames.push_back(std::move(f));
        std::this_thread::sleep_for(std::chrono::milliseconds(1));  // time for requests between frames
    }
    done = true;
    asker.join();
    ASSERT_EQ(frames.size(), reference.size());
    for (size_t i = 0; i < frames.size(); ++i) EXPECT_EQ(frame_differences(frames[i].get(), reference[i].get()), 0) << "frame " << i;
    EXPECT_GE(moves.load(), 3) << "a key frame every 4 frames: moves were made";
}

TEST(DecoderMove, AnInputThatMayNotMoveRefuses) {
    const std::string dir = temp_dir();
    FileSourceOptions o;
    o.url = h264_clip(dir, 10, 5);
    o.passthrough_audio = false;
    const size_t expected = read_video_frames(o.url).size();
    FileSource source(o);
    EXPECT_FALSE(source.request_decoder_move(true)) << "only serve's streams placed by load may move";
    size_t frames = 0;
    while (auto item = source.read()) frames += std::holds_alternative<VideoFrame>(*item);
    EXPECT_EQ(frames, expected);
}

}  // namespace
}  // namespace vf
