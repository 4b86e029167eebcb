#include "encode/partial_recovery.hpp"

#include <sys/stat.h>

#include <cstdio>
#include <ctime>
#include <filesystem>

#include <spdlog/spdlog.h>

#include "config/quantities.hpp"
#include "media/av_helpers.hpp"

namespace vf {

namespace fs = std::filesystem;

namespace {

// The video packets a demuxer reads from `path` and the time they span; an error when it cannot
// open the file or find a video stream.
struct ReadableVideo {
    int64_t packets = 0;
    double seconds = 0;
    std::string error;
};

ReadableVideo readable_video(const std::string& path) {
    ReadableVideo r;
    AVFormatContext* raw = nullptr;
    AVDictionary* options = nullptr;
    av_dict_set(&options, "protocol_whitelist", "file", 0);
    int err = avformat_open_input(&raw, path.c_str(), nullptr, &options);
    av_dict_free(&options);
    if (err < 0) {
        r.error = av_error_string(err);
        return r;
    }
    AvInputPtr input(raw);
    if ((err = avformat_find_stream_info(input.get(), nullptr)) < 0) {
        r.error = av_error_string(err);
        return r;
    }
    const int video = av_find_best_stream(input.get(), AVMEDIA_TYPE_VIDEO, -1, -1, nullptr, 0);
    if (video < 0) {
        r.error = "no video stream";
        return r;
    }
    const AVRational tb = input->streams[video]->time_base;
    AvPacketPtr packet = make_packet();
    int64_t first = AV_NOPTS_VALUE, last = AV_NOPTS_VALUE;
    while (av_read_frame(input.get(), packet.get()) >= 0) {
        if (packet->stream_index == video) {
            ++r.packets;
            const int64_t t = packet->pts != AV_NOPTS_VALUE ? packet->pts : packet->dts;
            if (t != AV_NOPTS_VALUE) {
                if (first == AV_NOPTS_VALUE || t < first) first = t;
                if (last == AV_NOPTS_VALUE || t > last) last = t;
            }
        }
        av_packet_unref(packet.get());
    }
    if (first != AV_NOPTS_VALUE) r.seconds = (last - first) * av_q2d(tb);
    if (r.packets == 0) r.error = "no video packet can be read";
    return r;
}

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
    if (!fs::is_regular_file(partial, ec)) return std::nullopt;
    PartialRecovery r;
    r.partial = partial;
    const ReadableVideo v = readable_video(partial);
    r.video_packets = v.packets;
    r.seconds = v.seconds;
    if (v.error.empty()) {
        r.kept_as = recovered_name(output, partial);
        fs::rename(partial, r.kept_as, ec);
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
