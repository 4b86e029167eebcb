#include "gst/element_in_flight.hpp"

#include <exception>
#include <mutex>

#include "gst/element_state.hpp"
#include "gst/page_locked_pool.hpp"
#include "gst/video_frames.hpp"

namespace vf::element {

void BuffersInFlight::submit(ElementEngine& engine, GstBuffer* buffer, const GstVideoInfo& info) {
    Mapped m{buffer, {}};
    if (!gst_video_frame_map(&m.frame, const_cast<GstVideoInfo*>(&info), buffer, GST_MAP_READWRITE)) {
        gst_buffer_unref(buffer);
        fail(ErrorCategory::Internal, "cannot map a buffer");
    }
    try {
        engine.submit(frame_over(m.frame));
    } catch (...) {
        gst_video_frame_unmap(&m.frame);
        gst_buffer_unref(buffer);
        throw;
    }
    mapped_.push_back(m);
}

GstBuffer* BuffersInFlight::take(ElementEngine* engine, bool wait) {
    if (!finished_.empty()) {
        GstBuffer* b = finished_.front();
        finished_.pop_front();
        return b;
    }
    if (mapped_.empty() || !engine) return nullptr;
    AvFramePtr out = engine->take(wait);
    if (!out) return nullptr;
    Mapped m = mapped_.front();
    mapped_.pop_front();
    copy_into(*out, m.frame);  // nothing to copy where the result is the buffer itself
    out.reset();
    gst_video_frame_unmap(&m.frame);
    return m.buffer;
}

void BuffersInFlight::finish(ElementEngine& engine) {
    std::deque<GstBuffer*> done;
    while (!mapped_.empty()) done.push_back(take(&engine, true));
    for (GstBuffer* b : done) finished_.push_back(b);
}

void BuffersInFlight::drop(ElementEngine* engine) {
    try {
        while (engine && engine->take(true)) {
        }
    } catch (const std::exception& e) {
        GST_WARNING("frames dropped in flight: %s", e.what());
    }
    release();
}

void BuffersInFlight::release() {
    for (Mapped& m : mapped_) {
        gst_video_frame_unmap(&m.frame);
        gst_buffer_unref(m.buffer);
    }
    mapped_.clear();
    for (GstBuffer* b : finished_) gst_buffer_unref(b);
    finished_.clear();
}

namespace {

// The vfuncs installed before these, which they chain to.
struct Previous {
    GstFlowReturn (*submit_input_buffer)(GstBaseTransform*, gboolean, GstBuffer*);
    GstFlowReturn (*generate_output)(GstBaseTransform*, GstBuffer**);
    gboolean (*sink_event)(GstBaseTransform*, GstEvent*);
    gboolean (*query)(GstBaseTransform*, GstPadDirection, GstQuery*);
    gboolean (*propose_allocation)(GstBaseTransform*, GstQuery*, GstQuery*);
} previous;

// Whether this buffer goes through the frames in flight: system memory on an engine that keeps
// several frames, and a filter that changes something (else GstVideoFilter passes it through).
bool in_flight_path(GstBaseTransform* trans, State& s) {
#ifdef VF_GST_CUDA
    if (s.cuda_caps) return false;
#endif
    return s.engine && s.engine->frames_in_flight() > 1 && !gst_base_transform_is_passthrough(trans);
}

GstFlowReturn submit_input_buffer(GstBaseTransform* trans, gboolean is_discont, GstBuffer* input) {
    GstVfilter* self = GST_VFILTER(trans);
    State& s = state_of(self);
    // GstBaseTransform's own first: negotiation, and QoS, which drops a late buffer here.
    const GstFlowReturn r = previous.submit_input_buffer(trans, is_discont, input);
    if (r != GST_FLOW_OK || !trans->queued_buf || !in_flight_path(trans, s)) return r;
    GstBuffer* buffer = gst_buffer_make_writable(trans->queued_buf);  // filtered in place, as on the CPU
    trans->queued_buf = nullptr;
    try {
        s.in_flight.submit(*s.engine, buffer, GST_VIDEO_FILTER(trans)->in_info);
    } catch (const std::exception& e) {
        post_error(self, e);
        return GST_FLOW_ERROR;
    }
    return GST_FLOW_OK;
}

GstFlowReturn generate_output(GstBaseTransform* trans, GstBuffer** outbuf) {
    GstVfilter* self = GST_VFILTER(trans);
    State& s = state_of(self);
    if (!s.in_flight.empty()) {
        // A buffer waiting for GstVideoFilter's path (the filter now changes nothing) goes after
        // every buffer before it: those are waited for.
        const bool behind = trans->queued_buf != nullptr;
        try {
            *outbuf = s.in_flight.take(s.engine.get(), behind);
        } catch (const std::exception& e) {
            post_error(self, e);
            return GST_FLOW_ERROR;
        }
        if (*outbuf || !behind) return GST_FLOW_OK;
    }
    return previous.generate_output(trans, outbuf);
}

// Sends on every buffer in flight, waiting for each (before a serialized event).
GstFlowReturn push_in_flight(GstBaseTransform* trans, State& s) {
    GstFlowReturn r = GST_FLOW_OK;
    try {
        while (GstBuffer* b = s.in_flight.take(s.engine.get(), true)) {
            r = gst_pad_push(GST_BASE_TRANSFORM_SRC_PAD(trans), b);
            if (r != GST_FLOW_OK) break;
        }
    } catch (const std::exception& e) {
        post_error(GST_VFILTER(trans), e);
        r = GST_FLOW_ERROR;
    }
    if (r != GST_FLOW_OK) s.in_flight.drop(s.engine.get());  // downstream flushes, stopped or failed
    return r;
}

gboolean sink_event(GstBaseTransform* trans, GstEvent* event) {
    State& s = state_of(GST_VFILTER(trans));
    if (GST_EVENT_TYPE(event) == GST_EVENT_FLUSH_STOP)
        s.in_flight.drop(s.engine.get());
    else if (GST_EVENT_IS_SERIALIZED(event) && !s.in_flight.empty())
        push_in_flight(trans, s);
    return previous.sink_event(trans, event);
}

// The latency the frames in flight add: that many frame durations (none at a variable frame rate,
// whose frames have no duration the caps know).
GstClockTime latency_added(GstBaseTransform* trans, State& s) {
    if (!in_flight_path(trans, s)) return 0;
    const GstVideoInfo& info = GST_VIDEO_FILTER(trans)->in_info;
    if (GST_VIDEO_INFO_FPS_N(&info) <= 0 || GST_VIDEO_INFO_FPS_D(&info) <= 0) return 0;
    return gst_util_uint64_scale_int(static_cast<guint64>(s.engine->frames_in_flight()) * GST_SECOND, GST_VIDEO_INFO_FPS_D(&info),
                                     GST_VIDEO_INFO_FPS_N(&info));
}

gboolean query(GstBaseTransform* trans, GstPadDirection direction, GstQuery* q) {
    // A drain query (a decoder about to reuse or free its buffers) wants every buffer it gave back.
    if (direction == GST_PAD_SINK && GST_QUERY_TYPE(q) == GST_QUERY_DRAIN) {
        State& s = state_of(GST_VFILTER(trans));
        if (!s.in_flight.empty()) push_in_flight(trans, s);
    }
    const gboolean ok = previous.query(trans, direction, q);
    if (!ok || direction != GST_PAD_SRC || GST_QUERY_TYPE(q) != GST_QUERY_LATENCY) return ok;
    State& s = state_of(GST_VFILTER(trans));
    GstClockTime added;
    {
        std::lock_guard<std::mutex> lock(s.engine_mutex);  // asked from the application's thread
        added = latency_added(trans, s);
    }
    gboolean live;
    GstClockTime min, max;
    gst_query_parse_latency(q, &live, &min, &max);
    GST_DEBUG_OBJECT(trans, "frames in flight add %" GST_TIME_FORMAT " of latency", GST_TIME_ARGS(added));
    gst_query_set_latency(q, live, min + added, GST_CLOCK_TIME_IS_VALID(max) ? max + added : max);
    return TRUE;
}

// System memory for the GPU: a pool of the runtime's page-locked buffers, first, with their
// allocator for sources that make pools of their own; other memory is still taken.
gboolean propose_allocation(GstBaseTransform* trans, GstQuery* decide_query, GstQuery* q) {
    const gboolean ok = previous.propose_allocation(trans, decide_query, q);
    GstCaps* caps = nullptr;
    gst_query_parse_allocation(q, &caps, nullptr);
    // Passthrough, or a pool of downstream's (a sink's own memory, which an in-place element hands
    // on): that answer stands. The element is in place, so GstBaseTransform asked downstream
    // (decide_query is none), whose answer may also be no answer.
    (void)decide_query;
    if (!caps || gst_base_transform_is_passthrough(trans) || gst_query_get_n_allocation_pools(q) > 0) return ok;
    GstCapsFeatures* features = gst_caps_get_features(caps, 0);
    if (features && !gst_caps_features_is_equal(features, GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY)) return ok;
    GstVideoInfo info;
    if (!gst_video_info_from_caps(&info, caps)) return ok;
    State& s = state_of(GST_VFILTER(trans));
    std::shared_ptr<PageLockedStore> store;
    guint frames = 0;
    {
        std::lock_guard<std::mutex> lock(s.engine_mutex);
        if (!s.engine || !in_flight_path(trans, s)) return ok;
        store = s.engine->page_locked();
        frames = static_cast<guint>(s.engine->frames_in_flight());
    }
    if (!store) return ok;
    if (!s.page_locked_allocator || s.page_locked_store != store.get()) {
        if (s.page_locked_allocator) gst_object_unref(s.page_locked_allocator);
        s.page_locked_allocator = page_locked_allocator_new(store);
        s.page_locked_store = store.get();
    }
    // The buffers in flight and one more for the source to fill meanwhile.
    GstBufferPool* pool = page_locked_pool_new(s.page_locked_allocator, caps, static_cast<guint>(GST_VIDEO_INFO_SIZE(&info)), frames + 1);
    if (!pool) return ok;
    gst_query_add_allocation_pool(q, pool, static_cast<guint>(GST_VIDEO_INFO_SIZE(&info)), frames + 1, 0);
    gst_object_unref(pool);
    gst_query_add_allocation_param(q, s.page_locked_allocator, nullptr);
    if (!gst_query_find_allocation_meta(q, GST_VIDEO_META_API_TYPE, nullptr)) gst_query_add_allocation_meta(q, GST_VIDEO_META_API_TYPE, nullptr);
    return TRUE;
}

}  // namespace

void install_frames_in_flight(GstBaseTransformClass* transform_class) {
    previous = {transform_class->submit_input_buffer, transform_class->generate_output, transform_class->sink_event,
                transform_class->query, transform_class->propose_allocation};
    transform_class->submit_input_buffer = submit_input_buffer;
    transform_class->generate_output = generate_output;
    transform_class->sink_event = sink_event;
    transform_class->query = query;
    transform_class->propose_allocation = propose_allocation;
}

void finish_in_flight(GstVfilter* self) {
    State& s = state_of(self);
    if (s.engine && !s.in_flight.empty()) s.in_flight.finish(*s.engine);
}

void drop_in_flight(GstVfilter* self) {
    State& s = state_of(self);
    s.in_flight.drop(nullptr);
    if (s.page_locked_allocator) gst_object_unref(s.page_locked_allocator);
    s.page_locked_allocator = nullptr;
    s.page_locked_store = nullptr;
}

void latency_may_have_changed(GstVfilter* self) {
    gst_element_post_message(GST_ELEMENT(self), gst_message_new_latency(GST_OBJECT(self)));
}

}  // namespace vf::element
