#include "decode/nvdec_decoder.hpp"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavcodec/bsf.h>
#include <libavutil/hwcontext.h>
#include <libavutil/pixdesc.h>
}

#ifdef VF_HAVE_NVCUVID
#include <ffnvcodec/dynlink_loader.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <thread>
#include <vector>

#include "decode/hw_decode.hpp"
#include "decode/nvdec_shared_decoder.hpp"
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

namespace {

// A frame the parser has handed out for display, not yet copied out of its decode surface.
struct Shown {
    int index = 0;
    int64_t pts = AV_NOPTS_VALUE;
    bool key = false;
    bool progressive = true, top_field_first = false;
};

// The first sleep while a frame decodes, and the longest: each sleep doubles the one before, so
// a frame that is nearly done costs little latency and one that waits behind many streams few
// wake-ups.
constexpr auto kFirstSleep = std::chrono::microseconds(100);
constexpr auto kLongestSleep = std::chrono::microseconds(2000);
constexpr auto kGiveUp = std::chrono::seconds(10);  // a decode that never ends is a driver fault
// How far back in time a damaged picture can be shown: within the pictures the decoder reorders
// (H.264 holds at most 16); further back is a timeline that restarted, not damage.
constexpr double kLongestReorder = 1.0;  // seconds

}  // namespace

struct NvdecDecoder::State {
    CudaFunctions* cu = nullptr;
    CuvidFunctions* cv = nullptr;
    AVBufferRef* device = nullptr;
    AVBufferRef* frames = nullptr;  // the pool frames are copied into (made with the decoder)
    CUcontext context = nullptr;
    CUstream stream = nullptr;
    AVBSFContext* bsf = nullptr;
    AvPacketPtr sending = make_packet(), filtered = make_packet();  // reused for every packet
    CUvideoparser parser = nullptr;
    // The frame mapped last and the copy out of it (recorded on `stream`): unmapped only once
    // that copy has run (unmap_copied).
    unsigned long long mapped = 0;
    CUevent copied = nullptr;
    std::shared_ptr<NvdecDecoderPool> pool;  // the GPU's shared decoders; none: a decoder of its own
    std::unique_ptr<NvdecSlice> slice;       // the decode surfaces this stream decodes into
    std::unique_ptr<NvdecSlice> held;        // a slice its pool's turn held for it, used if it fits
    NvdecStreamKind kind;                    // as the container describes the stream (the pool's key)
    int ahead = NvdecDecoder::kAheadFiles;
    // The decoder's format, to tell a new sequence that needs another decoder.
    CUVIDEOFORMAT format{};
    int width = 0, height = 0, bytes_per_sample = 1;  // of the frames given out (the display area)
    std::vector<bool> key_of = std::vector<bool>(64, false);  // by decode surface: an intra picture
    std::deque<Shown> shown;
    std::vector<int64_t> discard;  // pts of pictures decoded but not given out (AV_PKT_FLAG_DISCARD)
    std::deque<AvFramePtr> ready;  // copied out before a new sequence replaced the decoder
    bool sent_headers = false, ended = false;
    int64_t last_pts = AV_NOPTS_VALUE;  // of the last frame given out
    int64_t decoded = 0;  // pictures handed to NVDEC: a packet of a picture that adds none was dropped
    std::string error;  // set by a callback that failed, or by the last failing call

    ~State() {
        if (context) cu->cuCtxPushCurrent(context);
        if (parser) cv->cuvidDestroyVideoParser(parser);
        release_slice();
        if (copied) cu->cuEventDestroy(copied);
        if (context) {
            CUcontext popped;
            cu->cuCtxPopCurrent(&popped);
        }
        ready.clear();
        av_buffer_unref(&frames);
        av_buffer_unref(&device);
        av_bsf_free(&bsf);
        cuvid_free_functions(&cv);
        cuda_free_functions(&cu);
    }

    // Gives the decode surfaces back (the decoder goes with its last stream) once the frames
    // mapped from them are copied out: a shared decoder's next stream may decode into them at once.
    void release_slice() {
        if (slice && stream) cu->cuStreamSynchronize(stream);
        if (slice) unmap_copied();
        slice.reset();
    }

    // Unmaps the frame mapped last, once the copy out of it has run. A decoder's output surfaces
    // are not sliced: every stream sharing the decoder maps into them, each with its post-processing
    // on a CUDA stream of its own. A surface unmapped while our copy still waits on our stream is
    // free for the next stream's map at once, and that stream's post-processing is not ordered
    // after our copy: our frame would be read after another stream's picture was written over it.
    // (The SDK's NvDecoder synchronises before unmapping; a decoder mapping on one stream alone is
    // safe without.) The copy ran a frame ago, so this seldom waits.
    bool unmap_copied() {
        if (!mapped) return true;
        const bool done = ok(cu->cuEventSynchronize(copied), "waiting for a decoded frame's copy");
        const bool unmapped = ok(slice->unmap(mapped), "cuvidUnmapVideoFrame");
        mapped = 0;
        return done && unmapped;
    }

    bool ok(CUresult r, const char* what) {
        if (r == CUDA_SUCCESS) return true;
        const char* name = nullptr;
        cu->cuGetErrorName(r, &name);
        error = std::string("NVDEC: ") + what + " failed (" + (name ? name : std::to_string(r)) + ")";
        return false;
    }

    // The parser's callbacks, on the thread that called cuvidParseVideoData (send()).
    static int CUDAAPI on_sequence(void* user, CUVIDEOFORMAT* f) { return static_cast<State*>(user)->sequence(f); }
    static int CUDAAPI on_decode(void* user, CUVIDPICPARAMS* p) { return static_cast<State*>(user)->decode(p); }
    static int CUDAAPI on_display(void* user, CUVIDPARSERDISPINFO* d) {
        auto* s = static_cast<State*>(user);
        if (!d) return 1;
        Shown x;
        x.index = d->picture_index;
        x.pts = d->timestamp;
        x.key = d->picture_index >= 0 && d->picture_index < static_cast<int>(s->key_of.size()) && s->key_of[d->picture_index];
        x.progressive = d->progressive_frame;
        x.top_field_first = d->top_field_first;
        s->shown.push_back(x);
        return 1;
    }

    int surfaces(const CUVIDEOFORMAT* f) const {
        // The parser's minimum, plus the frames shown but not yet copied out, plus a margin so
        // that the parser never reuses a surface that still waits to be copied.
        return std::min(32, f->min_num_decode_surfaces + ahead + 4);
    }

    int sequence(CUVIDEOFORMAT* f) {
        const bool same = slice && f->codec == format.codec && f->coded_width == format.coded_width &&
                          f->coded_height == format.coded_height && f->chroma_format == format.chroma_format &&
                          f->bit_depth_luma_minus8 == format.bit_depth_luma_minus8 &&
                          f->display_area.left == format.display_area.left && f->display_area.top == format.display_area.top &&
                          f->display_area.right == format.display_area.right &&
                          f->display_area.bottom == format.display_area.bottom;
        if (same) return surfaces(f);
        if (slice) {  // a new size or format: what the old decoder holds comes out first
            while (!shown.empty()) {
                AvFramePtr frame = make_frame();
                if (wait_and_copy(frame.get()) < 0) return 0;
                ready.push_back(std::move(frame));
            }
            release_slice();
            av_buffer_unref(&frames);
        }
        if (f->chroma_format != cudaVideoChromaFormat_420 || f->bit_depth_luma_minus8 > 2) {
            error = "NVDEC decodes 8- and 10-bit 4:2:0 only";
            return 0;
        }
        CUVIDDECODECAPS caps{};
        caps.eCodecType = f->codec;
        caps.eChromaFormat = f->chroma_format;
        caps.nBitDepthMinus8 = f->bit_depth_luma_minus8;
        if (!ok(pool ? pool->impl().decoder_caps(cv, &caps) : cv->cuvidGetDecoderCaps(&caps), "cuvidGetDecoderCaps")) return 0;
        if (!caps.bIsSupported || f->coded_width > caps.nMaxWidth || f->coded_height > caps.nMaxHeight) {
            error = "this GPU's NVDEC does not decode " + std::to_string(f->coded_width) + "x" +
                    std::to_string(f->coded_height) + " in this codec and format";
            return 0;
        }
        format = *f;
        width = f->display_area.right - f->display_area.left;
        height = f->display_area.bottom - f->display_area.top;
        bytes_per_sample = f->bit_depth_luma_minus8 ? 2 : 1;
        CUVIDDECODECREATEINFO ci{};
        ci.CodecType = f->codec;
        ci.ChromaFormat = f->chroma_format;
        ci.OutputFormat = f->bit_depth_luma_minus8 ? cudaVideoSurfaceFormat_P016 : cudaVideoSurfaceFormat_NV12;
        ci.bitDepthMinus8 = f->bit_depth_luma_minus8;
        ci.DeinterlaceMode = cudaVideoDeinterlaceMode_Weave;  // fields stay woven, as FFmpeg's NVDEC gives them
        ci.ulWidth = f->coded_width;
        ci.ulHeight = f->coded_height;
        ci.ulMaxWidth = f->coded_width;
        ci.ulMaxHeight = f->coded_height;
        ci.display_area.left = static_cast<short>(f->display_area.left);
        ci.display_area.top = static_cast<short>(f->display_area.top);
        ci.display_area.right = static_cast<short>(f->display_area.right);
        ci.display_area.bottom = static_cast<short>(f->display_area.bottom);
        ci.ulTargetWidth = width;
        ci.ulTargetHeight = height;
        ci.target_rect.right = static_cast<short>(width);
        ci.target_rect.bottom = static_cast<short>(height);
        ci.ulNumDecodeSurfaces = surfaces(f);
        ci.ulNumOutputSurfaces = 2;
        ci.ulCreationFlags = cudaVideoCreate_PreferCUVID;
        if (held && held->fits(ci, context)) slice = std::move(held);
        held.reset();
        if (!slice) slice = pool ? pool->impl().take(context, ci, kind, &error) : NvdecSlice::own(context, ci, &error);
        if (!slice) return 0;
        key_of.assign(64, false);
        frames = av_hwframe_ctx_alloc(device);
        if (!frames) {
            error = "out of memory for NVDEC's frames";
            return 0;
        }
        auto* fc = reinterpret_cast<AVHWFramesContext*>(frames->data);
        fc->format = AV_PIX_FMT_CUDA;
        fc->sw_format = f->bit_depth_luma_minus8 ? AV_PIX_FMT_P010LE : AV_PIX_FMT_NV12;
        fc->width = width;
        fc->height = height;
        const int err = av_hwframe_ctx_init(frames);
        if (err < 0) {
            error = "NVDEC's frame pool: " + av_error_string(err);
            return 0;
        }
        return surfaces(f);
    }

    int decode(CUVIDPICPARAMS* p) {
        ++decoded;
        if (p->CurrPicIdx >= 0 && p->CurrPicIdx < static_cast<int>(key_of.size())) key_of[p->CurrPicIdx] = p->intra_pic_flag != 0;
        return ok(slice->decode(p), "cuvidDecodePicture") ? 1 : 0;
    }

    cuvidDecodeStatus status_of(int index) {
        CUVIDGETDECODESTATUS st{};
        if (slice->status(index, &st) != CUDA_SUCCESS) return cuvidDecodeStatus_Success;  // the map will tell
        return st.decodeStatus;
    }

    // The mapped frame's planes (nv12 or p010) into `out`, queued on `stream`.
    bool copy_mapped(AVFrame* out, unsigned int pitch) {
        for (int plane = 0; plane < 2; ++plane) {
            CUDA_MEMCPY2D c{};
            c.srcMemoryType = CU_MEMORYTYPE_DEVICE;
            // The surface is the display area (the target size): chroma follows its luma rows.
            c.srcDevice = mapped + (plane ? static_cast<unsigned long long>(pitch) * ((height + 1) & ~1) : 0);
            c.srcPitch = pitch;
            c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
            c.dstDevice = reinterpret_cast<CUdeviceptr>(out->data[plane]);
            c.dstPitch = static_cast<size_t>(out->linesize[plane]);
            // nv12/p010: the chroma plane interleaves U and V, as wide in bytes as the luma (rounded up to pairs)
            c.WidthInBytes = static_cast<size_t>(plane ? (width + 1) & ~1 : width) * bytes_per_sample;
            c.Height = plane ? (height + 1) / 2 : height;
            if (!ok(cu->cuMemcpy2DAsync(&c, stream), "copying a decoded frame")) return false;
        }
        return true;
    }

    // The oldest shown frame, once decoded, copied into a frame of the pool.
    int wait_and_copy(AVFrame* out) {
        const Shown x = shown.front();
        shown.pop_front();
        cuvidDecodeStatus st = status_of(x.index);
        auto sleep = kFirstSleep;
        const auto since = std::chrono::steady_clock::now();
        while (st == cuvidDecodeStatus_InProgress) {
            if (std::chrono::steady_clock::now() - since > kGiveUp) {
                error = "NVDEC did not finish a frame in 10 s";
                return AVERROR_EXTERNAL;
            }
            std::this_thread::sleep_for(sleep);
            sleep = std::min(sleep * 2, std::chrono::duration_cast<std::chrono::microseconds>(kLongestSleep));
            st = status_of(x.index);
        }
        int err = av_hwframe_get_buffer(frames, out, 0);
        if (err < 0) {
            error = "NVDEC's frame pool: " + av_error_string(err);
            return err;
        }
        CUVIDPROCPARAMS vpp{};
        vpp.progressive_frame = x.progressive;
        vpp.top_field_first = x.top_field_first;
        vpp.output_stream = stream;
        if (!unmap_copied()) return AVERROR_EXTERNAL;  // one frame mapped at a time
        unsigned int pitch = 0;
        if (!ok(slice->map(x.index, &mapped, &pitch, &vpp), "cuvidMapVideoFrame")) {
            mapped = 0;
            return AVERROR_EXTERNAL;
        }
        // Unmapped at the next frame's map (or when the slice goes back), once the copy has run.
        if (!copy_mapped(out, pitch) || !ok(cu->cuEventRecord(copied, stream), "cuEventRecord")) {
            const std::string why = error;
            cu->cuStreamSynchronize(stream);  // what was queued of the copy has run: unmap now
            unmap_copied();
            error = why;
            return AVERROR_EXTERNAL;
        }
        out->width = width;
        out->height = height;
        out->pts = x.pts;
        last_pts = x.pts;
        out->best_effort_timestamp = x.pts;
        out->pkt_dts = AV_NOPTS_VALUE;
        out->key_frame = x.key;
        out->pict_type = x.key ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE;
        out->interlaced_frame = !x.progressive;
        out->top_field_first = x.top_field_first;
        const AVCodecParameters* par = bsf->par_in;  // the filter's copy of the stream's parameters
        out->sample_aspect_ratio = par->sample_aspect_ratio;
        out->color_range = par->color_range;
        out->color_primaries = par->color_primaries;
        out->color_trc = par->color_trc;
        out->colorspace = par->color_space;
        out->chroma_location = par->chroma_location;
        if (st == cuvidDecodeStatus_Error) out->flags |= AV_FRAME_FLAG_CORRUPT;
        if (st == cuvidDecodeStatus_Error_Concealed) out->decode_error_flags |= FF_DECODE_ERROR_CONCEALMENT_ACTIVE;
        return 0;
    }

    // One Annex B packet into the parser (its callbacks decode and show frames). A demuxer's
    // packet holds one whole picture: saying so lets the parser decode it now, instead of when
    // the next picture's start shows that this one ended (a frame period later on a live input).
    int parse(const uint8_t* data, int size, int64_t pts, bool end, bool whole_picture = false) {
        CUVIDSOURCEDATAPACKET p{};
        p.payload = data;
        p.payload_size = static_cast<unsigned long>(size);
        if (whole_picture) p.flags |= CUVID_PKT_ENDOFPICTURE;
        if (pts != AV_NOPTS_VALUE) {
            p.flags |= CUVID_PKT_TIMESTAMP;
            p.timestamp = pts;
        }
        if (end) p.flags |= CUVID_PKT_ENDOFSTREAM;
        error.clear();
        const int64_t decoded_before = decoded;
        const CUresult r = cv->cuvidParseVideoData(parser, &p);
        if (!error.empty()) return AVERROR_INVALIDDATA;
        if (!ok(r, "cuvidParseVideoData")) return AVERROR_INVALIDDATA;
        // A whole picture is decoded within the call. The parser drops one it cannot make sense
        // of (a damaged slice header, a picture whose references are missing) without a word:
        // what FFmpeg's decoder reports as an error, so this decoder does too. Pictures dropped
        // before the first decoded one are a live input joined between key frames, not damage.
        if (whole_picture && decoded == decoded_before && decoded > 0 && holds_a_slice(data, size)) {
            error = "NVDEC's parser dropped a damaged picture";
            return AVERROR_INVALIDDATA;
        }
        return 0;
    }

    // Whether Annex B data holds a coded slice (NAL unit types 1 to 5), not only parameter sets,
    // SEI or delimiters.
    static bool holds_a_slice(const uint8_t* data, int size) {
        for (int i = 0; i + 3 < size; ++i)
            if (data[i] == 0 && data[i + 1] == 0 && data[i + 2] == 1) {
                const int type = data[i + 3] & 0x1f;
                if (type >= 1 && type <= 5) return true;
                i += 2;
            }
        return false;
    }
};

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
                                                 (s.last_pts - pts) * av_q2d(s.bsf->time_base_in) <= kLongestReorder) {
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
