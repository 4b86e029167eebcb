// Amounts written by people in options and config files: an age (7d, 12h, 30m, 90s), a size
// (500G, 40M; K, M, G and T are powers of 1024, as df -h shows them) and a floor of free disk
// space (5% of the filesystem, or a size). Each parser returns false for text it cannot read, so
// the caller names the option in its error.
#pragma once

#include <cstdint>
#include <string>

namespace vf {

// Seconds; a bare number is seconds. Suffixes s, m, h, d, w. Must be > 0.
bool parse_age_s(const std::string& text, double* seconds);
// Bytes; a bare number is bytes. Suffixes K, M, G, T (KiB ...), optionally followed by B or iB.
// Must be > 0.
bool parse_bytes(const std::string& text, int64_t* bytes);

// Free space a disk keeps: a share of the filesystem's size or a number of bytes.
struct FreeSpaceFloor {
    double fraction = 0;  // 0.05 for "5%"
    int64_t bytes = 0;    // for a size
    bool set() const { return fraction > 0 || bytes > 0; }
    int64_t bytes_of(int64_t filesystem_bytes) const {
        return bytes > 0 ? bytes : static_cast<int64_t>(fraction * static_cast<double>(filesystem_bytes));
    }
};
// "5%" (0 < p < 100) or a size as parse_bytes reads it.
bool parse_free_space_floor(const std::string& text, FreeSpaceFloor* floor);

// For messages and logs: 1.5 GiB, 40.0 MiB, 512 B.
std::string format_bytes(int64_t bytes);

}  // namespace vf
