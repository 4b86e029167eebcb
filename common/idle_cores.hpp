// The machine's idle cores, measured: how many of its cores did nothing (idle or waiting for I/O)
// between two reads of /proc/stat, whichever process kept the others busy. serve gives its CPU
// decoders the room this leaves (app/serve/decoder_balance.hpp).
#pragma once

#include <cstdint>
#include <optional>

namespace vf {

class IdleCoresMeter {
public:
    IdleCoresMeter();
    // The idle cores since the last call (or since it was made); nullopt where /proc/stat cannot
    // be read (not Linux) or no time has passed.
    std::optional<double> sample();

private:
    struct Ticks {
        uint64_t idle = 0, total = 0;
    };
    static std::optional<Ticks> read();
    std::optional<Ticks> last_;
};

}  // namespace vf
