#include "decode/nvdec_decoder_pool.hpp"

#include <algorithm>
#include <map>
#include <mutex>
#include <tuple>

#include <spdlog/spdlog.h>

#include "common/thread_name.hpp"
#include "decode/nvdec_shared_decoder.hpp"

namespace vf {

bool NvdecStreamKind::operator<(const NvdecStreamKind& o) const {
    return std::tie(codec, width, height, format, ahead) < std::tie(o.codec, o.width, o.height, o.format, o.ahead);
}

#ifndef VF_HAVE_NVCUVID
// No NVDEC decoder of vfilter's in this build: nothing to share, and every turn is ready at once
// (the stream's NVDEC is FFmpeg's).
struct NvdecDecoderPool::Impl {
    explicit Impl(int) {}
};
class NvdecSlice {};
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

int NvdecSharedDecoder::room_for(int count) const {
    std::lock_guard<std::mutex> lock(slices_mutex_);
    return slices_.room_for(count);
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

std::unique_ptr<NvdecSlice> NvdecDecoderPool::Impl::slice_of_live_locked(CUcontext context, const CUVIDDECODECREATEINFO& info) {
    const int count = static_cast<int>(info.ulNumDecodeSurfaces);
    decoders.erase(std::remove_if(decoders.begin(), decoders.end(), [](const auto& d) { return d.expired(); }), decoders.end());
    for (const auto& weak : decoders) {
        std::shared_ptr<NvdecSharedDecoder> d = weak.lock();
        if (!d || !d->decodes(info, context)) continue;
        if (const int first = d->take(count); first >= 0) {
            // Its slices own it now: a decoder the maker made is the pool's no longer.
            prepared.erase(std::remove(prepared.begin(), prepared.end(), d), prepared.end());
            return std::make_unique<NvdecSlice>(std::move(d), first, count);
        }
    }
    return nullptr;
}

int NvdecDecoderPool::Impl::room_locked(CUcontext context, const CUVIDDECODECREATEINFO& info) {
    int room = 0;
    for (const auto& weak : decoders)
        if (const auto d = weak.lock(); d && d->decodes(info, context)) room += d->room_for(static_cast<int>(info.ulNumDecodeSurfaces));
    return room;
}

std::shared_ptr<NvdecSharedDecoder> NvdecDecoderPool::Impl::create_shared(CUcontext context, const CUVIDDECODECREATEINFO& info,
                                                                          std::string* error) {
    const int count = static_cast<int>(info.ulNumDecodeSurfaces);
    CUVIDDECODECREATEINFO shared = info;
    shared.ulNumDecodeSurfaces = kSharedSurfaces;
    // Each stream holds one frame mapped at a time, until its copy has run (the output surfaces
    // are the decoder's, not the slices': decode/nvdec_decoder.cpp, unmap_copied): two each.
    shared.ulNumOutputSurfaces = static_cast<unsigned long>(
        std::clamp(2 * (kSharedSurfaces / count), static_cast<int>(info.ulNumOutputSurfaces), kMostOutputSurfaces));
    return NvdecSharedDecoder::create(context, shared, error);
}

std::unique_ptr<NvdecSlice> NvdecDecoderPool::Impl::take(CUcontext context, const CUVIDDECODECREATEINFO& info,
                                                         const NvdecStreamKind& kind, std::string* error) {
    const int count = static_cast<int>(info.ulNumDecodeSurfaces);
    if (info.CodecType != cudaVideoCodec_H264 || count > kSharedSurfaces / 2) {
        {
            std::lock_guard<std::mutex> lock(mutex);
            learn_locked(kind, context, info, false);
        }
        return NvdecSlice::own(context, info, error);
    }
    {
        std::lock_guard<std::mutex> lock(mutex);
        if (auto slice = slice_of_live_locked(context, info)) {
            learn_locked(kind, context, info, true);
            return slice;
        }
    }
    // One creation at a time: a stream of the same size that comes meanwhile waits for the new
    // decoder and shares it instead of making another (the driver makes one at a time anyway).
    // The list's lock stays free, so that /metrics and streams with room elsewhere never wait.
    std::lock_guard<std::mutex> creating(create_mutex);
    {
        std::lock_guard<std::mutex> lock(mutex);
        if (auto slice = slice_of_live_locked(context, info)) {
            learn_locked(kind, context, info, true);
            return slice;
        }
    }
    std::shared_ptr<NvdecSharedDecoder> d = create_shared(context, info, error);
    if (!d) return nullptr;
    const int first = d->take(count);
    std::lock_guard<std::mutex> lock(mutex);
    decoders.push_back(d);
    learn_locked(kind, context, info, true);
    return std::make_unique<NvdecSlice>(std::move(d), first, count);
}

void NvdecDecoderPool::Impl::learn_locked(const NvdecStreamKind& kind, CUcontext context, const CUVIDDECODECREATEINFO& info,
                                          bool shared) {
    Kind& k = kinds[kind];
    k.first_sent = true;
    if (k.known || k.unshared) return;
    k.unshared = !shared;
    k.known = shared;
    k.context = context;
    k.info = info;
    if (k.waiting) wake.notify_all();
}

void NvdecDecoderPool::Impl::wake_maker_locked() {
    if (!maker.joinable()) maker = std::thread([this] { make_for_waiting(); });
    wake.notify_all();
}

std::vector<std::shared_ptr<NvdecSharedDecoder>> NvdecDecoderPool::Impl::unused_locked(const Kind& kind) {
    std::vector<std::shared_ptr<NvdecSharedDecoder>> unused;
    for (auto it = prepared.begin(); it != prepared.end();)
        if ((*it)->decodes(kind.info, kind.context) && (*it)->streams() == 0) {
            unused.push_back(std::move(*it));
            it = prepared.erase(it);
        } else {
            ++it;
        }
    return unused;
}

void NvdecDecoderPool::Impl::make_for_waiting() {
    name_this_thread("vf-nvdec-maker");
    // The GPU's primary context (every stream's decoders are made on it) stays alive while the
    // maker may use it, whoever else lets it go.
    CudaFunctions* cu = nullptr;
    CUcontext primary = nullptr;
    CUdevice device = 0;
    const bool retained = cuda_load_functions(&cu, nullptr) >= 0 && cu->cuDeviceGet(&device, gpu) == CUDA_SUCCESS &&
                          cu->cuDevicePrimaryCtxRetain(&primary, device) == CUDA_SUCCESS;
    std::unique_lock<std::mutex> lock(mutex);
    while (!stopping) {
        Kind* need = nullptr;
        for (auto& [key, kind] : kinds)
            if (kind.known && !kind.failed && kind.waiting > room_locked(kind.context, kind.info)) need = &kind;
        if (!need) {
            wake.wait(lock);
            continue;
        }
        if (!retained || need->context != primary) {  // not the primary context: the maker cannot keep it alive
            need->failed = true;
            continue;
        }
        const CUcontext context = need->context;
        const CUVIDDECODECREATEINFO info = need->info;
        lock.unlock();
        std::string error;
        std::shared_ptr<NvdecSharedDecoder> d;
        {
            std::lock_guard<std::mutex> creating(create_mutex);
            d = create_shared(context, info, &error);
        }
        lock.lock();
        if (!d) {
            spdlog::warn("{}; streams waiting for a shared decoder of GPU {} decode on the CPU", error, gpu);
            need->failed = true;  // `kinds` keeps its entries: the pointer still holds
            continue;
        }
        decoders.push_back(d);
        prepared.push_back(std::move(d));
    }
    std::vector<std::shared_ptr<NvdecSharedDecoder>> unused = std::move(prepared);
    prepared.clear();
    lock.unlock();
    unused.clear();  // destroyed on the context still retained here
    if (retained) cu->cuDevicePrimaryCtxRelease(device);
    if (cu) cuda_free_functions(&cu);
}

NvdecDecoderPool::Impl::~Impl() {
    {
        std::lock_guard<std::mutex> lock(mutex);
        stopping = true;
    }
    wake.notify_all();
    if (maker.joinable()) maker.join();
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

NvdecDecoderPool::NvdecDecoderPool(int gpu) : gpu_(gpu), impl_(std::make_unique<Impl>(gpu)) {}

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

std::unique_ptr<NvdecDecoderPool::Turn> NvdecDecoderPool::turn(const NvdecStreamKind& kind) {
    return std::make_unique<Turn>(shared_from_this(), kind);
}

NvdecDecoderPool::Turn::Turn(std::shared_ptr<NvdecDecoderPool> pool, const NvdecStreamKind& kind) : pool_(std::move(pool)), kind_(kind) {}

NvdecDecoderPool::Turn::~Turn() {
#ifdef VF_HAVE_NVCUVID
    held_.reset();
    if (!waiting_) return;
    Impl& p = pool_->impl();
    std::vector<std::shared_ptr<NvdecSharedDecoder>> unused;
    {
        std::lock_guard<std::mutex> lock(p.mutex);
        Impl::Kind& k = p.kinds[kind_];
        if (--k.waiting == 0 && k.known) unused = p.unused_locked(k);  // nobody waits for them any more
    }
#endif
}

bool NvdecDecoderPool::Turn::ready() {
    if (ready_) return true;
#ifdef VF_HAVE_NVCUVID
    Impl& p = pool_->impl();
    std::lock_guard<std::mutex> lock(p.mutex);
    Impl::Kind& k = p.kinds[kind_];
    if (!k.first_sent || k.unshared) {  // the first of its kind makes the decoder the others share
        k.first_sent = true;
        ready_ = true;
    } else if (k.known && !k.failed) {
        held_ = p.slice_of_live_locked(k.context, k.info);
        ready_ = held_ != nullptr;
    }
    if (ready_ && waiting_) --k.waiting, waiting_ = false;
    if (!ready_ && !waiting_) {
        ++k.waiting, waiting_ = true;
        p.wake_maker_locked();
    }
    return ready_;
#else
    return ready_ = true;
#endif
}

std::unique_ptr<NvdecSlice> NvdecDecoderPool::Turn::take_held() { return std::move(held_); }

}  // namespace vf
