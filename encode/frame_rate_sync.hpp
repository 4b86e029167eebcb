// ffmpeg's output frame rate (-r), as ffmpeg 5.1's video sync makes it (fftools/ffmpeg.c,
// do_video_out): each frame's time in the output's time base (1 / rate) decides how many times it
// is written (0: dropped), and how many times the frame before it is repeated first. The sync
// method is ffmpeg's default for the container: constant rate (cfr; vscfr from a single-stream
// input: no copies before the first frame), variable (vfr: drops, never repeats), or passthrough
// (timestamps taken as they come).
#pragma once

#include <cstdint>
#include <vector>

#include "media/av_helpers.hpp"

namespace vf {

enum class VideoSync { Passthrough, Cfr, VsCfr, Vfr };

// ffmpeg's default for a muxer (init_output_stream_encode's VSYNC_AUTO): vfr for avi, and for
// muxers of variable frame rates (passthrough when they also keep no timestamps), cfr otherwise,
// vscfr for cfr from an input of one stream.
VideoSync default_video_sync(const AVOutputFormat* format, bool single_stream_input);

class FrameRateSync {
public:
    // rate: the output's (-r); frame_rate: the frames' as the filters give them (the input's);
    // time_base: of the frames' pts; max_frames: the most written (-frames:v; 0: no limit);
    // filtered: a filter chain was given (without one ffmpeg takes each frame's own duration);
    // duration_us: the output's -t (or -to), which ends the output once a frame's time reaches it
    // (ffmpeg's check_recording_time); 0: none.
    FrameRateSync(VideoSync sync, AVRational rate, AVRational frame_rate, AVRational time_base, int64_t max_frames, bool filtered,
                  int64_t duration_us = 0);

    // One frame to write: the previous frame again, or the current one, at `pts` (in 1 / rate).
    struct Copy {
        bool previous = false;
        int64_t pts = 0;
    };
    // The copies to write for a frame at `pts` (time_base; AV_NOPTS_VALUE: unknown) lasting
    // `duration` (time_base; 0: unknown).
    std::vector<Copy> place(int64_t pts, int64_t duration);
    // The copies of the last frame ffmpeg writes at the end.
    std::vector<Copy> flush();
    AVRational output_time_base() const { return av_inv_q(rate_); }

private:
    std::vector<Copy> emit(int64_t nb_frames, int64_t nb0_frames, bool have_current);

    VideoSync sync_;
    AVRational rate_, frame_rate_, time_base_;
    int64_t max_frames_;
    bool filtered_;
    int64_t duration_us_;
    bool closed_ = false;        // the output's duration is reached: nothing more is written
    int64_t sync_opts_ = 0;      // the next output pts (ffmpeg's ost->sync_opts)
    int64_t frame_number_ = 0;   // frames written (ffmpeg's ost->frame_number)
    int64_t last_nb0_[3] = {0, 0, 0};
    bool have_previous_ = false;
};

}  // namespace vf
