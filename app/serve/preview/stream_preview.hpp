// The pictures of one served stream for its preview (snapshot.jpg, preview.mjpg, the page):
// frames are taken from the pipeline only while someone asks (media/frame_tap.hpp), scaled down
// and encoded as JPEG on the asking thread, never on the stream's. However many watch, a side and
// width gets at most one new picture per kMinInterval; others get that picture again.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "app/serve/preview/live_video.hpp"
#include "app/serve/preview/preview_query.hpp"
#include "media/frame_tap.hpp"

namespace vf {

struct PreviewPicture {
    std::string jpeg;
    uint64_t sequence = 0;  // grows with every new picture of the stream
    bool fresh = false;     // made from a frame that just passed, not kept from before
};

class StreamPreview {
public:
    static constexpr std::chrono::milliseconds kMinInterval{50};  // below preview.mjpg's 10 a second
    static constexpr std::chrono::milliseconds kFrameWait{1000};  // then the last picture is shown

    explicit StreamPreview(EncoderBudget* encoders = nullptr) : live_(input_, output_, packets_, encoders) {}
    FrameTap& tap(PreviewSide side) { return side == PreviewSide::Input ? input_ : output_; }
    PacketTap& packets() { return packets_; }  // the output encoder's, for live video
    // The picture of `side` at `width`: of the next frame to pass (waiting up to kFrameWait), or
    // the last one made when no frame comes (a camera reconnecting); nothing when there never was
    // one. Throws Error(Internal) when FFmpeg cannot encode it.
    std::optional<PreviewPicture> picture(PreviewSide side, int width);
    void close();  // the stream ended: no frames will come
    int64_t pictures_made() const;
    LiveVideo& live() { return live_; }  // the stream as video (live.mp4, the page)

private:
    struct Kept {
        PreviewPicture picture;
        std::chrono::steady_clock::time_point made;
    };
    FrameTap input_, output_;
    PacketTap packets_;
    LiveVideo live_;  // after the taps it reads: destroyed before them
    std::mutex encode_mutex_;  // one picture made at a time per stream, so watchers share them
    mutable std::mutex kept_mutex_;
    std::map<std::pair<int, int>, Kept> kept_;  // by (side, width); a few entries
    uint64_t sequence_ = 0;
    int64_t made_ = 0;
};

}  // namespace vf
