#include "encode/hls_output.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>

#include <spdlog/spdlog.h>

#include "common/ascii.hpp"
#include "encode/output_target.hpp"

namespace vf {
namespace {

// "dir/name" of "dir/name.m3u8" (or of any other extension).
std::string without_extension(const std::string& path) {
    const size_t slash = path.find_last_of('/');
    const size_t dot = path.find_last_of('.');
    return dot == std::string::npos || (slash != std::string::npos && dot < slash) ? path : path.substr(0, dot);
}

std::string escape_percent(const std::string& s) {
    std::string out;
    for (char c : s) out += c == '%' ? std::string("%%") : std::string(1, c);
    return out;
}

std::string base_name(const std::string& path) {
    const size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string regex_escape(const std::string& s) {
    static const std::regex special(R"([.^$|()\[\]{}*+?\\])");
    return std::regex_replace(s, special, R"(\$&)");
}

}  // namespace

bool is_hls_output(const OutputOptions& o) {
    if (!o.format.empty()) return o.format == "hls";
    if (output_kind(o.path) != OutputKind::File || o.path.size() < 5) return false;
    return ascii_lower(o.path.substr(o.path.size() - 5)) == ".m3u8";
}

std::string hls_segment_pattern(const std::string& playlist, bool fmp4) {
    return escape_percent(without_extension(playlist)) + (fmp4 ? "-%05d.m4s" : "-%05d.ts");
}

std::string hls_init_name(const std::string& playlist) { return base_name(without_extension(playlist)) + "-init.mp4"; }

int delete_unlisted_hls_segments(const std::string& playlist, bool fmp4) {
    const std::string stem = base_name(without_extension(playlist));
    const std::regex segment("^" + regex_escape(stem) + "-([0-9]+)\\." + (fmp4 ? "m4s" : "ts") + "$");
    long first_listed = -1;
    std::ifstream in(playlist);
    std::smatch m;
    for (std::string line; std::getline(in, line) && first_listed < 0;)
        if (std::regex_match(line, m, segment)) first_listed = std::stol(m[1]);
    if (first_listed < 0) return 0;
    const std::filesystem::path dir = std::filesystem::path(playlist).parent_path();
    std::error_code ec;
    int deleted = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir.empty() ? "." : dir, ec)) {
        const std::string name = e.path().filename().string();
        if (std::regex_match(name, m, segment) && std::stol(m[1]) < first_listed && std::filesystem::remove(e.path(), ec)) ++deleted;
    }
    return deleted;
}

std::vector<std::string> hls_series_files(const std::string& playlist, bool fmp4) {
    const std::string stem = base_name(without_extension(playlist));
    const std::regex segment("^" + regex_escape(stem) + "-[0-9]+\\." + (fmp4 ? "m4s" : "ts") + "(\\.tmp)?$");
    const std::string own[] = {base_name(playlist), base_name(playlist) + ".tmp", hls_init_name(playlist)};
    const std::filesystem::path dir = std::filesystem::path(playlist).parent_path();
    std::vector<std::string> files;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir.empty() ? "." : dir, ec)) {
        const std::string name = e.path().filename().string();
        if (std::regex_match(name, segment) || std::find(std::begin(own), std::end(own), name) != std::end(own))
            files.push_back(dir.empty() ? name : e.path().string());  // as the muxer names them: "live.m3u8", not "./live.m3u8"
    }
    return files;
}

void set_hls_options(const OutputOptions& o, const std::string& playlist, AVDictionary** d) {
    av_dict_set(d, "hls_segment_filename", hls_segment_pattern(playlist, o.hls_fmp4).c_str(), 0);
    if (o.hls_fmp4) {
        av_dict_set(d, "hls_segment_type", "fmp4", 0);
        av_dict_set(d, "hls_fmp4_init_filename", hls_init_name(playlist).c_str(), 0);
    }
    av_dict_set(d, "hls_time", std::to_string(o.hls_time_s).c_str(), 0);
    av_dict_set(d, "start_number", "1", 0);
    std::string flags = "temp_file+independent_segments";
    if (o.live) {
        av_dict_set_int(d, "hls_list_size", o.hls_window, 0);
        flags += "+delete_segments+program_date_time";
        struct stat st {};
        if (!o.overwrite && stat(playlist.c_str(), &st) == 0) {
            flags += "+append_list";
            const int deleted = delete_unlisted_hls_segments(playlist, o.hls_fmp4);
            spdlog::info("'{}' exists: this recording goes on in it ({} segments it no longer lists deleted)", playlist, deleted);
        }
    } else {
        av_dict_set(d, "hls_list_size", "0", 0);
        av_dict_set(d, "hls_playlist_type", "event", 0);
    }
    av_dict_set(d, "hls_flags", flags.c_str(), 0);
}

}  // namespace vf
