#include "gst/log_bridge.hpp"

#include <gst/gst.h>
#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>

#include <memory>
#include <mutex>
#include <string>

#include "media/av_helpers.hpp"

GST_DEBUG_CATEGORY_STATIC(vf_log_debug);

namespace vf {

namespace {

class GstDebugSink : public spdlog::sinks::base_sink<std::mutex> {
protected:
    void sink_it_(const spdlog::details::log_msg& msg) override {
        GstDebugLevel level = GST_LEVEL_DEBUG;
        switch (msg.level) {
        case spdlog::level::critical:
        case spdlog::level::err: level = GST_LEVEL_ERROR; break;
        case spdlog::level::warn: level = GST_LEVEL_WARNING; break;
        case spdlog::level::info: level = GST_LEVEL_INFO; break;
        default: break;
        }
        const std::string text(msg.payload.data(), msg.payload.size());
        GST_CAT_LEVEL_LOG(vf_log_debug, level, nullptr, "%s", text.c_str());
    }
    void flush_() override {}
};

}  // namespace

void log_to_gstreamer() {
    GST_DEBUG_CATEGORY_INIT(vf_log_debug, "vfilter-engine", 0, "vfilter's own log (the filter engine, FFmpeg)");
    auto logger = std::make_shared<spdlog::logger>("vfilter", std::make_shared<GstDebugSink>());
    logger->set_level(spdlog::level::debug);
    spdlog::set_default_logger(logger);
    route_ffmpeg_logs_to_spdlog(0);
}

}  // namespace vf
