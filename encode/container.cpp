#include "encode/container.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include <spdlog/spdlog.h>

#include "common/error.hpp"
#include "encode/hls_output.hpp"
#include "encode/segment_series.hpp"
#include "encode/video_encoder.hpp"
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

namespace {

// Containers that hold a few video codecs only, with encoders that fit, best first. FFmpeg's own
// answer (avformat_query_codec) is used first; these decide where it cannot tell.
struct NarrowContainer {
    const char* muxer;
    const char* label;
    std::vector<AVCodecID> codecs;
    const char* codec_names;
    std::vector<const char*> encoders;
};

const std::vector<NarrowContainer>& narrow_containers() {
    static const std::vector<NarrowContainer> c = {
        {"webm", "a WebM file", {AV_CODEC_ID_VP8, AV_CODEC_ID_VP9, AV_CODEC_ID_AV1}, "VP8, VP9 or AV1",
         {"libvpx-vp9", "libvpx", "libsvtav1", "libaom-av1"}},
        {"ogg", "an Ogg file", {AV_CODEC_ID_THEORA, AV_CODEC_ID_VP8}, "Theora or VP8", {"libtheora", "libvpx"}},
        {"gif", "a GIF", {AV_CODEC_ID_GIF}, "GIF pictures", {"gif"}},
        {"apng", "an animated PNG", {AV_CODEC_ID_APNG}, "APNG pictures", {"apng"}},
    };
    return c;
}

}  // namespace

void check_codec_fits_container(const OutputOptions& options, OutputKind kind) {
    if (kind != OutputKind::File) return;
    const AVOutputFormat* ofmt = options.format.empty() ? av_guess_format(nullptr, options.path.c_str(), nullptr)
                                                        : av_guess_format(options.format.c_str(), nullptr, nullptr);
    if (!ofmt) return;  // choose_muxer says so when the output opens
    // auto encodes H.264 (NVENC or libx264).
    const AVCodec* codec = find_video_encoder(options.codec);
    const std::string what = options.codec == "auto" ? "H.264 (libx264, the default)" : std::string(codec->name);
    const NarrowContainer* narrow = nullptr;
    for (const NarrowContainer& n : narrow_containers())
        if (std::strcmp(ofmt->name, n.muxer) == 0) narrow = &n;
    const int fits = avformat_query_codec(ofmt, codec->id, FF_COMPLIANCE_NORMAL);
    const bool refused = fits == 0 ||
                         (fits < 0 && narrow && std::find(narrow->codecs.begin(), narrow->codecs.end(), codec->id) == narrow->codecs.end());
    if (!refused) return;
    std::string fix;
    if (narrow) {
        for (const char* e : narrow->encoders)
            if (avcodec_find_encoder_by_name(e)) {
                fix = std::string("add --codec ") + e + ", or name the output .mp4 or .mkv";
                break;
            }
        if (fix.empty()) fix = std::string("this FFmpeg has no encoder for ") + narrow->codec_names + ": name the output .mp4 or .mkv";
        fail(ErrorCategory::Usage, "'" + options.path + "' is " + narrow->label + ", which holds " + narrow->codec_names + ", not " +
                                       what + ": " + fix);
    }
    fail(ErrorCategory::Usage, std::string("the ") + ofmt->long_name + " container of '" + options.path + "' cannot hold " + what +
                                   ": choose another --codec, or name the output .mkv (Matroska holds nearly every codec)");
}

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
    if (std::strcmp(ofmt->name, "hls") == 0) {
        if (kind != OutputKind::File) fail(ErrorCategory::Usage, "HLS writes a playlist and segment files; '" + options.path + "' is not a file");
        if (options.segment_s > 0)
            fail(ErrorCategory::Usage, "an .m3u8 output is already cut into segments: give their length with --hls-time, not --segment");
        set_hls_options(options, write_path, &mux_options);
        out.muxer = ofmt;
        return;
    }
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
        else if (options.live && !options.overwrite) {
            const int64_t next = SegmentSeries(write_path).next_number();
            if (next > 0) {
                spdlog::info("'{}' holds segments up to number {}: this recording goes on from {}", write_path, next - 1, next);
                av_dict_set_int(&mux_options, "segment_start_number", next, 0);
            }
        }
        ofmt = av_guess_format("segment", nullptr, nullptr);
    }
    out.muxer = ofmt;
}

}  // namespace vf
