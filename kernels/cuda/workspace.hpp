// Scratch of the launches on one CUDA stream: what a row needs per launch that launches running
// on other streams at the same time must not share (the FFT's plans and work buffers). Owned by
// whoever owns the stream: a slot of the GPU stage, a stream of the shared stage, a benchmark.
// Made on first use, per kind of scratch and size; the last two sizes of each kind are kept, so a
// stream whose frames change size does not keep every size it has seen.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace vf::cuda {

class Workspace {
public:
    // `stream`: the stream the launches using this scratch run on (waited for before a size is
    // dropped, and before the scratch is freed).
    explicit Workspace(cudaStream_t stream) : stream_(stream) {}
    ~Workspace() {
        if (!entries_.empty()) cudaStreamSynchronize(stream_);
    }
    Workspace(const Workspace&) = delete;
    Workspace& operator=(const Workspace&) = delete;

    // The scratch of `kind` (a row's own tag) for `key` (its size), made by make() ->
    // std::shared_ptr<T> the first time. Not thread-safe: one stream, one thread at a time.
    template <typename T, typename Make>
    T& get(int kind, uint64_t key, Make&& make) {
        for (Entry& e : entries_)
            if (e.kind == kind && e.key == key) return *static_cast<T*>(e.value.get());
        int same_kind = 0;
        for (const Entry& e : entries_) same_kind += e.kind == kind;
        if (same_kind >= kKeptPerKind)
            for (auto it = entries_.begin(); it != entries_.end(); ++it)
                if (it->kind == kind) {
                    cudaStreamSynchronize(stream_);  // launches still reading it
                    entries_.erase(it);              // the oldest of its kind
                    break;
                }
        std::shared_ptr<T> made = make();
        T& ref = *made;
        entries_.push_back(Entry{kind, key, std::move(made)});
        return ref;
    }

    cudaStream_t stream() const { return stream_; }

private:
    cudaStream_t stream_;
    static constexpr int kKeptPerKind = 2;
    struct Entry {
        int kind;
        uint64_t key;
        std::shared_ptr<void> value;  // carries T's destructor
    };
    std::vector<Entry> entries_;
};

}  // namespace vf::cuda
