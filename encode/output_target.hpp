// Where an output goes and what may be written there: a file, stdout or a network URL; the
// names of segment series; and the checks that keep an output from overwriting the input or an
// existing file.
#pragma once

#include <string>

#include "encode/output_options.hpp"

namespace vf {

enum class OutputKind { File, Network, Stdout };
// "-" is stdout; rtsp, rtmp(s), srt, udp, tcp URLs are network outputs; anything else is a file.
// Throws Usage for a URL scheme vfilter cannot publish to.
OutputKind output_kind(const std::string& path);

// The file name of each segment: `path` itself when it holds a %d (or strftime) field, else
// "name-%05d.ext".
std::string segment_pattern(const std::string& path);

// Whether a segment name holds strftime fields (%Y, %H, ...): segments are then named by the wall
// clock when each starts, to the second.
bool dated_pattern(const std::string& pattern);

// How long an SRT output stays connected after its last packet: SRT's live mode discards, once
// the sender closes, whatever its receiver has not yet handed to the application (a packet is
// handed over only after the latency, and later if the receiver is busy). 1 s plus the latency
// the URL asks for (latency=, peerlatency=, rcvlatency=, in microseconds); 0 for other outputs.
double srt_close_delay_s(const std::string& url);

// Refuses an output that is the input, or that exists without -y. Throws Error(Output).
void check_output_path(const OutputOptions& options);

}  // namespace vf
