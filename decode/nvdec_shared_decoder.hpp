// Inside decode/: an NVDEC decoder whose decode surfaces several streams share, each stream's
// slice of them, and the pool that finds a decoder with room (decode/nvdec_decoder_pool.hpp).
// Includes the Video Codec SDK's headers (ffnvcodec): only for files compiled alone in a unity
// build (its loader breaks once <cuda.h> was seen).
//
// NVDEC keeps no state of a stream between pictures but its surfaces: each picture comes with
// every parameter (CUVIDPICPARAMS, made by the stream's own parser) and names its output surface
// and its references by index. A stream's parser numbers its surfaces 0..count-1; its slice adds
// its first surface to every index it hands the driver, and refuses an index outside the slice,
// so that a damaged stream cannot write into another stream's pictures. The driver's calls on one
// decoder are made one at a time (a mutex per decoder): its streams run on threads of their own.
#pragma once

#ifdef VF_HAVE_NVCUVID
#include <ffnvcodec/dynlink_loader.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
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

private:
    bool inside(int index) const { return index >= 0 && index < count_; }
    std::shared_ptr<NvdecSharedDecoder> decoder_;
    const int first_, count_;
};

struct NvdecDecoderPool::Impl {
    // A slice for a stream whose decoder `info` describes (ulNumDecodeSurfaces: the stream's
    // count): of a live decoder with room, or of a new one; nullptr with *error.
    std::unique_ptr<NvdecSlice> take(CUcontext context, const CUVIDDECODECREATEINFO& info, std::string* error);
    // cuvidGetDecoderCaps, asked once per codec, chroma format and depth.
    CUresult decoder_caps(CuvidFunctions* cv, CUVIDDECODECAPS* caps);

    // A slice of a live decoder with room, or nullptr.
    std::unique_ptr<NvdecSlice> slice_of_live(CUcontext context, const CUVIDDECODECREATEINFO& info);

    std::mutex create_mutex;  // held while a decoder is created (~60 ms)
    mutable std::mutex mutex;  // the list and the caps: held briefly
    std::vector<std::weak_ptr<NvdecSharedDecoder>> decoders;
    std::map<std::tuple<int, int, int>, CUVIDDECODECAPS> caps;
};

}  // namespace vf
#endif
