// The state of vfilter's NVDEC decoder (decode/nvdec_decoder.hpp): the driver's parser and
// decoder, the frames shown and not yet copied out, and the slice of a shared decoder's surfaces
// it decodes into. Only decode/nvdec_decoder.cpp includes it.
#pragma once

#ifdef VF_HAVE_NVCUVID
extern "C" {
#include <libavcodec/avcodec.h>
#include <libavcodec/bsf.h>
#include <libavutil/hwcontext.h>
#include <libavutil/pixdesc.h>
}

#include <ffnvcodec/dynlink_loader.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <string>
#include <thread>
#include <vector>

#include "decode/hw_decode.hpp"
#include "decode/nvdec_decoder.hpp"
#include "decode/nvdec_shared_decoder.hpp"

namespace vf {

namespace nvdec_state {

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

}  // namespace nvdec_state

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
    std::deque<nvdec_state::Shown> shown;
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
        nvdec_state::Shown x;
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
        const nvdec_state::Shown x = shown.front();
        shown.pop_front();
        cuvidDecodeStatus st = status_of(x.index);
        auto sleep = nvdec_state::kFirstSleep;
        const auto since = std::chrono::steady_clock::now();
        while (st == cuvidDecodeStatus_InProgress) {
            if (std::chrono::steady_clock::now() - since > nvdec_state::kGiveUp) {
                error = "NVDEC did not finish a frame in 10 s";
                return AVERROR_EXTERNAL;
            }
            std::this_thread::sleep_for(sleep);
            sleep = std::min(sleep * 2, std::chrono::duration_cast<std::chrono::microseconds>(nvdec_state::kLongestSleep));
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

}  // namespace vf
#endif
