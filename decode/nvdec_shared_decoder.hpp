// Inside decode/: an NVDEC decoder whose decode surfaces several streams share, each stream's
// slice of them, and the pool that finds a decoder with room (decode/nvdec_decoder_pool.hpp).
// Includes the Video Codec SDK's headers (ffnvcodec): only for files compiled alone in a unity
// build (its loader breaks once <cuda.h> was seen).
//
// NVDEC keeps no state of a stream between pictures but its surfaces: each picture comes with
// every parameter (CUVIDPICPARAMS, made by the stream's own parser) and names its output surface
// and its references by index. A stream's parser numbers its surfaces 0..count-1; its slice adds
// its first surface to every index it hands the driver, and refuses an index outside the slice,
// so that a damaged stream cannot write into another stream's pictures. The output surfaces a
// frame is mapped into are not sliced: a stream unmaps one only once its copy out of it has run
// (decode/nvdec_decoder.cpp), as the next stream's map may write into it at once, on another
// CUDA stream. The driver's calls on one decoder are made one at a time (a mutex per decoder):
// its streams run on threads of their own.
#pragma once

#ifdef VF_HAVE_NVCUVID
#include <ffnvcodec/dynlink_loader.h>

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "decode/nvdec_decoder_pool.hpp"
#include "decode/nvdec_surface_slices.hpp"

namespace vf {

class NvdecSharedDecoder {
public:
    // A decoder made as `info` asks, on `context`; nullptr with *error when the driver refuses.
    static std::shared_ptr<NvdecSharedDecoder> create(CUcontext context, const CUVIDDECODECREATEINFO& info, std::string* error);
    ~NvdecSharedDecoder();
    NvdecSharedDecoder(const NvdecSharedDecoder&) = delete;
    NvdecSharedDecoder& operator=(const NvdecSharedDecoder&) = delete;

    // Whether a stream asking for `info` on `context` may decode here (same codec, format, size,
    // display area and output; the surface counts aside).
    bool decodes(const CUVIDDECODECREATEINFO& info, CUcontext context) const;
    int take(int count);  // NvdecSurfaceSlices::take, locked
    void give_back(int first, int count);
    int streams() const;
    int room_for(int count) const;  // NvdecSurfaceSlices::room_for, locked

private:
    NvdecSharedDecoder() = default;
    friend class NvdecSlice;
    CudaFunctions* cu_ = nullptr;
    CuvidFunctions* cv_ = nullptr;
    CUcontext context_ = nullptr;
    CUvideodecoder decoder_ = nullptr;
    CUVIDDECODECREATEINFO info_{};
    mutable std::mutex slices_mutex_;
    NvdecSurfaceSlices slices_{0};
    std::mutex calls_;  // the driver's calls on decoder_, one at a time
};

// One stream's decode surfaces [first, first + count) of a decoder; given back when destroyed
// (the decoder goes with its last slice). The calls take the stream's own surface numbers.
class NvdecSlice {
public:
    // A decoder of the stream's own (no sharing): its surfaces are all the slice.
    static std::unique_ptr<NvdecSlice> own(CUcontext context, const CUVIDDECODECREATEINFO& info, std::string* error);
    NvdecSlice(std::shared_ptr<NvdecSharedDecoder> decoder, int first, int count);
    ~NvdecSlice();
    NvdecSlice(const NvdecSlice&) = delete;
    NvdecSlice& operator=(const NvdecSlice&) = delete;

    CUresult decode(const CUVIDPICPARAMS* picture);
    CUresult status(int index, CUVIDGETDECODESTATUS* status);
    CUresult map(int index, unsigned long long* pointer, unsigned int* pitch, CUVIDPROCPARAMS* params);
    CUresult unmap(unsigned long long pointer);
    // Whether a stream whose decoder `info` describes may decode into this slice (a slice held
    // for it before its parser saw the stream).
    bool fits(const CUVIDDECODECREATEINFO& info, CUcontext context) const {
        return decoder_->decodes(info, context) && static_cast<int>(info.ulNumDecodeSurfaces) <= count_;
    }

private:
    bool inside(int index) const { return index >= 0 && index < count_; }
    std::shared_ptr<NvdecSharedDecoder> decoder_;
    const int first_, count_;
};

struct NvdecDecoderPool::Impl {
    explicit Impl(int gpu) : gpu(gpu) {}
    ~Impl();  // stops the maker, which gives back the decoders it made that nobody took

    // A slice for a stream of `kind` whose decoder `info` describes (ulNumDecodeSurfaces: the
    // stream's count): of a live decoder with room, or of a new one; nullptr with *error. The
    // pool learns the kind's decoder from its first stream, for the streams that wait.
    std::unique_ptr<NvdecSlice> take(CUcontext context, const CUVIDDECODECREATEINFO& info, const NvdecStreamKind& kind,
                                     std::string* error);
    // cuvidGetDecoderCaps, asked once per codec, chroma format and depth.
    CUresult decoder_caps(CuvidFunctions* cv, CUVIDDECODECAPS* caps);

    // A slice of a live decoder with room, or nullptr; `mutex` held.
    std::unique_ptr<NvdecSlice> slice_of_live_locked(CUcontext context, const CUVIDDECODECREATEINFO& info);
    // Slices of info's count the live decoders of its format have room for; `mutex` held.
    int room_locked(CUcontext context, const CUVIDDECODECREATEINFO& info);
    // A decoder of 32 surfaces for streams like the one `info` describes; the driver's turn is
    // create_mutex, held by the caller.
    static std::shared_ptr<NvdecSharedDecoder> create_shared(CUcontext context, const CUVIDDECODECREATEINFO& info, std::string* error);

    // What the pool knows of a kind of stream (turns).
    struct Kind {
        bool first_sent = false;  // a stream of the kind went to NVDEC: it makes the first decoder
        bool known = false;       // that decoder was made: context and info below
        bool unshared = false;    // its streams get decoders of their own: nothing to wait for
        bool failed = false;      // the maker could not make one: the waiting streams stay on the CPU
        CUcontext context = nullptr;
        CUVIDDECODECREATEINFO info{};
        int waiting = 0;          // turns not ready
    };
    void learn_locked(const NvdecStreamKind& kind, CUcontext context, const CUVIDDECODECREATEINFO& info, bool shared);
    void wake_maker_locked();  // starts the maker thread the first time
    void make_for_waiting();   // the maker thread: decoders until every waiting stream has room
    // Decoders of this format nobody took, out of `prepared` (destroyed by the caller, unlocked).
    std::vector<std::shared_ptr<NvdecSharedDecoder>> unused_locked(const Kind& kind);

    const int gpu;
    std::mutex create_mutex;  // held while a decoder is created (~60 ms)
    mutable std::mutex mutex;  // everything below: held briefly
    std::vector<std::weak_ptr<NvdecSharedDecoder>> decoders;
    std::map<std::tuple<int, int, int>, CUVIDDECODECAPS> caps;
    std::map<NvdecStreamKind, Kind> kinds;
    std::vector<std::shared_ptr<NvdecSharedDecoder>> prepared;  // made for waiting streams, until one takes a slice
    std::condition_variable wake;  // the maker's: a stream waits, or a kind became known
    bool stopping = false;
    std::thread maker;
};

}  // namespace vf
#endif
