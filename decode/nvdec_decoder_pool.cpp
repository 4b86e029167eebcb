#include "decode/nvdec_decoder_pool.hpp"

#include <algorithm>
#include <map>
#include <mutex>

#include "decode/nvdec_shared_decoder.hpp"

namespace vf {

#ifndef VF_HAVE_NVCUVID
struct NvdecDecoderPool::Impl {};  // no NVDEC decoder of vfilter's in this build: nothing to share
#else

namespace {

// The driver's limits: decode surfaces of one decoder (the Video Codec SDK leaves them
// undocumented; 32 is what FFmpeg and the SDK's samples stay within), output surfaces mapped at once.
constexpr int kSharedSurfaces = 32;
constexpr int kMostOutputSurfaces = 32;
// The driver's codes (ffnvcodec's header names only a few): a surface outside the stream's slice,
// a codec whose references are not renumbered here.
constexpr CUresult kInvalidValue = static_cast<CUresult>(1);    // CUDA_ERROR_INVALID_VALUE
constexpr CUresult kNotSupported = static_cast<CUresult>(801);  // CUDA_ERROR_NOT_SUPPORTED

// Pushes `context` for a scope.
class Current {
public:
    Current(CudaFunctions* cu, CUcontext context) : cu_(cu), pushed_(cu->cuCtxPushCurrent(context) == CUDA_SUCCESS) {}
    ~Current() {
        CUcontext popped;
        if (pushed_) cu_->cuCtxPopCurrent(&popped);
    }
    explicit operator bool() const { return pushed_; }

private:
    CudaFunctions* cu_;
    bool pushed_;
};

std::string driver_error(CudaFunctions* cu, CUresult r, const char* what) {
    const char* name = nullptr;
    cu->cuGetErrorName(r, &name);
    return std::string("NVDEC: ") + what + " failed (" + (name ? name : std::to_string(r)) + ")";
}

}  // namespace

std::shared_ptr<NvdecSharedDecoder> NvdecSharedDecoder::create(CUcontext context, const CUVIDDECODECREATEINFO& info, std::string* error) {
    std::shared_ptr<NvdecSharedDecoder> d(new NvdecSharedDecoder());
    if (cuda_load_functions(&d->cu_, nullptr) < 0 || cuvid_load_functions(&d->cv_, nullptr) < 0) {
        *error = "the NVIDIA driver's libnvcuvid cannot be loaded";
        return nullptr;
    }
    d->context_ = context;
    d->info_ = info;
    const Current current(d->cu_, context);
    if (!current) {
        *error = "NVDEC: cuCtxPushCurrent failed";
        return nullptr;
    }
    CUVIDDECODECREATEINFO ci = info;
    if (const CUresult r = d->cv_->cuvidCreateDecoder(&d->decoder_, &ci); r != CUDA_SUCCESS) {
        d->decoder_ = nullptr;
        *error = driver_error(d->cu_, r, "cuvidCreateDecoder");
        return nullptr;
    }
    d->slices_ = NvdecSurfaceSlices(static_cast<int>(info.ulNumDecodeSurfaces));
    return d;
}

NvdecSharedDecoder::~NvdecSharedDecoder() {
    if (decoder_) {
        const Current current(cu_, context_);
        cv_->cuvidDestroyDecoder(decoder_);
    }
    if (cv_) cuvid_free_functions(&cv_);
    if (cu_) cuda_free_functions(&cu_);
}

bool NvdecSharedDecoder::decodes(const CUVIDDECODECREATEINFO& o, CUcontext context) const {
    const CUVIDDECODECREATEINFO& m = info_;
    return context == context_ && o.CodecType == m.CodecType && o.ChromaFormat == m.ChromaFormat && o.OutputFormat == m.OutputFormat &&
           o.bitDepthMinus8 == m.bitDepthMinus8 && o.DeinterlaceMode == m.DeinterlaceMode && o.ulCreationFlags == m.ulCreationFlags &&
           o.ulWidth == m.ulWidth && o.ulHeight == m.ulHeight && o.ulMaxWidth == m.ulMaxWidth && o.ulMaxHeight == m.ulMaxHeight &&
           o.ulTargetWidth == m.ulTargetWidth && o.ulTargetHeight == m.ulTargetHeight &&
           o.display_area.left == m.display_area.left && o.display_area.top == m.display_area.top &&
           o.display_area.right == m.display_area.right && o.display_area.bottom == m.display_area.bottom &&
           o.target_rect.left == m.target_rect.left && o.target_rect.top == m.target_rect.top &&
           o.target_rect.right == m.target_rect.right && o.target_rect.bottom == m.target_rect.bottom;
}

int NvdecSharedDecoder::take(int count) {
    std::lock_guard<std::mutex> lock(slices_mutex_);
    return slices_.take(count);
}

void NvdecSharedDecoder::give_back(int first, int count) {
    std::lock_guard<std::mutex> lock(slices_mutex_);
    slices_.give_back(first, count);
}

int NvdecSharedDecoder::streams() const {
    std::lock_guard<std::mutex> lock(slices_mutex_);
    return slices_.slices();
}

std::unique_ptr<NvdecSlice> NvdecSlice::own(CUcontext context, const CUVIDDECODECREATEINFO& info, std::string* error) {
    std::shared_ptr<NvdecSharedDecoder> d = NvdecSharedDecoder::create(context, info, error);
    if (!d) return nullptr;
    const int count = static_cast<int>(info.ulNumDecodeSurfaces);
    const int first = d->take(count);  // 0: the whole decoder
    return std::make_unique<NvdecSlice>(std::move(d), first, count);
}

NvdecSlice::NvdecSlice(std::shared_ptr<NvdecSharedDecoder> decoder, int first, int count)
    : decoder_(std::move(decoder)), first_(first), count_(count) {}

NvdecSlice::~NvdecSlice() { decoder_->give_back(first_, count_); }

CUresult NvdecSlice::decode(const CUVIDPICPARAMS* picture) {
    // Only H.264's references are checked and renumbered here: the pool shares no other codec's decoder.
    const bool h264 = decoder_->info_.CodecType == cudaVideoCodec_H264;
    if (first_ != 0 && !h264) return kNotSupported;
    if (!inside(picture->CurrPicIdx)) return kInvalidValue;
    if (h264)
        for (const CUVIDH264DPBENTRY& e : picture->CodecSpecific.h264.dpb)
            if (e.PicIdx >= 0 && !inside(e.PicIdx)) return kInvalidValue;
    CUVIDPICPARAMS shifted;
    const CUVIDPICPARAMS* p = picture;
    if (first_ != 0) {
        shifted = *picture;
        shifted.CurrPicIdx += first_;
        for (CUVIDH264DPBENTRY& e : shifted.CodecSpecific.h264.dpb)
            if (e.PicIdx >= 0) e.PicIdx += first_;
        p = &shifted;
    }
    std::lock_guard<std::mutex> lock(decoder_->calls_);
    return decoder_->cv_->cuvidDecodePicture(decoder_->decoder_, const_cast<CUVIDPICPARAMS*>(p));
}

CUresult NvdecSlice::status(int index, CUVIDGETDECODESTATUS* status) {
    if (!inside(index)) return kInvalidValue;
    std::lock_guard<std::mutex> lock(decoder_->calls_);
    return decoder_->cv_->cuvidGetDecodeStatus(decoder_->decoder_, first_ + index, status);
}

CUresult NvdecSlice::map(int index, unsigned long long* pointer, unsigned int* pitch, CUVIDPROCPARAMS* params) {
    if (!inside(index)) return kInvalidValue;
    std::lock_guard<std::mutex> lock(decoder_->calls_);
    return decoder_->cv_->cuvidMapVideoFrame(decoder_->decoder_, first_ + index, pointer, pitch, params);
}

CUresult NvdecSlice::unmap(unsigned long long pointer) {
    std::lock_guard<std::mutex> lock(decoder_->calls_);
    return decoder_->cv_->cuvidUnmapVideoFrame(decoder_->decoder_, pointer);
}

std::unique_ptr<NvdecSlice> NvdecDecoderPool::Impl::slice_of_live(CUcontext context, const CUVIDDECODECREATEINFO& info) {
    const int count = static_cast<int>(info.ulNumDecodeSurfaces);
    std::lock_guard<std::mutex> lock(mutex);
    decoders.erase(std::remove_if(decoders.begin(), decoders.end(), [](const auto& d) { return d.expired(); }), decoders.end());
    for (const auto& weak : decoders) {
        std::shared_ptr<NvdecSharedDecoder> d = weak.lock();
        if (!d || !d->decodes(info, context)) continue;
        if (const int first = d->take(count); first >= 0) return std::make_unique<NvdecSlice>(std::move(d), first, count);
    }
    return nullptr;
}

std::unique_ptr<NvdecSlice> NvdecDecoderPool::Impl::take(CUcontext context, const CUVIDDECODECREATEINFO& info, std::string* error) {
    const int count = static_cast<int>(info.ulNumDecodeSurfaces);
    if (info.CodecType != cudaVideoCodec_H264 || count > kSharedSurfaces / 2) return NvdecSlice::own(context, info, error);
    if (auto slice = slice_of_live(context, info)) return slice;
    // One creation at a time: a stream of the same size that comes meanwhile waits for the new
    // decoder and shares it instead of making another (the driver makes one at a time anyway).
    // The list's lock stays free, so that /metrics and streams with room elsewhere never wait.
    std::lock_guard<std::mutex> creating(create_mutex);
    if (auto slice = slice_of_live(context, info)) return slice;
    CUVIDDECODECREATEINFO shared = info;
    shared.ulNumDecodeSurfaces = kSharedSurfaces;
    // Each stream maps one frame at a time and unmaps it once its copy is queued: two each.
    shared.ulNumOutputSurfaces = static_cast<unsigned long>(
        std::clamp(2 * (kSharedSurfaces / count), static_cast<int>(info.ulNumOutputSurfaces), kMostOutputSurfaces));
    std::shared_ptr<NvdecSharedDecoder> d = NvdecSharedDecoder::create(context, shared, error);
    if (!d) return nullptr;
    const int first = d->take(count);
    std::lock_guard<std::mutex> lock(mutex);
    decoders.push_back(d);
    return std::make_unique<NvdecSlice>(std::move(d), first, count);
}

CUresult NvdecDecoderPool::Impl::decoder_caps(CuvidFunctions* cv, CUVIDDECODECAPS* c) {
    const auto key = std::make_tuple(static_cast<int>(c->eCodecType), static_cast<int>(c->eChromaFormat), static_cast<int>(c->nBitDepthMinus8));
    {
        std::lock_guard<std::mutex> lock(mutex);
        if (const auto it = caps.find(key); it != caps.end()) {
            *c = it->second;
            return CUDA_SUCCESS;
        }
    }
    const CUresult r = cv->cuvidGetDecoderCaps(c);  // outside the lock: the driver's call takes ~12 ms
    if (r == CUDA_SUCCESS) {
        std::lock_guard<std::mutex> lock(mutex);
        caps[key] = *c;
    }
    return r;
}

#endif

namespace {

std::mutex registry_mutex;
std::map<int, std::weak_ptr<NvdecDecoderPool>>& registry() {
    static std::map<int, std::weak_ptr<NvdecDecoderPool>> pools;  // weak: the streams own their GPU's pool
    return pools;
}

}  // namespace

std::shared_ptr<NvdecDecoderPool> NvdecDecoderPool::acquire(int gpu) {
    std::lock_guard<std::mutex> lock(registry_mutex);
    if (auto pool = registry()[gpu].lock()) return pool;
    auto pool = std::make_shared<NvdecDecoderPool>(gpu);
    registry()[gpu] = pool;
    return pool;
}

std::vector<std::shared_ptr<NvdecDecoderPool>> NvdecDecoderPool::live() {
    std::lock_guard<std::mutex> lock(registry_mutex);
    std::vector<std::shared_ptr<NvdecDecoderPool>> pools;
    for (const auto& [gpu, weak] : registry())
        if (auto pool = weak.lock()) pools.push_back(std::move(pool));
    return pools;
}

NvdecDecoderPool::NvdecDecoderPool(int gpu) : gpu_(gpu), impl_(std::make_unique<Impl>()) {}

NvdecDecoderPool::~NvdecDecoderPool() = default;

NvdecDecoderPool::Counts NvdecDecoderPool::counts() const {
    Counts c;
#ifdef VF_HAVE_NVCUVID
    std::lock_guard<std::mutex> lock(impl_->mutex);
    for (const auto& weak : impl_->decoders)
        if (const auto d = weak.lock()) {
            ++c.decoders;
            c.streams += d->streams();
        }
#endif
    return c;
}

}  // namespace vf
