// The query of vfilter serve's preview requests (docs/serve.md): snapshot.jpg?side=input|output
// &width=W and preview.mjpg?side=...&width=W&fps=F. Any malformed, unknown, repeated or
// out-of-range parameter is refused with its reason (ServiceError 400), never guessed at.
#pragma once

#include <string>

namespace vf {

enum class PreviewSide { Input, Output };

struct PreviewQuery {
    PreviewSide side = PreviewSide::Output;
    int width = 480;  // pictures are no wider than the frames
    int fps = 5;      // preview.mjpg only
};

constexpr int kPreviewMinWidth = 16, kPreviewMaxWidth = 1920;
constexpr int kPreviewMaxFps = 10;

// raw: after '?', percent-encoded as sent. with_fps: the parameter fps is allowed.
PreviewQuery parse_preview_query(const std::string& raw, bool with_fps);

}  // namespace vf
