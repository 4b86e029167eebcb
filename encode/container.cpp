#include "encode/container.hpp"

#include <cstring>

#include "common/error.hpp"
#include "media/protocols.hpp"

namespace vf {
namespace {

bool is_mp4_family(const AVOutputFormat* f) {
    return f && (std::strcmp(f->name, "mp4") == 0 || std::strcmp(f->name, "mov") == 0 || std::strcmp(f->name, "ipod") == 0);
}

// One second fragments, each starting a new moof: a killed recording loses at most the last one.
void set_fragmented(AVDictionary** d) {
    av_dict_set(d, "movflags", "+frag_keyframe+empty_moov+default_base_moof", 0);
    av_dict_set(d, "frag_duration", "1000000", 0);
}

}  // namespace

void choose_muxer(const OutputOptions& options, OutputKind kind, const std::string& write_path, MuxerChoice& out) {
    std::string format = options.format;
    if (format.empty() && kind == OutputKind::Stdout) format = "mpegts";
    if (format.empty() && kind == OutputKind::Network) {
        const std::string p = input_protocol(options.path);
        format = p == "rtsp" || p == "rtsps" ? "rtsp" : p == "rtmp" || p == "rtmps" ? "flv" : "mpegts";
    }
    const AVOutputFormat* ofmt = format.empty() ? av_guess_format(nullptr, options.path.c_str(), nullptr)
                                                : av_guess_format(format.c_str(), nullptr, nullptr);
    if (!ofmt && !format.empty())
        fail(ErrorCategory::Usage, "--out-format '" + format + "' is not a container FFmpeg can write (ffmpeg -muxers lists them)");
    if (!ofmt)
        fail(ErrorCategory::Usage, "cannot tell the container format from '" + options.path +
                                       "'; use an extension such as .mp4, .mkv, .mov, .avi, .ts (or --out-format)");
    AVDictionary*& mux_options = out.options;
    if (options.fragmented && is_mp4_family(ofmt)) set_fragmented(&mux_options);
    if (kind == OutputKind::Network && std::strcmp(ofmt->name, "rtsp") == 0) av_dict_set(&mux_options, "rtsp_transport", "tcp", 0);
    out.container = ofmt;
    if (options.segment_s > 0) {
        if (kind != OutputKind::File) fail(ErrorCategory::Usage, "--segment writes files; '" + options.path + "' is not a file");
        AVDictionary* inner = nullptr;
        if (options.fragmented && is_mp4_family(ofmt)) set_fragmented(&inner);
        char* inner_text = nullptr;
        av_dict_get_string(inner, &inner_text, '=', ':');
        av_dict_free(&inner);
        if (inner_text && *inner_text) av_dict_set(&mux_options, "segment_format_options", inner_text, 0);
        av_freep(&inner_text);
        av_dict_set(&mux_options, "segment_format", ofmt->name, 0);
        av_dict_set(&mux_options, "segment_time", std::to_string(options.segment_s).c_str(), 0);
        av_dict_set(&mux_options, "reset_timestamps", "1", 0);
        if (dated_pattern(write_path)) av_dict_set(&mux_options, "strftime", "1", 0);
        ofmt = av_guess_format("segment", nullptr, nullptr);
    }
    out.muxer = ofmt;
}

}  // namespace vf
