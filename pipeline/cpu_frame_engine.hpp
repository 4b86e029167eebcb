// The CPU stand-in for the GPU stage: the same FrameEngine contract, with one worker thread per
// slot where the GPU has one CUDA stream per slot. Frames finish in any order (a test hook can
// delay or fail any of them) and still leave in submission order. Used by the tests of the
// ordering, backpressure and shutdown logic, which therefore run in CI without a GPU.
#pragma once

#include <condition_variable>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "kernels/cpu_backend.hpp"
#include "kernels/plan.hpp"
#include "pipeline/frame_engine.hpp"

namespace vf {

class CpuFrameEngine : public FrameEngine {
public:
    // before_frame(i) runs on the worker before frame i (0-based, submission order) is filtered;
    // on_submit(i) runs in submit() before frame i starts (where the GPU would allocate). Tests
    // sleep or throw there.
    CpuFrameEngine(std::vector<FilterPlan> chain, int slots, std::function<void(int64_t)> before_frame = nullptr,
                   std::function<void(int64_t)> on_submit = nullptr);
    ~CpuFrameEngine() override;

    int capacity() const override { return static_cast<int>(slots_.size()); }
    int in_flight() const override { return static_cast<int>(submitted_ - taken_); }
    using FrameEngine::submit;
    void submit(AvFramePtr in, FramePool& pool, const FilterMask& applies) override;
    AvFramePtr take(bool wait) override;
    void set_chain(std::vector<FilterPlan> chain) override;
    int max_in_flight() const { return max_in_flight_; }

private:
    struct Slot {
        std::mutex mutex;
        std::condition_variable cv;
        bool has_work = false, done = false, quit = false;
        int64_t index = 0;
        FilterMask applies;
        AvFramePtr in, out, spare;
        std::exception_ptr error;
        CpuBackend backend{1};  // per slot: a backend's scratch is not shared between threads
        std::thread worker;
    };
    void work(Slot& s);

    std::vector<FilterPlan> chain_;
    std::function<void(int64_t)> before_frame_, on_submit_;
    std::vector<std::unique_ptr<Slot>> slots_;
    int64_t submitted_ = 0, taken_ = 0;
    int max_in_flight_ = 0;
};

}  // namespace vf
