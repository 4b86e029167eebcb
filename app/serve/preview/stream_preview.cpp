#include "app/serve/preview/stream_preview.hpp"

#include "encode/jpeg_encoder.hpp"

namespace vf {
namespace {
constexpr size_t kMaxPicturesKept = 6;  // pictures kept per stream (sides x widths in use)
}

std::optional<PreviewPicture> StreamPreview::picture(PreviewSide side, int width) {
    const std::pair<int, int> key{static_cast<int>(side), width};
    const auto recent = [&]() -> std::optional<PreviewPicture> {
        std::lock_guard<std::mutex> lock(kept_mutex_);
        const auto it = kept_.find(key);
        if (it != kept_.end() && std::chrono::steady_clock::now() - it->second.made < kMinInterval) return it->second.picture;
        return std::nullopt;
    };
    if (auto p = recent()) return p;
    std::lock_guard<std::mutex> encoding(encode_mutex_);
    if (auto p = recent()) return p;  // another watcher made it meanwhile
    AvFramePtr frame = tap(side).next(kFrameWait);
    if (!frame) {
        std::lock_guard<std::mutex> lock(kept_mutex_);
        const auto it = kept_.find(key);
        if (it == kept_.end()) return std::nullopt;
        PreviewPicture old = it->second.picture;
        old.fresh = false;
        return old;
    }
    Kept k;
    k.picture.jpeg = encode_jpeg(*frame, width);
    frame.reset();  // the pipeline's buffer goes back before the lock is taken
    std::lock_guard<std::mutex> lock(kept_mutex_);
    k.picture.sequence = ++sequence_;
    k.picture.fresh = true;
    k.made = std::chrono::steady_clock::now();
    ++made_;
    if (kept_.size() >= kMaxPicturesKept && !kept_.count(key)) {
        auto oldest = kept_.begin();
        for (auto it = kept_.begin(); it != kept_.end(); ++it)
            if (it->second.made < oldest->second.made) oldest = it;
        kept_.erase(oldest);
    }
    kept_[key] = k;
    return k.picture;
}

void StreamPreview::close() {
    live_.close();
    input_.close();
    output_.close();
}

int64_t StreamPreview::pictures_made() const {
    std::lock_guard<std::mutex> lock(kept_mutex_);
    return made_;
}

}  // namespace vf
