#include "pipeline/cpu_frame_engine.hpp"

#include "common/thread_name.hpp"

namespace vf {

CpuFrameEngine::CpuFrameEngine(std::vector<FilterPlan> chain, int slots, std::function<void(int64_t)> before_frame,
                               std::function<void(int64_t)> on_submit)
    : chain_(std::move(chain)), before_frame_(std::move(before_frame)), on_submit_(std::move(on_submit)) {
    if (slots < 1 || slots > 64) fail(ErrorCategory::Usage, "engine slots must be in 1..64");
    for (int i = 0; i < slots; ++i) {
        slots_.push_back(std::make_unique<Slot>());
        Slot& s = *slots_.back();
        s.worker = std::thread([this, &s] {
            name_this_thread("vf-cpu-filter");
            work(s);
        });
    }
}

CpuFrameEngine::~CpuFrameEngine() {
    for (auto& s : slots_) {
        {
            std::lock_guard<std::mutex> lock(s->mutex);
            s->quit = true;
        }
        s->cv.notify_all();
    }
    for (auto& s : slots_) s->worker.join();  // a frame being filtered finishes first
}

void CpuFrameEngine::work(Slot& s) {
    for (;;) {
        std::unique_lock<std::mutex> lock(s.mutex);
        s.cv.wait(lock, [&] { return s.has_work || s.quit; });
        if (s.quit) return;
        AvFramePtr in = std::move(s.in);
        AvFramePtr out = std::move(s.out);
        AvFramePtr spare = std::move(s.spare);
        const int64_t index = s.index;
        const FilterMask applies = std::move(s.applies);
        lock.unlock();
        std::exception_ptr error;
        try {
            if (before_frame_) before_frame_(index);
            // Ping-pong between `out` and `spare` (as the GPU slots do between their two images),
            // ordered so the last filter writes `out`; the input is only read.
            const AVFrame* src = in.get();
            const size_t n = chain_.size();
            const PlaneOp copy;
            for (size_t f = 0; f < n; ++f) {
                AVFrame* dst = (n - 1 - f) % 2 == 0 ? out.get() : spare.get();
                const std::vector<PlaneView> from = channel_views(src), to = channel_views(dst);
                // A filter enable= leaves out copies its input, so the ping-pong stays the same.
                const bool on = applies.empty() || applies[f];
                for (size_t c = 0; c < from.size(); ++c) s.backend.apply(on ? chain_[f].ops[c] : copy, from[c], to[c]);
                src = dst;
            }
            copy_alpha_plane(in.get(), out.get());  // alpha is no channel: it passes through
        } catch (...) {
            error = std::current_exception();
        }
        lock.lock();
        s.out = std::move(out);
        s.error = std::move(error);  // moved: the taker alone releases the exception (its refcount is invisible to TSan)
        s.has_work = false;
        s.done = true;
        lock.unlock();
        s.cv.notify_all();
    }
}

void CpuFrameEngine::submit(AvFramePtr in, FramePool& pool, const FilterMask& applies) {
    if (in_flight() >= capacity()) fail(ErrorCategory::Internal, "frame engine: submit with every slot busy");
    if (on_submit_) on_submit_(submitted_);
    Slot& s = *slots_[static_cast<size_t>(submitted_ % capacity())];
    AvFramePtr out = pool.get();
    VF_AV_CHECK(av_frame_copy_props(out.get(), in.get()), ErrorCategory::Internal, "copying frame properties");
    AvFramePtr spare = chain_.size() > 1 ? pool.get() : nullptr;  // intermediate image of a chain
    {
        std::lock_guard<std::mutex> lock(s.mutex);
        s.in = std::move(in);
        s.out = std::move(out);
        s.spare = std::move(spare);
        s.index = submitted_;
        s.applies = applies;
        s.done = false;
        s.error = nullptr;
        s.has_work = true;
    }
    s.cv.notify_all();
    ++submitted_;
    max_in_flight_ = std::max(max_in_flight_, in_flight());
}

void CpuFrameEngine::set_chain(std::vector<FilterPlan> chain) {
    if (in_flight() != 0) fail(ErrorCategory::Internal, "frame engine: set_chain with frames in flight");
    // The workers read chain_ only while they hold a frame; none does now, and the next frame
    // reaches them through their slot's mutex.
    chain_ = std::move(chain);
}

AvFramePtr CpuFrameEngine::take(bool wait) {
    if (in_flight() == 0) return nullptr;
    Slot& s = *slots_[static_cast<size_t>(taken_ % capacity())];
    std::unique_lock<std::mutex> lock(s.mutex);
    if (!wait && !s.done) return nullptr;
    s.cv.wait(lock, [&] { return s.done; });
    s.done = false;
    ++taken_;
    if (s.error) {
        std::exception_ptr e = s.error;
        s.error = nullptr;
        s.out.reset();
        std::rethrow_exception(e);
    }
    return std::move(s.out);
}

}  // namespace vf
