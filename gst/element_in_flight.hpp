// The element's frames in flight (system memory filtered on the GPU): GstBaseTransform's
// submit_input_buffer starts each buffer on the engine (ElementEngine::submit) and keeps it mapped,
// generate_output pushes on, in the order they came, the buffers whose results are back (written
// into them: the element stays in place), so the uploads, kernels and downloads of successive
// buffers overlap on the GPU stage's streams. Timestamps and metadata are the buffers' own.
//  - At most frames-in-flight buffers are held: the LATENCY query adds that many frame durations.
//  - A serialized event (EOS, new caps or segment, gap) or a drain query first sends everything in
//    flight on; a flush drops it. QoS stays GstBaseTransform's: a late buffer is dropped before it starts.
//  - The allocation query offers upstream a pool of the runtime's page-locked buffers.
// Elsewhere (the CPU, CUDA memory, a filter that changes nothing) GstVideoFilter's own path runs.
#pragma once

#include <gst/video/video.h>

#include <deque>

#include "gst/element_engine.hpp"
#include "gst/gstvfilter.hpp"

namespace vf::element {

// The buffers in flight, oldest first, on the streaming thread (and stop, once it has ended).
class BuffersInFlight {
public:
    BuffersInFlight() = default;
    ~BuffersInFlight() { release(); }
    BuffersInFlight(const BuffersInFlight&) = delete;
    BuffersInFlight& operator=(const BuffersInFlight&) = delete;

    bool empty() const { return mapped_.empty() && finished_.empty(); }
    // Maps `buffer` (writable; owned from here) as `info` and starts it on `engine`. Throws the
    // engine's error (the buffer then dropped).
    void submit(ElementEngine& engine, GstBuffer* buffer, const GstVideoInfo& info);
    // The oldest buffer with its result written in (owned by the caller); nullptr when none is in
    // flight or, with wait=false, while the oldest still runs.
    GstBuffer* take(ElementEngine* engine, bool wait);
    // Everything in flight finished and written back, to be taken before anything else (the engine
    // is about to be replaced).
    void finish(ElementEngine& engine);
    // Everything dropped (a flush, stop): what the engine still filters is waited for first.
    void drop(ElementEngine* engine);

private:
    struct Mapped {
        GstBuffer* buffer;
        GstVideoFrame frame;
    };
    void release();  // unmaps and unrefs everything (the engine holds none of it any more)
    std::deque<Mapped> mapped_;
    std::deque<GstBuffer*> finished_;
};

// Installs the vfuncs above on the element's class, over those installed so far (which they chain
// to): call last in class_init.
void install_frames_in_flight(GstBaseTransformClass* transform_class);
// At set_info, before the engine changes: what is in flight finishes with the old one.
void finish_in_flight(GstVfilter* self);
// At stop, after the engine is gone: everything still held is dropped.
void drop_in_flight(GstVfilter* self);
// Set after a new engine: a pipeline that has asked for the latency asks again (the element's
// latency follows the engine: frames in flight or none).
void latency_may_have_changed(GstVfilter* self);

}  // namespace vf::element
