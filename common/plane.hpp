// A view of one image channel: where its samples are, how far apart, and how they are stored.
// Covers planar (yuv420p: step 1), semi-planar (nv12's U and V: step 2, offset 0/1)
// and MSB-aligned high depth (p010: shift 6) without copying anything.
#pragma once

#include <cstddef>
#include <cstdint>

namespace vf {

struct PlaneView {
    uint8_t* data = nullptr;   // first sample of this channel
    std::ptrdiff_t pitch = 0;  // bytes between rows
    int width = 0;
    int height = 0;
    int step = 1;              // samples (not bytes) between horizontally adjacent pixels
    int bytes_per_sample = 1;  // 1 for 8-bit, 2 for 9..16-bit
    int depth = 8;             // significant bits
    int shift = 0;             // value = stored >> shift (p010 stores 10 bits in the high bits)

    int peak() const { return (1 << depth) - 1; }

    int read(int x, int y) const {
        const uint8_t* row = data + y * pitch;
        if (bytes_per_sample == 1) return row[static_cast<std::ptrdiff_t>(x) * step];
        return reinterpret_cast<const uint16_t*>(row)[static_cast<std::ptrdiff_t>(x) * step] >> shift;
    }
    void write(int x, int y, int v) const {
        uint8_t* row = data + y * pitch;
        if (bytes_per_sample == 1)
            row[static_cast<std::ptrdiff_t>(x) * step] = static_cast<uint8_t>(v);
        else
            reinterpret_cast<uint16_t*>(row)[static_cast<std::ptrdiff_t>(x) * step] =
                static_cast<uint16_t>(v << shift);
    }
};

}  // namespace vf
