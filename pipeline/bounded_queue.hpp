// A blocking FIFO of fixed capacity between two pipeline stages. A full queue blocks the
// producer (backpressure), so memory never grows with stream length. close() ends the stream
// normally (the consumer drains what is left); abort() wakes everyone at once after an error.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>

namespace vf {

template <typename T>
class BoundedQueue {
public:
    explicit BoundedQueue(size_t capacity) : capacity_(capacity ? capacity : 1) {}

    // Returns false when the queue was aborted (the item is dropped).
    bool push(T item) {
        std::unique_lock<std::mutex> lock(mutex_);
        not_full_.wait(lock, [&] { return aborted_ || items_.size() < capacity_; });
        if (aborted_ || closed_) return false;
        items_.push_back(std::move(item));
        not_empty_.notify_one();
        return true;
    }

    enum class TryPush { Pushed, Full, Ended };
    // Never blocks. Full or Ended (closed, aborted): the item stays with the caller.
    TryPush try_push(T& item) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (aborted_ || closed_) return TryPush::Ended;
        if (items_.size() >= capacity_) return TryPush::Full;
        items_.push_back(std::move(item));
        not_empty_.notify_one();
        return TryPush::Pushed;
    }

    // Blocks until an item is available; nullopt at the end of the stream or after abort().
    std::optional<T> pop() {
        std::unique_lock<std::mutex> lock(mutex_);
        not_empty_.wait(lock, [&] { return aborted_ || closed_ || !items_.empty(); });
        if (aborted_ || items_.empty()) return std::nullopt;
        T item = std::move(items_.front());
        items_.pop_front();
        not_full_.notify_one();
        return item;
    }

    enum class Popped { Item, Timeout, Ended };
    // pop() that gives up after `wait` (a consumer that must look at something else meanwhile).
    template <class Rep, class Period>
    Popped pop_for(std::chrono::duration<Rep, Period> wait, T* out) {
        std::unique_lock<std::mutex> lock(mutex_);
        if (!not_empty_.wait_for(lock, wait, [&] { return aborted_ || closed_ || !items_.empty(); })) return Popped::Timeout;
        if (aborted_ || items_.empty()) return Popped::Ended;
        *out = std::move(items_.front());
        items_.pop_front();
        not_full_.notify_one();
        return Popped::Item;
    }
    void close() {
        std::lock_guard<std::mutex> lock(mutex_);
        closed_ = true;
        not_empty_.notify_all();
        not_full_.notify_all();
    }

    void abort() {
        std::lock_guard<std::mutex> lock(mutex_);
        aborted_ = true;
        items_.clear();
        not_empty_.notify_all();
        not_full_.notify_all();
    }

    size_t size() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return items_.size();
    }
    size_t capacity() const { return capacity_; }

private:
    const size_t capacity_;
    mutable std::mutex mutex_;
    std::condition_variable not_empty_, not_full_;
    std::deque<T> items_;
    bool closed_ = false, aborted_ = false;
};

}  // namespace vf
