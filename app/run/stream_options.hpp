// The options of one stream, declared once in a table (app/run/stream_options.cpp): each names its
// command-line spelling, its help, and how a value is checked and stored in the typed RunOptions.
// The single-stream command line (app/cli/cli.cpp) declares them to CLI11 from that table, and
// `vfilter serve`'s stream entries (YAML or API JSON, app/serve/serve_config.cpp) are read through the
// same table field by field, so a field of a stream means exactly what the option of the same name
// does, and no value is turned back into an argument and parsed again.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "config/options.hpp"

namespace CLI {
class App;
}  // namespace CLI

namespace vf {

// What a field's value is: YAML scalars are read as it (yaml-cpp's own conversions), JSON values
// and Python objects must be it; the command line gives text, which is read as the option reads it.
enum class FieldType { Text, Integer, Number, Boolean };

// One field's value as its door read it: text (the command line, a YAML or JSON string, a Python
// str), a number (a YAML number scalar, a JSON number, a Python int or float) or true/false.
// `text` is the value as written (a number's or a boolean's too): what entries are compared and
// fingerprinted by.
struct FieldValue {
    enum class Kind { Text, Number, Boolean };
    Kind kind = Kind::Text;
    std::string text;
    double number = 0;
    bool boolean = false;

    FieldValue() = default;
    FieldValue(std::string t) : text(std::move(t)) {}
    FieldValue(const char* t) : text(t) {}
    static FieldValue of_number(double v, std::string written) {
        FieldValue f(std::move(written));
        f.kind = Kind::Number;
        f.number = v;
        return f;
    }
    static FieldValue of_boolean(bool v, std::string written) {
        FieldValue f(std::move(written));
        f.kind = Kind::Boolean;
        f.boolean = v;
        return f;
    }
    bool operator==(const FieldValue& o) const { return kind == o.kind && text == o.text; }
    bool operator!=(const FieldValue& o) const { return !(*this == o); }
};

// The words a true/false field takes as text, each list of its own spelling.
struct BooleanWords {
    std::vector<std::string_view> yes;
    std::vector<std::string_view> no;
};
// true/yes/on and false/no/off: YAML's own words, as serve's watch and clip fields take them.
const BooleanWords& yaml_boolean_words();
// Those and 1/0: the option table's switches, as the command line has always taken them.
const BooleanWords& switch_boolean_words();

// A true/false field's value: true/false as given, or one of `words` as text; nothing for anything
// else (the caller refuses it, naming the field).
std::optional<bool> field_boolean(const FieldValue& v, const BooleanWords& words);

// A number field's value: a number as given, or text read whole as one (as the command line and
// quoted YAML give it); nothing for true/false, other text, or a value that is not finite.
std::optional<double> field_number(const FieldValue& v);

// A stream entry's fields by name, typed as their doors read them (serve's YAML, the API's JSON,
// Python's arguments).
using StreamFields = std::map<std::string, FieldValue>;

// Who may set a field of a stream. The operator (serve's config file, the command line) sets any;
// an API client holding the admin token sets the Admin ones, within what the operator allowed
// clients (app/serve/client_access.hpp: inputs, outputs, kernel files); a viewer sets none.
enum class FieldSetter { Admin, Operator };

// The setter a field needs (by its name in serve's entries).
FieldSetter field_setter(const std::string& field);

// The type a field declares (Text for a name that is not a field: refused when read).
FieldType field_type(const std::string& field);

// Every stream field by its first name ("output" for out/output), with who may set it: what the
// API's description (app/serve/web/openapi.json) is checked against.
std::vector<std::pair<std::string, FieldSetter>> stream_fields();

// Declares every per-stream option (input, filter, output, encoding, live input and output, GPU)
// on `app`; a value given is checked and stored in `o` as the command line is parsed (a bad one is
// a CLI11 error naming the option).
void add_stream_options(CLI::App& app, RunOptions& o);

// One stream's options from named fields ("input", "filter", "crf", "low-latency", ...: the long
// option names without dashes), each checked as the type it declares (a number or true/false given
// for text is refused, and so is text that is not a number for a number), over RunOptions'
// defaults; VFILTER_DEVICE and VFILTER_COMPAT give the device and compat of entries that do not.
// Throws Error(Usage) naming the field and the type it wants, or, for an option of the process
// (stats-json, metrics-port, min-free, the log's: app/run/process_options.hpp), where it is set.
// The watch and clip fields (app/run/watch_fields.hpp, clip_fields.hpp) are left to serve's reader where `serve` says so, and
// refused otherwise (a single run does not watch itself).
RunOptions stream_options_from_fields(const StreamFields& fields, bool serve = false);

}  // namespace vf
