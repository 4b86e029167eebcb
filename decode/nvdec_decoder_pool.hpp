// The NVDEC decoders of one GPU, shared by the streams that decode on it through vfilter's NVDEC
// decoder (serve --nvdec-share; decode/nvdec_decoder.hpp).
//
// Why: the driver creates NVDEC decoders one at a time for the whole machine, each in
// tens of milliseconds (a capabilities query, then the creation; with one GPU or two, one thread
// or eight), and the decoders already running slow down meanwhile
// (docs/benchmarks.md, "Start-up"): 64 cameras take about 5 s before the last one decodes. Here
// streams of one codec, format and size decode into slices of one decoder's decode surfaces (32,
// the driver's limit): two or three streams a decoder, as many fewer creations. The capabilities
// are asked once per codec and format.
//
// A pool per GPU, made by its NvdecDevice (decode/nvdec_device.hpp), shared by the streams
// decoding on it and gone with the last. Each decoder is owned by the slices of the streams on it and destroyed with
// the last (decode/nvdec_shared_decoder.hpp); the pool only finds them.
//
// Turns: a stream that can decode on the CPU meanwhile (serve --nvdec-share, hwdec auto, GPU
// filters) need not wait for a creation. Its turn is ready at once when a decoder of its kind has
// room (a slice is then held for it) or when it is the first of its kind (it makes the decoder
// whose format the pool then knows); otherwise it waits on the CPU while the pool's maker thread
// makes decoders, one at a time as the driver does, until every waiting stream has room. Those
// decoders belong to the pool until a stream takes a slice of one; unused ones go when nobody
// waits any more.
#pragma once

#include <memory>
#include <vector>

namespace vf {

class NvdecSlice;  // decode/nvdec_shared_decoder.hpp

// What a stream's decoder needs, as its container tells before anything is decoded: streams of
// one kind decode into slices of the same decoders.
struct NvdecStreamKind {
    int codec = 0;            // AVCodecID
    int width = 0, height = 0;
    int format = 0;           // AVPixelFormat
    int ahead = 0;            // frames the stream sends ahead (its slice's size follows)
    bool operator<(const NvdecStreamKind& o) const;
};

class NvdecDecoderPool : public std::enable_shared_from_this<NvdecDecoderPool> {
public:
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

    class Turn;
    // A turn for a stream of `kind` (see above); the pool lives as long as the turn.
    std::unique_ptr<Turn> turn(const NvdecStreamKind& kind);

    struct Impl;  // decode/nvdec_shared_decoder.hpp
    Impl& impl() { return *impl_; }

private:
    const int gpu_;
    std::unique_ptr<Impl> impl_;
};

class NvdecDecoderPool::Turn {
public:
    Turn(std::shared_ptr<NvdecDecoderPool> pool, const NvdecStreamKind& kind);
    ~Turn();  // no longer waiting; a held slice nobody took is given back
    Turn(const Turn&) = delete;
    Turn& operator=(const Turn&) = delete;

    // Whether the stream may decode on NVDEC now (true stays true). False: it counts as waiting,
    // and the pool makes a decoder for it; ask again at the stream's next clean start.
    bool ready();
    // The slice held for the stream, for its decoder (nullptr when none is held: the first of its
    // kind, or a kind the pool does not share).
    std::unique_ptr<NvdecSlice> take_held();

private:
    std::shared_ptr<NvdecDecoderPool> pool_;
    const NvdecStreamKind kind_;
    bool ready_ = false, waiting_ = false;
    std::unique_ptr<NvdecSlice> held_;
};

}  // namespace vf
