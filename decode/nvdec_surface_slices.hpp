// Which of an NVDEC decoder's decode surfaces each stream sharing it owns: a run of consecutive
// surfaces a stream, first free run first. A stream's parser numbers its pictures 0..count-1;
// the decoder sees them as first..first+count-1 (decode/nvdec_shared_decoder.hpp). Not thread
// safe: its owner locks.
#pragma once

#include <cstddef>
#include <vector>

namespace vf {

class NvdecSurfaceSlices {
public:
    explicit NvdecSurfaceSlices(int surfaces) : used_(static_cast<size_t>(surfaces > 0 ? surfaces : 0), false) {}

    // The first surface of `count` free ones in a row, now taken; -1 when no run is that long.
    int take(int count) {
        if (count <= 0) return -1;
        int run = 0;
        for (int i = 0; i < size(); ++i) {
            run = used_[static_cast<size_t>(i)] ? 0 : run + 1;
            if (run == count) {
                const int first = i - count + 1;
                for (int k = first; k <= i; ++k) used_[static_cast<size_t>(k)] = true;
                ++slices_;
                return first;
            }
        }
        return -1;
    }
    // Gives back what take() returned.
    void give_back(int first, int count) {
        for (int k = first; k < first + count && k < size(); ++k)
            if (k >= 0) used_[static_cast<size_t>(k)] = false;
        if (slices_ > 0) --slices_;
    }
    int size() const { return static_cast<int>(used_.size()); }
    int slices() const { return slices_; }  // taken and not given back
    // How many more slices of `count` take() would give, one after another.
    int room_for(int count) const {
        if (count <= 0) return 0;
        int n = 0, run = 0;
        for (const bool u : used_) {
            run = u ? 0 : run + 1;
            if (run == count) ++n, run = 0;
        }
        return n;
    }
    int free() const {
        int n = 0;
        for (const bool u : used_) n += u ? 0 : 1;
        return n;
    }

private:
    std::vector<bool> used_;
    int slices_ = 0;
};

}  // namespace vf
