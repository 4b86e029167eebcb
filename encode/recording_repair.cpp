#include "encode/recording_repair.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <fstream>

#include <spdlog/spdlog.h>

#include "config/quantities.hpp"
#include "encode/segment_series.hpp"
#include "media/av_helpers.hpp"

namespace vf {

namespace fs = std::filesystem;

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

namespace {

// Calls see(type, end) for each whole top-level box of the MP4 in `in` (`size` bytes) and
// returns its end, or the offset of the first box that is cut or malformed; -1 when the first
// box is not ftyp (not an MP4).
template <class See>
int64_t walk_boxes(std::ifstream& in, int64_t size, See see) {
    int64_t at = 0;
    for (bool first = true; at + 8 <= size; first = false) {
        std::array<unsigned char, 16> h{};
        in.seekg(at);
        in.read(reinterpret_cast<char*>(h.data()), std::min<int64_t>(16, size - at));
        uint64_t box = (uint64_t(h[0]) << 24) | (uint64_t(h[1]) << 16) | (uint64_t(h[2]) << 8) | h[3];
        const std::string type(reinterpret_cast<const char*>(h.data()) + 4, 4);
        if (first && type != "ftyp") return -1;
        if (box == 1) {  // a 64-bit size follows the type
            if (at + 16 > size) break;
            box = 0;
            for (int i = 8; i < 16; ++i) box = (box << 8) | h[i];
        } else if (box == 0) {
            box = uint64_t(size - at);  // to the end of the file: only a finished file's last box
        }
        if (box < 8 || int64_t(box) > size - at) break;  // the box the disk cut
        at += int64_t(box);
        see(type, at);
    }
    return at;
}

int64_t file_size_of(std::ifstream& in) {
    in.seekg(0, std::ios::end);
    return in.tellg();
}

}  // namespace

int64_t mp4_whole_length(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return -1;
    const int64_t size = file_size_of(in);
    if (size < 8) return 0;  // not one box header: nothing was written but the name
    int64_t whole = -1;
    bool moov = false, mdat = false;
    const int64_t walked = walk_boxes(in, size, [&](const std::string& type, int64_t end) {
        if (type == "mdat") mdat = true;
        if (type == "moov") moov = true;
        // These open a fragment; it is whole once its mdat is.
        if (type != "moof" && type != "styp" && type != "sidx" && type != "prft" && type != "emsg") whole = end;
    });
    if (walked < 0) return -1;
    if (moov) return whole;
    // No index: a header cut short holds nothing; a plain MP4 without its index (media but no
    // moov) is for recovery tools, not for cutting.
    return mdat ? -1 : 0;
}

bool mp4_header_complete(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    bool moov = false;
    return walk_boxes(in, file_size_of(in), [&](const std::string& type, int64_t) { moov = moov || type == "moov"; }) > 0 && moov;
}

CutRepair repair_cut_recording(const std::string& path, const char* cause) {
    CutRepair r;
    std::error_code ec;
    r.bytes_before = r.bytes_after = static_cast<int64_t>(fs::file_size(path, ec));
    if (ec) {
        r.why = ec.message();
        return r;
    }
    const int64_t whole = mp4_whole_length(path);
    if (whole >= 0 && whole < r.bytes_before) {
        fs::resize_file(path, static_cast<uintmax_t>(whole), ec);
        if (ec) {
            r.why = "cannot cut it after its last complete fragment: " + ec.message();
            spdlog::warn("'{}' was cut short by {} and {}", path, cause, r.why);
            return r;
        }
        r.bytes_after = whole;
        r.outcome = CutRepair::Outcome::Trimmed;
    }
    if (whole < 0) {  // not an MP4 with its index first: nothing here can tell what is whole
        r.why = "not a fragmented MP4";
        spdlog::warn("'{}' was cut short by {}; not a fragmented MP4, so it is left as written", path, cause);
        return r;
    }
    const ReadableVideo v = readable_video(path);
    if (!v.error.empty()) {
        fs::remove(path, ec);
        r.why = v.error;
        r.outcome = CutRepair::Outcome::Removed;
        r.bytes_after = 0;
        spdlog::warn("'{}' ({}) was cut short by {} before it held a complete fragment ({}): removed", path,
                     format_bytes(r.bytes_before), cause, v.error);
        return r;
    }
    if (r.outcome == CutRepair::Outcome::Trimmed)
        spdlog::warn("'{}' was cut short by {}: cut after its last complete fragment ({} of {} kept, {:.1f} s of video)",
                     path, cause, format_bytes(r.bytes_after), format_bytes(r.bytes_before), v.seconds);
    else
        r.outcome = CutRepair::Outcome::Whole;
    return r;
}

// A file that does not begin with a whole MP4 header (ftyp, moov) is left as it is, since nothing
// shows that a recorder wrote it.
void repair_segments_left_by_a_killed_run(const std::string& pattern) {
    FileSelection newest(2, FileSelection::Keep::Newest);  // not the whole folder's list: it may hold months
    SegmentSeries(pattern).for_each_file([&](SegmentFile&& f) { newest.offer(std::move(f)); });
    const std::vector<SegmentFile> files = newest.take();
    for (auto it = files.rbegin(); it != files.rend(); ++it)
        if (mp4_header_complete(it->path)) repair_cut_recording(it->path, "a killed run");
}

}  // namespace vf
