// One clip around an event (app/serve/watch/clip_recorder.hpp): the output encoder's packets as
// they are (no encoding again), remuxed into the container the clip's name says (mp4, mov, mkv).
// It is written as "<path>.partial" and moved to <path> only once its trailer is written, never
// over a file that is there (then beside it, as name-2.ext), so a clip cut short by a failure or a
// kill never looks finished. Its timestamps start at 0; the first packet must be a keyframe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "encode/output_file_io.hpp"
#include "media/packet_tap.hpp"

namespace vf {

// Where a stream's clips go: "clips/STREAM" in the folder of its output (the recording's file or
// --segment pattern).
std::string clips_folder(const std::string& output_path, const std::string& stream);
// The clips' container: the output's when it is .mp4, .mov or .mkv, else .mkv (".mkv").
std::string clip_extension(const std::string& output_path);
// "20261129T134500Z-dark.mp4": the UTC second `unix_s` falls in, the condition, the extension.
std::string clip_file_name(double unix_s, const std::string& kind, const std::string& extension);

class ClipFile {
public:
    // Throws Error(Output) when the file cannot be made or its container cannot hold the codec.
    ClipFile(std::string path, const PacketFormat& format);
    ~ClipFile();  // unfinished: the partial file is removed
    ClipFile(const ClipFile&) = delete;
    ClipFile& operator=(const ClipFile&) = delete;

    // A packet in the format's time base. Throws Error(Output) when writing fails.
    void write(const AVPacket& packet);
    // The trailer, then the move to its name; returns the name it has. Throws Error(Output).
    std::string finish();

    int64_t packets() const { return packets_; }
    const std::string& partial_path() const { return partial_; }

private:
    void release();
    // Writes pending_, its duration the distance to `next_dts` where the encoder gave none (a
    // player shows the last frame as long as the one before it): the muxer's edit list then
    // holds every frame.
    void write_pending(int64_t next_dts);

    std::string path_, partial_;
    AVRational time_base_;
    OutputFileIo io_;
    AVFormatContext* mux_ = nullptr;
    AvPacketPtr pending_;  // the last packet, written when the next one comes (or at finish)
    int64_t last_duration_ = 0;
    int64_t origin_ = AV_NOPTS_VALUE;  // the first packet's dts (or pts), taken off every timestamp
    int64_t last_dts_ = AV_NOPTS_VALUE;
    int64_t packets_ = 0;
    bool finished_ = false;
};

}  // namespace vf
