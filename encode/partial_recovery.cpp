#include "encode/partial_recovery.hpp"

#include <sys/stat.h>

#include <cstdio>
#include <ctime>
#include <filesystem>

#include <spdlog/spdlog.h>

#include "config/quantities.hpp"
#include "encode/owned_files.hpp"
#include "encode/recording_repair.hpp"

namespace vf {

namespace fs = std::filesystem;

namespace {

// OUT-recovered-YYYYmmdd-HHMMSS.EXT, from when the partial file was last written; -2, -3 ... when
// that name is taken.
std::string recovered_name(const std::string& output, const std::string& partial) {
    struct stat st {};
    const time_t when = stat(partial.c_str(), &st) == 0 ? st.st_mtime : std::time(nullptr);
    std::tm local{};
    localtime_r(&when, &local);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &local);
    const fs::path out(output);
    const std::string base = (out.parent_path() / out.stem()).string() + "-recovered-" + stamp;
    const std::string ext = out.extension().string();
    std::string name = base + ext;
    for (int n = 2; fs::exists(name); ++n) name = base + "-" + std::to_string(n) + ext;
    return name;
}

}  // namespace

std::optional<PartialRecovery> recover_partial_recording(const std::string& output) {
    const std::string partial = output + ".partial";
    std::error_code ec;
    // A link under that name is no recording of vfilter's: the new run refuses to write through it.
    if (!fs::is_regular_file(fs::symlink_status(partial, ec))) return std::nullopt;
    PartialRecovery r;
    r.partial = partial;
    const ReadableVideo v = readable_video(partial);
    r.video_packets = v.packets;
    r.seconds = v.seconds;
    if (v.error.empty()) {
        r.kept_as = recovered_name(output, partial);
        const int err = rename_without_replacing(partial, r.kept_as);
        ec = std::error_code(err, std::generic_category());
        if (!ec) {
            spdlog::warn("'{}' was left by a run that was killed; its {:.1f} s of video ({} frames) are kept as '{}'", partial,
                         v.seconds, v.packets, r.kept_as);
            return r;
        }
        spdlog::warn("'{}' was left by a run that was killed and holds {:.1f} s of video, but cannot be renamed to '{}': {}; "
                     "it is left as it is",
                     partial, v.seconds, r.kept_as, ec.message());
        r.kept_as = partial;
        return r;
    }
    r.why_removed = v.error;
    const int64_t bytes = static_cast<int64_t>(fs::file_size(partial, ec));
    fs::remove(partial, ec);
    spdlog::warn("'{}' ({}) was left by a run that was killed before its first complete fragment: nothing in it plays ({}); "
                 "removed",
                 partial, format_bytes(bytes), v.error);
    return r;
}

}  // namespace vf
