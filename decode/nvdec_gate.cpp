#include "decode/nvdec_gate.hpp"

namespace vf {

NvdecGate::NvdecGate(int slots) : slots_(slots > 0 ? slots : 1), free_slots_(slots_) {}

int64_t NvdecGate::waits() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return waits_;
}

void NvdecGate::enter(bool creating) {
    std::unique_lock<std::mutex> lock(mutex_);
    std::deque<Waiter*>& queue = creating ? create_queue_ : slot_queue_;
    const bool open = creating ? !creator_inside_ : free_slots_ > 0;
    if (open && queue.empty()) {
        if (creating) creator_inside_ = true;
        else --free_slots_;
        return;
    }
    ++waits_;
    Waiter me;
    queue.push_back(&me);
    me.cv.wait(lock, [&] { return me.admitted; });  // leave() handed its turn over
}

void NvdecGate::leave(bool creating) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::deque<Waiter*>& queue = creating ? create_queue_ : slot_queue_;
    if (queue.empty()) {
        if (creating) creator_inside_ = false;
        else ++free_slots_;
        return;
    }
    // The turn passes straight to the longest waiter: counts stay as they are.
    Waiter* next = queue.front();
    queue.pop_front();
    next->admitted = true;
    next->cv.notify_one();
}

NvdecGate::Pass::Pass(NvdecGate* gate, bool creating) : gate_(gate), creating_(creating) {
    if (gate_) gate_->enter(creating_);
}

NvdecGate::Pass::~Pass() {
    if (gate_) gate_->leave(creating_);
}

}  // namespace vf
