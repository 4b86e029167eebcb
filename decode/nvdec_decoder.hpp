// NVDEC through the Video Codec SDK's own parser (libnvcuvid, loaded at run time), for H.264 in
// 8-bit 4:2:0, as `--nvdec-decoder vfilter` (other streams go to FFmpeg's NVDEC).
//
// Why: FFmpeg's hwaccel maps each frame right after sending it, so the thread waits inside the
// driver for every decode, and the driver's wait is a loop of short sleeps and polls (~100
// wake-ups a frame). With NVDEC busy that wait is most of the CPU a stream costs with many
// camera-like streams (docs/benchmarks.md, "Decoders on NVDEC and the CPU"). This decoder sends up to `ahead`
// frames before it needs the oldest, asks the driver whether a frame is done
// (cuvidGetDecodeStatus) and sleeps between the questions, starting short and doubling: the
// same streams took about half the CPU a frame.
//
// Frames come out as FFmpeg's NVDEC frames do (AV_PIX_FMT_CUDA, nv12 or p010 in device memory,
// copied on the device context's CUDA stream), so the rest of vfilter cannot tell them apart;
// send() and receive() keep avcodec_send_packet's and avcodec_receive_frame's return codes.
#pragma once

#include <memory>
#include <string>

#include "decode/nvdec_decoder_pool.hpp"
#include "media/av_helpers.hpp"

extern "C" {
#include <libavformat/avformat.h>
}

namespace vf {

// The pool's key for a stream `st` that sends `ahead` frames ahead.
NvdecStreamKind nvdec_stream_kind(const AVStream* st, int ahead);

class NvdecDecoder {
public:
    // Frames sent before the oldest is waited for: 1 for live inputs (no frame waits behind
    // another), more for files (the driver takes about 4 before its own wait starts).
    static constexpr int kAheadLive = 1, kAheadFiles = 4;

    // A decoder for `st` on the CUDA device context `device` (make_nvdec_device; a reference is
    // taken), or nullptr with the reason: a codec other than H.264, a format other than 8-bit
    // 4:2:0, no libnvcuvid, or a build without the SDK's headers. With `pool` (the GPU's), the
    // stream decodes into a slice of a decoder it shares with streams of its size
    // (decode/nvdec_decoder_pool.hpp); without, into a decoder of its own. `turn` (may be null):
    // the stream's ready turn at `pool`, whose held slice it decodes into if it fits.
    static std::unique_ptr<NvdecDecoder> open(const AVStream* st, AVBufferRef* device, int ahead, std::shared_ptr<NvdecDecoderPool> pool,
                                              NvdecDecoderPool::Turn* turn, std::string* why);
    ~NvdecDecoder();
    NvdecDecoder(const NvdecDecoder&) = delete;
    NvdecDecoder& operator=(const NvdecDecoder&) = delete;

    // A packet of the stream, or nullptr at its end (the frames still inside then come out).
    // 0, or an FFmpeg error code (the packet could not be parsed or decoded).
    int send(const AVPacket* packet);
    // The next frame in display order: 0; AVERROR(EAGAIN) when a packet should be sent first;
    // AVERROR_EOF after the end; another error code when the driver failed. A frame the driver
    // reports as decoded with errors carries AV_FRAME_FLAG_CORRUPT (concealed:
    // FF_DECODE_ERROR_CONCEALMENT_ACTIVE).
    int receive(AVFrame* frame);
    // What the last error code meant, in words.
    const std::string& last_error() const;

    struct State;

private:
    explicit NvdecDecoder(std::unique_ptr<State> state);
    std::unique_ptr<State> state_;
};

}  // namespace vf
