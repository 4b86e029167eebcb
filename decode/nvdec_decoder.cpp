#include "decode/nvdec_decoder.hpp"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavcodec/bsf.h>
#include <libavutil/hwcontext.h>
#include <libavutil/pixdesc.h>
}

#ifdef VF_HAVE_NVCUVID
#include <algorithm>

#include "decode/hw_decode.hpp"
#include "decode/nvdec_decoder_state.hpp"
#endif

namespace vf {

NvdecStreamKind nvdec_stream_kind(const AVStream* st, int ahead) {
    const AVCodecParameters* par = st->codecpar;
    return NvdecStreamKind{static_cast<int>(par->codec_id), par->width, par->height, par->format, ahead};
}

#ifndef VF_HAVE_NVCUVID

struct NvdecDecoder::State {
    std::string error;
};

std::unique_ptr<NvdecDecoder> NvdecDecoder::open(const AVStream*, AVBufferRef*, int, std::shared_ptr<NvdecDecoderPool>, NvdecDecoderPool::Turn*,
                                                 std::string* why) {
    *why = "this vfilter was built without the Video Codec SDK's headers (ffnvcodec)";
    return nullptr;
}
NvdecDecoder::NvdecDecoder(std::unique_ptr<State> state) : state_(std::move(state)) {}
NvdecDecoder::~NvdecDecoder() = default;
int NvdecDecoder::send(const AVPacket*) { return AVERROR(ENOSYS); }
int NvdecDecoder::receive(AVFrame*) { return AVERROR(ENOSYS); }
const std::string& NvdecDecoder::last_error() const { return state_->error; }

#else

NvdecDecoder::NvdecDecoder(std::unique_ptr<State> state) : state_(std::move(state)) {}

NvdecDecoder::~NvdecDecoder() = default;

std::unique_ptr<NvdecDecoder> NvdecDecoder::open(const AVStream* st, AVBufferRef* device, int ahead, std::shared_ptr<NvdecDecoderPool> pool,
                                                 NvdecDecoderPool::Turn* turn, std::string* why) {
    const AVCodecParameters* par = st->codecpar;
    // H.264 in 8-bit 4:2:0, what cameras send and what the GPU tests check it on. HEVC and
    // 10-bit would take another codec type, filter and surface format here, and a test clip
    // (the static FFmpeg has no encoder for either): FFmpeg's NVDEC decodes them meanwhile.
    if (par->codec_id != AV_CODEC_ID_H264) {
        *why = std::string("vfilter's NVDEC decoder takes H.264, not ") + avcodec_get_name(par->codec_id);
        return nullptr;
    }
    if (par->format != AV_PIX_FMT_YUV420P && par->format != AV_PIX_FMT_YUVJ420P) {
        *why = std::string("vfilter's NVDEC decoder takes 8-bit 4:2:0, not ") +
               (av_get_pix_fmt_name(static_cast<AVPixelFormat>(par->format)) ? av_get_pix_fmt_name(static_cast<AVPixelFormat>(par->format)) : "this format");
        return nullptr;
    }
    const char* filter = "h264_mp4toannexb";
    const cudaVideoCodec codec = cudaVideoCodec_H264;
    auto s = std::make_unique<State>();
    if (cuda_load_functions(&s->cu, nullptr) < 0 || cuvid_load_functions(&s->cv, nullptr) < 0) {
        *why = "the NVIDIA driver's libnvcuvid cannot be loaded";
        return nullptr;
    }
    s->device = av_buffer_ref(device);
    const CudaHandles cuda = cuda_handles_of(device);
    s->context = static_cast<CUcontext>(cuda.context);
    s->stream = static_cast<CUstream>(cuda.stream);
    s->ahead = std::max(1, ahead);
    s->pool = std::move(pool);
    s->kind = nvdec_stream_kind(st, s->ahead);
    if (turn) s->held = turn->take_held();
    const AVBitStreamFilter* f = av_bsf_get_by_name(filter);
    if (!f || av_bsf_alloc(f, &s->bsf) < 0 || avcodec_parameters_copy(s->bsf->par_in, par) < 0) {
        *why = std::string("this FFmpeg has no ") + filter + " bitstream filter";
        return nullptr;
    }
    s->bsf->time_base_in = st->time_base;
    if (int err = av_bsf_init(s->bsf); err < 0) {
        *why = std::string(filter) + ": " + av_error_string(err);
        return nullptr;
    }
    CUVIDPARSERPARAMS pp{};
    pp.CodecType = codec;
    pp.ulMaxNumDecodeSurfaces = 1;  // the sequence callback gives the real number
    pp.ulMaxDisplayDelay = 0;       // frames are shown as soon as decoded; `ahead` pipelines instead
    pp.pUserData = s.get();
    pp.pfnSequenceCallback = State::on_sequence;
    pp.pfnDecodePicture = State::on_decode;
    pp.pfnDisplayPicture = State::on_display;
    if (!s->ok(s->cu->cuCtxPushCurrent(s->context), "cuCtxPushCurrent")) {
        *why = s->error;
        return nullptr;
    }
    const bool made = s->ok(s->cv->cuvidCreateVideoParser(&s->parser, &pp), "cuvidCreateVideoParser") &&
                      s->ok(s->cu->cuEventCreate(&s->copied, CU_EVENT_DISABLE_TIMING | CU_EVENT_BLOCKING_SYNC), "cuEventCreate");
    CUcontext popped;
    s->cu->cuCtxPopCurrent(&popped);
    if (!made) {
        *why = s->error;
        return nullptr;
    }
    return std::unique_ptr<NvdecDecoder>(new NvdecDecoder(std::move(s)));
}

int NvdecDecoder::send(const AVPacket* packet) {
    State& s = *state_;
    if (s.ended) return AVERROR_EOF;
    if (s.cu->cuCtxPushCurrent(s.context) != CUDA_SUCCESS) return AVERROR_EXTERNAL;
    int err = 0;
    // The parameter sets of the stream's header (Annex B after the filter) go first: an RTSP or
    // MP4 input may carry them nowhere else.
    if (!s.sent_headers) {
        s.sent_headers = true;
        if (s.bsf->par_out->extradata_size > 0)
            err = s.parse(s.bsf->par_out->extradata, s.bsf->par_out->extradata_size, AV_NOPTS_VALUE, false);
    }
    if (err == 0) {
        // The filter takes the reference it is sent (the caller keeps its packet).
        if (packet && av_packet_ref(s.sending.get(), packet) < 0) err = AVERROR(ENOMEM);
        if (err == 0) err = av_bsf_send_packet(s.bsf, packet ? s.sending.get() : nullptr);
        av_packet_unref(s.sending.get());  // left empty by the filter, or not taken on an error
        int parsed = 0;  // the first error of the filter's packets; every one is still parsed
        while (err == 0) {
            const int got = av_bsf_receive_packet(s.bsf, s.filtered.get());
            if (got < 0) {  // a packet the filter could not convert is damage too
                if (got != AVERROR(EAGAIN) && got != AVERROR_EOF && parsed == 0) parsed = got;
                break;
            }
            // A picture the demuxer marks to be dropped (before the start an edit list sets) is
            // decoded, as later pictures may refer to it, but not given out: as FFmpeg does.
            if (s.filtered->flags & AV_PKT_FLAG_DISCARD) s.discard.push_back(s.filtered->pts);
            const int e = s.parse(s.filtered->data, s.filtered->size, s.filtered->pts, false, true);
            if (parsed == 0) parsed = e;
            av_packet_unref(s.filtered.get());
        }
        if (err == 0) err = parsed;
        if (!packet) {  // the end: whatever went wrong before, the frames inside come out
            const int e = s.parse(nullptr, 0, AV_NOPTS_VALUE, true);
            if (err == 0) err = e;
            s.ended = true;
        }
    }
    CUcontext popped;
    s.cu->cuCtxPopCurrent(&popped);
    return err;
}

int NvdecDecoder::receive(AVFrame* frame) {
    State& s = *state_;
    if (!s.ready.empty()) {
        av_frame_move_ref(frame, s.ready.front().get());
        s.ready.pop_front();
        return 0;
    }
    while (!s.shown.empty()) {  // pictures to drop: their surfaces go back to the parser unread
        const auto d = std::find(s.discard.begin(), s.discard.end(), s.shown.front().pts);
        if (d == s.discard.end()) break;
        s.discard.erase(d);
        s.shown.pop_front();
    }
    if (s.shown.empty()) return s.ended ? AVERROR_EOF : AVERROR(EAGAIN);
    // A picture shown a little before the last one given out is one the parser made of damaged
    // data (a garbled slice header gives it another picture's order). FFmpeg's decoder drops such
    // a picture; given out, it would shift every later frame's time. A repeated time, or a jump
    // back of more than a second (a camera restarting its clock), is the stream's own timeline:
    // it goes on, and the source's timeline mends it as it does for FFmpeg's decoder.
    if (const int64_t pts = s.shown.front().pts; pts != AV_NOPTS_VALUE && s.last_pts != AV_NOPTS_VALUE && pts < s.last_pts &&
                                                 (s.last_pts - pts) * av_q2d(s.bsf->time_base_in) <= nvdec_state::kLongestReorder) {
        s.shown.pop_front();
        s.error = "NVDEC's parser showed a damaged picture out of order; dropped";
        return AVERROR_INVALIDDATA;
    }
    if (s.cu->cuCtxPushCurrent(s.context) != CUDA_SUCCESS) return AVERROR_EXTERNAL;
    int err = AVERROR(EAGAIN);
    // Another packet first, while the oldest frame decodes and there is room to send ahead.
    if (s.ended || static_cast<int>(s.shown.size()) >= s.ahead || s.status_of(s.shown.front().index) != cuvidDecodeStatus_InProgress) {
        av_frame_unref(frame);
        err = s.wait_and_copy(frame);
    }
    CUcontext popped;
    s.cu->cuCtxPopCurrent(&popped);
    return err;
}

const std::string& NvdecDecoder::last_error() const { return state_->error; }

#endif

}  // namespace vf
