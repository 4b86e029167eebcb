// The options of one stream, declared once: the single-stream command line (app/cli.cpp) and
// `vfilter serve`'s stream entries (YAML or API JSON, app/serve_config.cpp) both read them through
// these declarations, so a field of a stream means exactly what the option of the same name does.
#pragma once

#include <map>
#include <string>

#include "config/options.hpp"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace vf {

// Choice words as typed, turned into RunOptions' enums by finish_stream_options().
struct StreamOptionWords {
    std::string device = "auto", kernel = "auto", hwdec = "auto", on_overload = "auto", fragmented = "auto";
    std::string compat = "vfilter";
    double crf = -1;
    CLI::Option* preset = nullptr;
};

// Declares every per-stream option (input, filter, output, encoding, live input and output, GPU).
void add_stream_options(CLI::App& app, RunOptions& o, StreamOptionWords& w);
// Fills RunOptions' enums and derived defaults from the words; "" or the reason it cannot.
std::string finish_stream_options(const StreamOptionWords& w, RunOptions& o);

// One stream's options from named fields ("input", "filter", "crf", "low-latency", ...: the long
// option names without dashes; booleans as true/false). Throws Error(Usage) naming the field.
RunOptions stream_options_from_fields(const std::map<std::string, std::string>& fields);

}  // namespace vf
