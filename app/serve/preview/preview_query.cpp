#include "app/serve/preview/preview_query.hpp"

#include <set>

#include "app/serve/service_error.hpp"

namespace vf {
namespace {

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

std::string percent_decoded(const std::string& s) {
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '+') {
            out += ' ';
        } else if (s[i] == '%') {
            const int hi = i + 2 < s.size() ? hex_digit(s[i + 1]) : -1, lo = hi >= 0 ? hex_digit(s[i + 2]) : -1;
            if (lo < 0) throw ServiceError(400, "bad percent-encoding in the query");
            out += static_cast<char>(hi * 16 + lo);
            i += 2;
        } else {
            out += s[i];
        }
    }
    return out;
}

// What a client may see of a value it sent: printable ASCII, at most 40 characters.
std::string shown(const std::string& v) {
    std::string out;
    for (char c : v.substr(0, 40)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
    return out + (v.size() > 40 ? "..." : "");
}

int whole_number(const std::string& name, const std::string& v, int lo, int hi) {
    if (v.empty() || v.size() > 6 || v.find_first_not_of("0123456789") != std::string::npos)
        throw ServiceError(400, name + "='" + shown(v) + "': expected a whole number in " + std::to_string(lo) + ".." + std::to_string(hi));
    const int n = std::stoi(v);
    if (n < lo || n > hi) throw ServiceError(400, name + "=" + v + ": must be in " + std::to_string(lo) + ".." + std::to_string(hi));
    return n;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> query_pairs(const std::string& raw, size_t max_length) {
    if (raw.size() > max_length) throw ServiceError(400, "the query is too long");
    std::vector<std::pair<std::string, std::string>> pairs;
    std::set<std::string> seen;
    size_t at = 0;
    while (at <= raw.size()) {
        size_t end = raw.find('&', at);
        if (end == std::string::npos) end = raw.size();
        const std::string pair = raw.substr(at, end - at);
        at = end + 1;
        if (pair.empty()) continue;  // "a=1&&b=2", a trailing '&'
        const size_t eq = pair.find('=');
        std::string name = percent_decoded(pair.substr(0, eq));
        std::string value = eq == std::string::npos ? "" : percent_decoded(pair.substr(eq + 1));
        if (!seen.insert(name).second) throw ServiceError(400, "'" + shown(name) + "' is given twice");
        pairs.emplace_back(std::move(name), std::move(value));
    }
    return pairs;
}

int query_whole_number(const std::string& name, const std::string& value, int lo, int hi) { return whole_number(name, value, lo, hi); }

PreviewQuery parse_preview_query(const std::string& raw, bool with_fps) {
    PreviewQuery q;
    for (const auto& [name, value] : query_pairs(raw, 256)) {
        if (name == "side") {
            if (value == "input") q.side = PreviewSide::Input;
            else if (value == "output") q.side = PreviewSide::Output;
            else throw ServiceError(400, "side='" + shown(value) + "': expected input or output");
        } else if (name == "width") {
            q.width = whole_number(name, value, kPreviewMinWidth, kPreviewMaxWidth);
        } else if (name == "fps" && with_fps) {
            q.fps = whole_number(name, value, 1, kPreviewMaxFps);
        } else {
            throw ServiceError(400, "unknown parameter '" + shown(name) + "': expected side, width" + (with_fps ? ", fps" : ""));
        }
    }
    return q;
}

}  // namespace vf
