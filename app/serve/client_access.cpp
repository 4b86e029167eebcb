#include "app/serve/client_access.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>

#include "app/run/stream_options.hpp"
#include "common/ascii.hpp"
#include "common/error.hpp"
#include "common/redact.hpp"
#include "decode/pattern_url.hpp"
#include "media/protocols.hpp"

namespace vf {
namespace {

namespace fs = std::filesystem;

const char* const kClientInputSchemes[] = {"rtsp", "rtsps", "rtmp", "rtmps", "srt", "udp", "rtp", "tcp", "http", "https"};
const char* const kClientOutputSchemes[] = {"rtsp", "rtmp", "rtmps", "srt", "udp", "tcp"};

// "scheme" of "scheme://...", or "" when the value is not such a URL.
std::string url_scheme(const std::string& value) {
    const size_t colon = value.find("://");
    if (colon == std::string::npos || colon == 0) return "";
    for (size_t i = 0; i < colon; ++i)
        if (!std::isalnum(static_cast<unsigned char>(value[i])) && value[i] != '+' && value[i] != '-' && value[i] != '.') return "";
    return ascii_lower(value.substr(0, colon));
}

// "concat:a|b", "subfile:...", "file:x": FFmpeg's protocol prefix, which a client never names.
bool protocol_prefix(const std::string& value) {
    const size_t colon = value.find(':');
    if (colon == std::string::npos || colon == 0 || !std::isalpha(static_cast<unsigned char>(value[0]))) return false;
    for (size_t i = 0; i < colon; ++i)
        if (!std::isalnum(static_cast<unsigned char>(value[i])) && value[i] != '+' && value[i] != '-' && value[i] != '.') return false;
    return true;
}

bool one_of(const std::string& word, const char* const* list, size_t n) { return std::find(list, list + n, word) != list + n; }

// `name` relative to `root` with no way out of it: not absolute (unless inside root), no "..".
// Returns the path below root, or "" with *why.
std::string below_root(const std::string& name, const std::string& root, std::string* why) {
    fs::path p(name);
    if (p.is_absolute()) {
        const fs::path rel = p.lexically_normal().lexically_relative(fs::path(root));
        if (rel.empty() || *rel.begin() == "..") {
            *why = "is outside the folder the operator gave clients";
            return "";
        }
        p = rel;
    }
    for (const auto& part : p)
        if (part == "..") {
            *why = "may not hold '..'";
            return "";
        }
    if (name.empty() || name.find('\0') != std::string::npos || p.lexically_normal() == ".") {
        *why = "names no file";
        return "";
    }
    return p.lexically_normal().string();
}

// Each existing folder on the way from root to `rel`'s file is a real folder, not a symbolic
// link; `rel`'s file itself, if it exists, is a regular file and no link. *exists says whether it does.
bool no_links_below(const std::string& root, const std::string& rel, bool* exists, std::string* why) {
    fs::path at(root);
    const fs::path r(rel);
    *exists = false;
    size_t left = static_cast<size_t>(std::distance(r.begin(), r.end()));
    for (const auto& part : r) {
        at /= part;
        --left;
        struct stat st{};
        if (::lstat(at.c_str(), &st) != 0) return true;  // not there yet: nothing to follow
        if (S_ISLNK(st.st_mode)) {
            *why = "goes through a symbolic link, which a client's path may not";
            return false;
        }
        if (left > 0 && !S_ISDIR(st.st_mode)) {
            *why = "goes through something that is not a folder";
            return false;
        }
        if (left == 0) {
            *exists = true;
            if (!S_ISREG(st.st_mode)) {
                *why = "is not a regular file (a device, FIFO or folder)";
                return false;
            }
        }
    }
    return true;
}

// A client's file for `field`: below `root` (the operator's `option`), no link on the way, made
// absolute. *exists says whether it is there already.
std::string local_path(const std::string& field, const std::string& value, const std::string& root, const char* option, bool* exists) {
    if (root.empty())
        forbid("field '" + field + "': files are open to clients only under the operator's " + option + ", and this serve has none");
    std::string why;
    const std::string rel = below_root(value, root, &why);
    if (rel.empty() || !no_links_below(root, rel, exists, &why)) forbid("field '" + field + "': the path " + why);
    return (fs::path(root) / rel).string();
}

std::string checked_input(const std::string& value, const ClientAccess& access, bool* local) {
    *local = false;
    if (is_pattern_url(value)) return value;
    const std::string scheme = url_scheme(value);
    if (!scheme.empty()) {
        if (!one_of(scheme, kClientInputSchemes, std::size(kClientInputSchemes)))
            forbid("field 'input': " + scheme + ":// is not an input a client may name (network URLs: rtsp, rtmp, srt, udp, "
                   "rtp, tcp, http, https; or pattern://)");
        return value;
    }
    if (value == "-" || protocol_prefix(value) || input_protocol(value) != "file")
        forbid("field 'input': clients name a network URL, pattern://, or a file under media-root; not stdin, "
               "a device or a protocol such as concat:");
    bool exists = false;
    const std::string path = local_path("input", value, access.media_root, "media-root", &exists);
    if (!exists) fail(ErrorCategory::Usage, "field 'input': no file '" + value + "' under media-root");
    *local = true;
    return path;
}

std::string checked_output(const std::string& value, const ClientAccess& access) {
    if (value == "null") return value;
    const std::string scheme = url_scheme(value);
    if (!scheme.empty()) {
        if (!one_of(scheme, kClientOutputSchemes, std::size(kClientOutputSchemes)))
            forbid("field 'output': " + scheme + ":// is not an output a client may name");
        const std::string host = url_host(value);
        if (std::find(access.output_hosts.begin(), access.output_hosts.end(), host) == access.output_hosts.end())
            forbid("field 'output': host '" + host + "' is not among the hosts the operator lets clients publish to (output-hosts)");
        return value;
    }
    if (value == "-" || protocol_prefix(value) || input_protocol(value) != "file")
        forbid("field 'output': clients write null, a file under recordings-root, or a network URL to an output-hosts host");
    bool exists = false;
    return local_path("output", value, access.recordings_root, "recordings-root", &exists);
}

std::string absolute_folder(const std::string& folder, const char* option) {
    if (folder.empty()) return folder;
    std::error_code ec;
    const fs::path p = fs::canonical(folder, ec);
    if (ec || !fs::is_directory(p, ec)) fail(ErrorCategory::Usage, std::string(option) + " '" + folder + "': not a folder");
    return p.string();
}

}  // namespace

std::string url_host(const std::string& url) {
    const size_t start = url.find("://");
    if (start == std::string::npos) return "";
    std::string rest = url.substr(start + 3);
    rest = rest.substr(0, rest.find_first_of("/?#"));
    if (const size_t at = rest.rfind('@'); at != std::string::npos) rest = rest.substr(at + 1);
    if (!rest.empty() && rest[0] == '[') return ascii_lower(rest.substr(1, rest.find(']') - 1));
    return ascii_lower(rest.substr(0, rest.find(':')));
}

ClientAccess checked_client_access(ClientAccess a) {
    a.media_root = absolute_folder(a.media_root, "media-root");
    a.recordings_root = absolute_folder(a.recordings_root, "recordings-root");
    a.kernel_dir = absolute_folder(a.kernel_dir, "kernel-dir");
    for (std::string& h : a.output_hosts) h = ascii_lower(h);
    return a;
}

StreamFields check_client_fields(StreamFields fields, const ClientAccess& access) {
    for (const auto& [key, value] : fields)
        if (field_setter(key) == FieldSetter::Operator)
            forbid("field '" + key + "' is set only in serve's config file, not through the API");
    bool local = false;
    // A value that is not text is left for the option table to refuse.
    const auto is_text = [](const FieldValue& v) { return v.kind == FieldValue::Kind::Text; };
    if (const auto in = fields.find("input"); in != fields.end() && is_text(in->second))
        in->second = checked_input(in->second.text, access, &local);
    // A client's local file is read as a file and nothing else (no playlist reaching further).
    if (local) fields["allow-protocols"] = "file";
    for (const char* name : {"out", "output"})  // the option's two names
        if (const auto out = fields.find(name); out != fields.end() && is_text(out->second))
            out->second = checked_output(out->second.text, access);
    return fields;
}

}  // namespace vf
