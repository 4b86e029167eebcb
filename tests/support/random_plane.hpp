// Test planes: owned storage with padding, poisoning and fixed-seed random fill.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "common/plane.hpp"

namespace vf::test {

// Owns the bytes of one channel. layout "planar" (step 1), "semi" (interleaved pair, the channel
// at offset 0 or 1 as in nv12/p010), with pitch padding so row overruns are visible.
class TestPlane {
public:
    // aligned: pitch a multiple of 64 bytes (the usual frame layout); otherwise an odd padding
    // that catches pitch mistakes.
    TestPlane(int width, int height, int depth, int step = 1, int offset = 0, int shift = 0, bool aligned = false);
    PlaneView view() const { return view_; }
    void fill_random(std::mt19937& rng);
    void poison();                       // every byte, padding included, to a fresh poison_byte()
    bool padding_intact() const;         // bytes outside the channel still hold the poison
    int at(int x, int y) const { return view_.read(x, y); }
    // The whole allocation (padding included), to mirror it in device memory byte for byte.
    uint8_t* bytes() { return bytes_.data(); }
    size_t size_bytes() const { return bytes_.size(); }
    // The same channel layout over another copy of the allocation (e.g. on the GPU).
    PlaneView view_at(uint8_t* base) const {
        PlaneView v = view_;
        v.data = base + (view_.data - bytes_.data());
        return v;
    }

private:
    std::vector<uint8_t> bytes_;
    PlaneView view_;
    int offset_;
    uint8_t poison_;
};

// A poison byte that changes from call to call and from run to run, so that a pixel nobody wrote
// (or a read of memory nobody wrote) cannot match the reference by luck twice. The sequence comes
// from a seed drawn once per process and printed to stderr; VF_TEST_POISON_SEED=N repeats a run.
uint8_t poison_byte();

// Counts pixels that differ; fills `first` with a description of the first difference.
long count_differences(const TestPlane& a, const TestPlane& b, std::string* first = nullptr);

}  // namespace vf::test
