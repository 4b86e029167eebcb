// The NVDEC decoders of one GPU, shared by the streams that decode on it through vfilter's NVDEC
// decoder (serve --nvdec-share; decode/nvdec_decoder.hpp).
//
// Why: the driver creates NVDEC decoders one at a time for the whole machine, about 60 ms each
// (cuvidGetDecoderCaps 11-13 ms, cuvidCreateDecoder 46-51 ms for 1080p H.264 on H200s, with one
// GPU or two, one thread or eight), and the decoders already running slow down meanwhile
// (docs/benchmarks.md, "Start-up"): 64 cameras take about 5 s before the last one decodes. Here
// streams of one codec, format and size decode into slices of one decoder's decode surfaces (32,
// the driver's limit): two or three streams a decoder, as many fewer creations. The capabilities
// are asked once per codec and format.
//
// A pool per GPU, shared by the streams decoding on it and gone with the last (the registry holds
// weak references). Each decoder is owned by the slices of the streams on it and destroyed with
// the last (decode/nvdec_shared_decoder.hpp); the pool only finds them.
#pragma once

#include <memory>
#include <vector>

namespace vf {

class NvdecDecoderPool {
public:
    // The live pool of GPU `gpu`, or a new one.
    static std::shared_ptr<NvdecDecoderPool> acquire(int gpu);
    // Every pool alive now (for /metrics).
    static std::vector<std::shared_ptr<NvdecDecoderPool>> live();

    explicit NvdecDecoderPool(int gpu);
    ~NvdecDecoderPool();
    NvdecDecoderPool(const NvdecDecoderPool&) = delete;
    NvdecDecoderPool& operator=(const NvdecDecoderPool&) = delete;

    int gpu() const { return gpu_; }
    struct Counts {
        int decoders = 0;      // NVDEC decoders alive
        int streams = 0;       // streams decoding on them (their slices)
    };
    Counts counts() const;

    struct Impl;  // decode/nvdec_shared_decoder.hpp
    Impl& impl() { return *impl_; }

private:
    const int gpu_;
    std::unique_ptr<Impl> impl_;
};

}  // namespace vf
