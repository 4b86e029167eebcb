// The preview encoders (live video at a width: app/serve/preview/live_video.hpp) that one serve process runs at
// once, whatever the number of streams, viewers and connections: each costs a share of a core, so
// viewers cannot take the cores the cameras need (serve: max-preview-encoders). Owned by StreamService
// and lent to every stream's live video; a place is held while its encoder runs.
#pragma once

#include <atomic>
#include <memory>

namespace vf {

class EncoderBudget {
public:
    explicit EncoderBudget(int places) : free_(std::make_shared<std::atomic<int>>(places)), places_(places) {}
    // A place, held by *place's copies and given back when the last goes (the counter outlives
    // the budget); false when every place is taken.
    bool take(std::shared_ptr<void>* place) {
        int free = free_->load();
        while (free > 0 && !free_->compare_exchange_weak(free, free - 1)) {
        }
        if (free <= 0) return false;
        auto counter = free_;
        *place = std::shared_ptr<void>(counter.get(), [counter](void*) { ++*counter; });
        return true;
    }
    int places() const { return places_; }
    int in_use() const { return places_ - free_->load(); }

private:
    std::shared_ptr<std::atomic<int>> free_;
    int places_;
};

}  // namespace vf
