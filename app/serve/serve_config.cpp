#include "app/serve/serve_config.hpp"

#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "app/run/run_parts.hpp"
#include "app/run/stream_options.hpp"
#include "common/error.hpp"
#include "common/redact.hpp"
#include "config/filter_registry.hpp"
#include "decode/pattern_url.hpp"
#include "encode/output_target.hpp"
#include "encode/video_encoder.hpp"

namespace vf {
namespace {

std::string at(const std::string& file, const YAML::Mark& m) {
    if (m.is_null()) return file + ": ";
    return file + ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1) + ": ";
}

// One field's YAML scalar as the type the field declares, by yaml-cpp's own conversions: a plain
// 23 for crf is a number, a plain true for realtime a boolean. Quoted scalars, values naming
// ${VARIABLES} and scalars that are not of the type stay text, which the option reads as the
// command line does (and refuses, naming the type it wants).
FieldValue read_field(const std::string& key, const YAML::Node& value) {
    const std::string& written = value.Scalar();
    if (value.Tag() == "!" || written.find("${") != std::string::npos) return FieldValue(expand_environment(written));
    switch (field_type(key)) {
    case FieldType::Integer:
    case FieldType::Number: {
        double number = 0;
        if (YAML::convert<double>::decode(value, number)) return FieldValue::of_number(number, written);
        break;
    }
    case FieldType::Boolean: {
        bool boolean = false;
        if (YAML::convert<bool>::decode(value, boolean)) return FieldValue::of_boolean(boolean, written);
        break;
    }
    case FieldType::Text:
        break;
    }
    return FieldValue(written);
}

// A block of fields (the defaults, or one stream), typed.
StreamFields read_fields(const YAML::Node& node, const std::string& file, const std::string& what) {
    if (!node.IsMap()) fail(ErrorCategory::Usage, at(file, node.Mark()) + what + " must be a mapping of field: value");
    StreamFields fields;
    for (const auto& kv : node) {
        const std::string key = kv.first.as<std::string>();
        if (!kv.second.IsScalar())
            fail(ErrorCategory::Usage, at(file, kv.second.Mark()) + what + ", field '" + key + "': expected a single value");
        if (fields.count(key)) fail(ErrorCategory::Usage, at(file, kv.first.Mark()) + what + ": field '" + key + "' given twice");
        try {
            fields[key] = read_field(key, kv.second);
        } catch (const Error& e) {
            fail(ErrorCategory::Usage, at(file, kv.second.Mark()) + what + ", field '" + key + "': " + e.what());
        }
    }
    return fields;
}

// The entry's name, which must be text.
std::string take_name(StreamFields& fields, const std::string& missing) {
    const auto name = fields.find("name");
    if (name == fields.end()) fail(ErrorCategory::Usage, missing);
    if (name->second.kind != FieldValue::Kind::Text) fail(ErrorCategory::Usage, "field 'name': expected text");
    const std::string n = name->second.text;
    fields.erase(name);
    return n;
}

}  // namespace

bool valid_stream_name(const std::string& name) {
    if (name.empty() || name.size() > 64) return false;
    for (char c : name)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') return false;
    return true;
}

std::string expand_environment(const std::string& value) {
    std::string out;
    for (size_t i = 0; i < value.size();) {
        if (value.compare(i, 2, "${") == 0) {
            const size_t end = value.find('}', i + 2);
            if (end == std::string::npos) fail(ErrorCategory::Usage, "'${' without its closing '}'");
            const std::string var = value.substr(i + 2, end - i - 2);
            const char* v = std::getenv(var.c_str());
            if (!v) fail(ErrorCategory::Usage, "environment variable " + var + " is not set");
            out += v;
            i = end + 1;
        } else {
            out += value[i++];
        }
    }
    return out;
}

namespace {

// Shard k's score for a stream: FNV-1a over "name/k", then a 64-bit finaliser.
uint64_t shard_score(const std::string& name, int k) {
    uint64_t h = 1469598103934665603ull;
    for (const char c : name + "/" + std::to_string(k)) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

}  // namespace

int shard_of(const std::string& name, int count) {
    int best = 0;
    uint64_t best_score = 0;
    for (int k = 0; k < count; ++k) {
        const uint64_t h = shard_score(name, k);
        if (k == 0 || h > best_score) best = k, best_score = h;
    }
    return best;
}

int owner_among(const std::string& name, const std::vector<int>& alive) {
    int best = -1;
    uint64_t best_score = 0;
    for (const int k : alive) {
        const uint64_t h = shard_score(name, k);
        if (best < 0 || h > best_score) best = k, best_score = h;
    }
    return best;
}

ServeConfig shard_config(ServeConfig config, int index, int count) {
    std::vector<StreamConfig> mine;
    for (StreamConfig& s : config.streams)
        if (shard_of(s.name, count) == index) mine.push_back(std::move(s));
    config.streams = std::move(mine);
    return config;
}

namespace {

// Clips are written beside a recording file, from the events of the stream's own watch.
void check_clips_fit(StreamConfig& s) {
    if (!s.clips.enabled()) return;
    const RunOutput& out = s.options.output;
    if (out.path == "null" || output_kind(out.path) != OutputKind::File ||
        std::filesystem::path(out.path).extension() == ".m3u8")
        fail(ErrorCategory::Usage, "field 'clips.on': clips are written beside a recording file (clips/NAME in its folder); give "
                                   "output a file name (with clips.only: true it is not recorded)");
    if (!s.watch.enabled) fail(ErrorCategory::Usage, "field 'clips.on': clips follow the stream's watch, which watch: false turns off");
    if (s.clips.only && out.segment_s > 0)
        fail(ErrorCategory::Usage, "field 'clips.only': a stream recording only clips has no segments; leave segment out");
    s.options.output.packets_only = s.clips.only;
}

}  // namespace

StreamConfig make_stream_config(const std::string& name, StreamFields fields, const StreamFields& defaults,
                                const KernelFiles& kernel_files) {
    if (!valid_stream_name(name))
        fail(ErrorCategory::Usage, "stream name '" + name + "': use 1 to 64 of A-Z a-z 0-9 _ -");
    for (const auto& [key, value] : defaults) fields.emplace(key, value);  // the stream's own win
    for (const char* required : {"input", "output"})
        if (!fields.count(required)) fail(ErrorCategory::Usage, "stream '" + name + "': field '" + required + "' is missing");
    StreamConfig s;
    s.name = name;
    try {
        s.options = stream_options_from_fields(fields, true);
        s.watch = watch_from_fields(fields);
        s.clips = clips_from_fields(fields);
        s.options.filter.kernel_files = kernel_files;
        // Standard output is serve's log, not a place for video.
        if (s.options.output.path == "-") fail(ErrorCategory::Usage, "field 'output': '-' (standard output) is serve's log; name a file or URL");
        // What can be checked before the input opens, so a typo is refused and changes nothing.
        if (is_pattern_url(s.options.input.url)) parse_pattern_url(s.options.input.url);
        check_clips_fit(s);
        if (!s.clips.enabled()) check_retention_fits(s.options.output);  // retention keeps the clips too
        try {
            plan_chain(s.options.filter.chain.spec(), s.options.filter.compat, {}, kernel_files);
        } catch (const Error& e) {
            rethrow_prefixed(e, "field 'filter': ");
        }
        if (s.options.output.path != "null") {
            try {
                find_video_encoder(s.options.output.codec);
            } catch (const Error& e) {
                fail(ErrorCategory::Usage, std::string("field 'codec': ") + e.what());
            }
        }
    } catch (const Forbidden& e) {
        forbid("stream '" + name + "': " + redact_credentials(e.what()));
    } catch (const Error& e) {
        fail(ErrorCategory::Usage, "stream '" + name + "': " + redact_credentials(e.what()));
    }
    s.fields = std::move(fields);
    return s;
}

namespace {
ServeConfig parse_config_nodes(const std::string& text, const std::string& file) {
    YAML::Node root;
    try {
        root = YAML::Load(text);
    } catch (const YAML::Exception& e) {
        fail(ErrorCategory::Usage, at(file, e.mark) + e.msg);
    }
    if (!root.IsMap()) fail(ErrorCategory::Usage, file + ": expected a mapping with 'streams:' (and optionally 'defaults:')");
    ServeConfig config;
    for (const auto& kv : root) {
        const std::string key = kv.first.as<std::string>();
        if (key != "defaults" && key != "streams" && key != "serve")  // serve: app/serve/serve_settings.hpp
            fail(ErrorCategory::Usage, at(file, kv.first.Mark()) + "unknown section '" + key + "' (expected defaults, streams, serve)");
    }
    if (root["defaults"]) {
        config.defaults = read_fields(root["defaults"], file, "defaults");
        if (config.defaults.count("name")) fail(ErrorCategory::Usage, at(file, root["defaults"].Mark()) + "defaults cannot give a name");
    }
    const YAML::Node streams = root["streams"];
    if (!streams || !streams.IsSequence())
        fail(ErrorCategory::Usage, at(file, streams ? streams.Mark() : root.Mark()) + "'streams:' must be a list of streams");
    std::set<std::string> names;
    for (size_t i = 0; i < streams.size(); ++i) {
        const YAML::Node entry = streams[i];
        const std::string what = "stream " + std::to_string(i + 1);
        StreamFields fields = read_fields(entry, file, what);
        std::string n;
        try {
            n = take_name(fields, what + ": field 'name' is missing");
        } catch (const Error& e) {
            fail(ErrorCategory::Usage, at(file, entry.Mark()) + e.what());
        }
        if (!names.insert(n).second) fail(ErrorCategory::Usage, at(file, entry.Mark()) + "stream name '" + n + "' is used twice");
        try {
            config.streams.push_back(make_stream_config(n, std::move(fields), config.defaults));
        } catch (const Error& e) {
            fail(ErrorCategory::Usage, at(file, entry.Mark()) + e.what());
        }
    }
    return config;
}

}  // namespace

ServeConfig parse_serve_config(const std::string& text, const std::string& file) {
    try {
        return parse_config_nodes(text, file);
    } catch (const YAML::Exception& e) {  // a key or value of the wrong kind, found while reading
        fail(ErrorCategory::Usage, at(file, e.mark) + e.msg);
    }
}

ServeConfig demo_serve_config(int streams) {
    if (streams < 1 || streams > 16) fail(ErrorCategory::Usage, "--demo " + std::to_string(streams) + ": give 1 to 16 streams");
    static const char* const kFilters[] = {"sobel",  "gaussian=sigma=4", "emboss",  "kirsch",
                                           "sharpen=strength=1", "box=radius=6", "prewitt", "laplacian"};
    static const char* const kMotions[] = {"ball", "bars", "checker"};
    ServeConfig config;
    for (int k = 0; k < streams; ++k) {
        const std::string input = std::string("pattern://?size=640x360&rate=30&motion=") + kMotions[k % 3] +
                                  "&seed=" + std::to_string(k + 1);
        config.streams.push_back(make_stream_config("demo" + std::to_string(k + 1),
                                                    {{"input", input}, {"output", "null"}, {"filter", kFilters[k % 8]}}, {}));
    }
    return config;
}

ServeConfig load_serve_config(const std::string& path) {
    std::ifstream f(path);
    if (!f) fail(ErrorCategory::Usage, "cannot read --config file '" + path + "'");
    std::stringstream text;
    text << f.rdbuf();
    return parse_serve_config(text.str(), path);
}

StreamConfig stream_from_json(const std::string& json_text, const StreamFields& defaults, const ClientAccess& access) {
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(json_text);
    } catch (const nlohmann::json::exception& e) {
        fail(ErrorCategory::Usage, std::string("the body is not JSON: ") + e.what());
    }
    if (!j.is_object()) fail(ErrorCategory::Usage, "the body must be a JSON object of stream fields");
    StreamFields fields;
    for (const auto& [key, value] : j.items()) {
        // JSON's own types: a number stays a number. No ${NAME} here: a client must not read the
        // server's environment into a URL it names.
        if (value.is_string()) fields[key] = value.get<std::string>();
        else if (value.is_number()) fields[key] = FieldValue::of_number(value.get<double>(), value.dump());
        else if (value.is_boolean()) fields[key] = FieldValue::of_boolean(value.get<bool>(), value.dump());
        else fail(ErrorCategory::Usage, "field '" + key + "': expected a string, number or boolean");
    }
    const std::string n = take_name(fields, "field 'name' is missing");
    return make_stream_config(n, check_client_fields(std::move(fields), access), defaults, access.kernel_files());
}

}  // namespace vf
