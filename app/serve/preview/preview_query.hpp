// The query of vfilter serve's preview requests (docs/serve.md): snapshot.jpg?side=input|output
// &width=W and preview.mjpg?side=...&width=W&fps=F. Any malformed, unknown, repeated or
// out-of-range parameter is refused with its reason (ServiceError 400), never guessed at.
#pragma once

#include <string>
#include <utility>
#include <vector>

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

// The name=value pairs of a query (raw: after '?', as sent), percent-decoded, in order, empty
// pairs skipped; ServiceError 400 for a query longer than max_length, bad percent-encoding or a
// name given twice.
std::vector<std::pair<std::string, std::string>> query_pairs(const std::string& raw, size_t max_length);
// A whole number in lo..hi for parameter `name`, or ServiceError 400 saying so.
int query_whole_number(const std::string& name, const std::string& value, int lo, int hi);

}  // namespace vf
