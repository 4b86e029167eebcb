// The page of `vfilter serve` (app/serve/web/: HTML, CSS and JavaScript, no build chain), compiled into
// the binary by cmake/embed_web_assets.cmake and served at / by the control API.
#pragma once

#include <string>
#include <string_view>

namespace vf {

struct WebAsset {
    const char* path;          // "/index.html", "/app.js", ...
    const char* content_type;
    std::string_view body;
};

// The asset at `path` ("/" is "/index.html"), or null.
const WebAsset* find_web_asset(const std::string& path);

}  // namespace vf
