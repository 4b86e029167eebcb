#include "app/serve/serve_settings.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "app/serve/decoder_balance.hpp"
#include "common/error.hpp"

namespace vf {
// Named, so that a unity batch with serve_config.cpp sees no two helpers of one name.
namespace serve_block {
namespace {

// A key's value was not what it takes: the caller adds where and which key.
struct BadSetting {
    std::string allowed;
};

int whole(const std::string& text, int low, int high) {
    char* end = nullptr;
    const long v = std::strtol(text.c_str(), &end, 10);
    if (text.empty() || *end || v < low || v > high)
        throw BadSetting{"expected a whole number from " + std::to_string(low) + " to " + std::to_string(high)};
    return static_cast<int>(v);
}

double number(const std::string& text, double low, double high) {
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (text.empty() || *end || !std::isfinite(v) || v < low || v > high) {
        std::ostringstream allowed;
        allowed << "expected a number from " << low << " to " << high;
        throw BadSetting{allowed.str()};
    }
    return v;
}

std::string path(const std::string& text) {
    if (text.empty()) throw BadSetting{"expected a path"};
    return text;
}

bool on_off(const std::string& text) {
    if (text == "true" || text == "on" || text == "yes") return true;
    if (text == "false" || text == "off" || text == "no") return false;
    throw BadSetting{"expected true or false"};
}

// "a, b,c" -> {"a", "b", "c"}.
std::vector<std::string> names(const std::string& text) {
    std::vector<std::string> items;
    std::stringstream list(text);
    for (std::string item; std::getline(list, item, ',');) {
        item.erase(0, item.find_first_not_of(" \t"));
        item.erase(item.find_last_not_of(" \t") + 1);
        if (!item.empty()) items.push_back(item);
    }
    if (items.empty()) throw BadSetting{"expected host names, as a list or comma separated"};
    return items;
}

FreeSpaceFloor free_space(const std::string& text) {
    FreeSpaceFloor floor;
    if (!parse_free_space_floor(text, &floor)) throw BadSetting{"expected a share of the disk such as 5% or a size such as 20G"};
    return floor;
}

int64_t bytes(const std::string& text) {
    int64_t n = 0;
    if (!parse_bytes(text, &n)) throw BadSetting{"expected a size such as 1G or 512M"};
    return n;
}

DecoderPlacementRule placement(const std::string& text) {
    if (text == "auto") return DecoderPlacementRule::ByKind;
    if (text == "nvdec") return DecoderPlacementRule::Nvdec;
    if (text == "load") return DecoderPlacementRule::Load;
    throw BadSetting{"expected auto, nvdec or load"};
}

// A key prefix of etcd: "/name[/name...]", printable, no trailing slash.
std::string store_prefix(const std::string& text) {
    const bool printable = std::all_of(text.begin(), text.end(), [](char c) { return c > 0x20 && c < 0x7f; });
    if (text.size() < 2 || text.size() > 128 || text[0] != '/' || text.back() == '/' || !printable)
        throw BadSetting{"expected a key prefix such as /vfilter or /site-a/vfilter"};
    return text;
}

struct Key {
    const char* name;
    const char* env;  // nullptr: the file only
    void (*set)(ServeSettings&, const std::string&);
};

// The block's keys, each with its type and range. The environment variables are those that
// deployments already set (deploy/, docs/kubernetes.md, docs/systemd.md).
const std::vector<Key>& keys() {
    static const std::vector<Key> table = {
        {"media-root", "VFILTER_MEDIA_ROOT", [](ServeSettings& s, const std::string& v) { s.media_root = path(v); }},
        {"recordings-root", "VFILTER_RECORDINGS_ROOT", [](ServeSettings& s, const std::string& v) { s.recordings_root = path(v); }},
        {"kernel-dir", "VFILTER_KERNEL_DIR", [](ServeSettings& s, const std::string& v) { s.kernel_dir = path(v); }},
        {"output-hosts", "VFILTER_OUTPUT_HOSTS", [](ServeSettings& s, const std::string& v) { s.output_hosts = names(v); }},
        {"api-hosts", "VFILTER_API_HOST", [](ServeSettings& s, const std::string& v) { s.api_hosts = names(v); }},
        {"tls-ca", "VFILTER_TLS_CA", [](ServeSettings& s, const std::string& v) { s.tls_ca = path(v); }},
        {"api-token-file", "VFILTER_API_TOKEN_FILE", [](ServeSettings& s, const std::string& v) { s.api_token_file = path(v); }},
        {"webhook", "VFILTER_WEBHOOK", [](ServeSettings& s, const std::string& v) { s.webhook = v; }},
        {"webhook-secret-file", "VFILTER_WEBHOOK_SECRET_FILE", [](ServeSettings& s, const std::string& v) { s.webhook_secret_file = path(v); }},
        {"viewer-token-file", "VFILTER_VIEWER_TOKEN_FILE",
         [](ServeSettings& s, const std::string& v) { s.viewer_token_file = path(v); }},
        {"max-streams", nullptr, [](ServeSettings& s, const std::string& v) { s.max_streams = whole(v, 1, 100000); }},
        {"max-previews", nullptr, [](ServeSettings& s, const std::string& v) { s.max_previews = whole(v, 1, 256); }},
        {"max-preview-encoders", nullptr, [](ServeSettings& s, const std::string& v) { s.max_preview_encoders = whole(v, 1, 1024); }},
        {"host-threads", nullptr, [](ServeSettings& s, const std::string& v) { s.host_threads = whole(v, 0, 4096); }},
        {"gpu-frames", nullptr, [](ServeSettings& s, const std::string& v) { s.gpu_frames = whole(v, 2, 1024); }},
        {"min-free", "VFILTER_MIN_FREE", [](ServeSettings& s, const std::string& v) { s.min_free = free_space(v); }},
        {"watch-config", "VFILTER_WATCH_CONFIG", [](ServeSettings& s, const std::string& v) { s.watch_config_s = number(v, 0, 86400); }},
        {"store-lease", nullptr, [](ServeSettings& s, const std::string& v) { s.store_lease_s = whole(v, 3, 3600); }},
        {"store-prefix", nullptr, [](ServeSettings& s, const std::string& v) { s.store_prefix = store_prefix(v); }},
        {"api-state", "VFILTER_API_STATE", [](ServeSettings& s, const std::string& v) { s.api_state = path(v); }},
        {"stats-json", "VFILTER_STATS_JSON", [](ServeSettings& s, const std::string& v) { s.stats_json = path(v); }},
        {"decoder-placement", nullptr, [](ServeSettings& s, const std::string& v) { s.decoder_placement = placement(v); }},
        {"nvdec-capacity", nullptr, [](ServeSettings& s, const std::string& v) { s.nvdec_capacity = number(v, 0, 100000); }},
        {"cpu-decode-capacity", nullptr,
         [](ServeSettings& s, const std::string& v) { s.cpu_decode_capacity = number(v, 0, 100000); }},
        {"nvdec-slots", nullptr, [](ServeSettings& s, const std::string& v) { s.nvdec_slots = whole(v, 0, 4096); }},
        {"nvdec-share", nullptr, [](ServeSettings& s, const std::string& v) { s.nvdec_share = on_off(v); }},
        {"watch", nullptr, [](ServeSettings& s, const std::string& v) { s.watch = on_off(v); }},
        {"clips-memory", nullptr, [](ServeSettings& s, const std::string& v) { s.clips_memory = bytes(v); }},
    };
    return table;
}

std::string at(const std::string& file, const YAML::Mark& m) {
    if (m.is_null()) return file + ": ";
    return file + ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1) + ": ";
}

std::string allowed_keys() {
    std::string list;
    for (const Key& k : keys()) list += (list.empty() ? "" : ", ") + std::string(k.name);
    return list;
}

// A scalar as text; a list of scalars (the host lists) as one comma-separated text.
std::string value_text(const YAML::Node& value, const std::string& where) {
    if (value.IsScalar()) return value.as<std::string>();
    if (value.IsSequence()) {
        std::string joined;
        for (const YAML::Node& item : value) {
            if (!item.IsScalar()) fail(ErrorCategory::Usage, where + "expected a single value or a list of them");
            joined += (joined.empty() ? "" : ",") + item.as<std::string>();
        }
        return joined;
    }
    fail(ErrorCategory::Usage, where + "expected a single value or a list of them");
}

ServeSettings read_block(const YAML::Node& block, const std::string& file) {
    ServeSettings settings;
    if (!block || block.IsNull()) return settings;
    if (!block.IsMap()) fail(ErrorCategory::Usage, at(file, block.Mark()) + "serve: must be a mapping of key: value");
    std::set<std::string> seen;
    for (const auto& kv : block) {
        const std::string name = kv.first.as<std::string>();
        const auto key = std::find_if(keys().begin(), keys().end(), [&](const Key& k) { return name == k.name; });
        if (key == keys().end())
            fail(ErrorCategory::Usage, at(file, kv.first.Mark()) + "serve: unknown key '" + name + "' (expected " + allowed_keys() + ")");
        if (!seen.insert(name).second) fail(ErrorCategory::Usage, at(file, kv.first.Mark()) + "serve: key '" + name + "' given twice");
        const std::string where = at(file, kv.second.Mark()) + "serve: " + name + ": ";
        const std::string text = value_text(kv.second, where);
        try {
            key->set(settings, text);
        } catch (const BadSetting& bad) {
            fail(ErrorCategory::Usage, where + "'" + text + "': " + bad.allowed);
        }
    }
    return settings;
}

}  // namespace
}  // namespace serve_block

const std::vector<std::string>& serve_setting_keys() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> list;
        for (const serve_block::Key& k : serve_block::keys()) list.push_back(k.name);
        return list;
    }();
    return names;
}

ServeSettings parse_serve_settings(const std::string& text, const std::string& file) {
    try {
        const YAML::Node root = YAML::Load(text);
        if (!root.IsMap()) return ServeSettings{};  // the streams' reader says what is wrong with the file
        return serve_block::read_block(root["serve"], file);
    } catch (const YAML::Exception& e) {
        fail(ErrorCategory::Usage, serve_block::at(file, e.mark) + e.msg);
    }
}

std::string serve_block_text(const std::string& text) {
    try {
        const YAML::Node root = YAML::Load(text);
        if (!root.IsMap() || !root["serve"]) return "";
        return YAML::Dump(root["serve"]);
    } catch (const YAML::Exception&) {
        return "";
    }
}

ServeSettings load_serve_settings(const std::string& path) {
    std::ifstream f(path);
    if (!f) fail(ErrorCategory::Usage, "cannot read --config file '" + path + "'");
    std::stringstream text;
    text << f.rdbuf();
    return parse_serve_settings(text.str(), path);
}

void apply_serve_environment(ServeSettings& settings, const std::function<const char*(const char*)>& getenv_fn) {
    for (const serve_block::Key& k : serve_block::keys()) {
        if (!k.env) continue;
        const char* value = getenv_fn(k.env);
        if (!value || !*value) continue;
        try {
            k.set(settings, value);
        } catch (const serve_block::BadSetting& bad) {
            fail(ErrorCategory::Usage, std::string(k.env) + " '" + value + "': " + bad.allowed);
        }
    }
}

DecoderCapacity decoder_capacity_of(const ServeSettings& settings) {
    DecoderCapacity capacity;
    capacity.by_load = settings.decoder_placement == DecoderPlacementRule::Load;
    capacity.cameras_by_load = settings.decoder_placement == DecoderPlacementRule::ByKind;
    capacity.nvdec_share = settings.nvdec_share;
    capacity.nvdec_streams = settings.nvdec_capacity;
    capacity.cpu_streams = settings.cpu_decode_capacity;
    return capacity;
}

}  // namespace vf
