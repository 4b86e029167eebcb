// The memory the streams' clips may hold for their pre-roll, for the whole process (serve:
// clips-memory): each stream with clips reserves its packet ring's bound when it starts
// (ClipRecorder::kRingBytes), so that many cameras with clips cannot together take more than the
// operator gave, whatever their bitrates. A stream whose reservation does not fit runs and
// records without clips (one with clips.only, which would record nothing, fails), and says why.
// Owned by StreamService and lent to every stream; a reservation is held until its recorder ended.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>

namespace vf {

class ClipMemoryBudget {
public:
    explicit ClipMemoryBudget(int64_t bytes) : state_(std::make_shared<State>()) { state_->free = bytes, total_ = bytes; }
    // `bytes` of it, held by *reservation's copies and given back when the last goes (the count
    // outlives the budget); false when less than that is left.
    bool take(int64_t bytes, std::shared_ptr<void>* reservation) {
        std::lock_guard<std::mutex> lock(state_->mutex);
        if (state_->free < bytes) return false;
        state_->free -= bytes;
        *reservation = std::shared_ptr<void>(state_.get(), [state = state_, bytes](void*) {
            std::lock_guard<std::mutex> back(state->mutex);
            state->free += bytes;
        });
        return true;
    }
    int64_t total() const { return total_; }
    int64_t reserved() const {
        std::lock_guard<std::mutex> lock(state_->mutex);
        return total_ - state_->free;
    }

private:
    struct State {
        std::mutex mutex;
        int64_t free = 0;
    };
    std::shared_ptr<State> state_;
    int64_t total_ = 0;
};

}  // namespace vf
