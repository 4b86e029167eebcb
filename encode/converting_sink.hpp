// vfilter ffmpeg's -s and -r between the filters and the output, as ffmpeg does them: frames
// scaled to WxH with libswscale as ffmpeg's scale filter sets it up (its flags, bicubic unless
// -sws_flags says otherwise; MPEG-2 chroma siting for yuv420p), then written at the output's frame
// rate as ffmpeg's video sync makes it (encode/frame_rate_sync.hpp). The sink it wraps is made for
// the frames it gives (converted_info).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "encode/frame_rate_sync.hpp"
#include "encode/sink.hpp"
#include "media/frame_pool.hpp"

namespace vf {

struct OutputConversion {
    int width = 0, height = 0;             // -s; 0: the frames' own size
    std::string scale_flags = "bicubic";   // libswscale's flags as ffmpeg's -sws_flags writes them
    AVRational rate{0, 1};                 // -r; 0: the frames' own times
    VideoSync sync = VideoSync::Passthrough;
    int64_t max_frames = 0;                // -frames:v with -r: frames written; 0: no limit
    bool filtered = true;                  // a filter chain was given (ffmpeg's duration rule)
    double duration_s = 0;                 // the output's -t or -to with -r: where it ends; 0: none
    bool any() const { return width > 0 || rate.num > 0; }
};

// What the frames of `video` become: their size and aspect ratio after -s, their time base and
// rate after -r.
VideoInfo converted_info(const VideoInfo& video, const OutputConversion& conversion);

class ConvertingSink : public Sink {
public:
    // Throws Error(Usage) naming -sws_flags when libswscale does not take the flags.
    ConvertingSink(std::unique_ptr<Sink> inner, const VideoInfo& video, const OutputConversion& conversion);
    ~ConvertingSink() override;
    void write_frame(const AVFrame* frame, Clock::time_point read_at) override;
    void write_packet(PassthroughPacket& packet) override { inner_->write_packet(packet); }
    void finish() override;
    std::string describe() const override;
    void hurry() override { inner_->hurry(); }
    void tap_packets(PacketTap* tap) override { inner_->tap_packets(tap); }

private:
    AvFramePtr scaled(const AVFrame* frame);
    void write_copy(const AVFrame* frame, int64_t pts, Clock::time_point read_at);

    std::unique_ptr<Sink> inner_;
    VideoInfo video_;
    OutputConversion conversion_;
    SwsPtr sws_;
    std::unique_ptr<FramePool> pool_;
    std::optional<FrameRateSync> sync_;
    AvFramePtr previous_;  // the last frame given, for -r's repeats
    Clock::time_point previous_read_at_{};
};

}  // namespace vf
