// The options of one stream, declared once in a table (app/run/stream_options.cpp): each names its
// command-line spelling, its help, and how a value is checked and stored in the typed RunOptions.
// The single-stream command line (app/cli/cli.cpp) declares them to CLI11 from that table, and
// `vfilter serve`'s stream entries (YAML or API JSON, app/serve/serve_config.cpp) are read through the
// same table field by field, so a field of a stream means exactly what the option of the same name
// does, and no value is turned back into an argument and parsed again.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "config/options.hpp"

namespace CLI {
class App;
}  // namespace CLI

namespace vf {

// Who may set a field of a stream. The operator (serve's config file, the command line) sets any;
// an API client holding the admin token sets the Admin ones, within what the operator allowed
// clients (app/serve/client_access.hpp: inputs, outputs, kernel files); a viewer sets none.
enum class FieldSetter { Admin, Operator };

// The setter a field needs (by its name in serve's entries).
FieldSetter field_setter(const std::string& field);

// Every stream field by its first name ("output" for out/output), with who may set it: what the
// API's description (app/serve/web/openapi.json) is checked against.
std::vector<std::pair<std::string, FieldSetter>> stream_fields();

// Declares every per-stream option (input, filter, output, encoding, live input and output, GPU)
// on `app`; a value given is checked and stored in `o` as the command line is parsed (a bad one is
// a CLI11 error naming the option).
void add_stream_options(CLI::App& app, RunOptions& o);

// One stream's options from named fields ("input", "filter", "crf", "low-latency", ...: the long
// option names without dashes; booleans as true/false), over RunOptions' defaults; VFILTER_DEVICE
// and VFILTER_COMPAT give the device and compat of entries that do not. Throws Error(Usage)
// naming the field.
RunOptions stream_options_from_fields(const std::map<std::string, std::string>& fields);

}  // namespace vf
