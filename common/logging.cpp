#include "common/logging.hpp"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "common/redact.hpp"


namespace vf {
namespace {

thread_local std::string t_log_stream;

// One JSON object per line: {"time": ..., "level": ..., "msg": ...}; the message is escaped.
class JsonFormatter : public spdlog::formatter {
public:
    void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
        const auto t = std::chrono::duration_cast<std::chrono::milliseconds>(msg.time.time_since_epoch()).count();
        nlohmann::json j;
        j["time_ms"] = t;
        j["level"] = std::string(spdlog::level::to_string_view(msg.level).data(),
                                 spdlog::level::to_string_view(msg.level).size());
        j["msg"] = std::string(msg.payload.data(), msg.payload.size());
        const std::string line = j.dump() + "\n";
        dest.append(line.data(), line.data() + line.size());
    }
    std::unique_ptr<spdlog::formatter> clone() const override { return std::make_unique<JsonFormatter>(); }
};

// Any formatter's line with credentials redacted (common/redact.hpp): FFmpeg's own messages pass
// through here too.
class RedactingFormatter : public spdlog::formatter {
public:
    explicit RedactingFormatter(std::unique_ptr<spdlog::formatter> inner) : inner_(std::move(inner)) {}
    void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
        spdlog::memory_buf_t line;
        if (t_log_stream.empty()) {
            inner_->format(msg, line);
        } else {
            const std::string payload = "[" + t_log_stream + "] " + std::string(msg.payload.data(), msg.payload.size());
            spdlog::details::log_msg named = msg;
            named.payload = spdlog::string_view_t(payload.data(), payload.size());
            inner_->format(named, line);
        }
        const std::string clean = redact_credentials(std::string_view(line.data(), line.size()));
        dest.append(clean.data(), clean.data() + clean.size());
    }
    std::unique_ptr<spdlog::formatter> clone() const override { return std::make_unique<RedactingFormatter>(inner_->clone()); }

private:
    std::unique_ptr<spdlog::formatter> inner_;
};

}  // namespace

void set_log_stream(const std::string& name) { t_log_stream = name; }
const std::string& log_stream() { return t_log_stream; }

void setup_logging(int verbosity, LogFormat format) {
    auto logger = std::make_shared<spdlog::logger>("vfilter", std::make_shared<spdlog::sinks::stderr_sink_mt>());
    std::unique_ptr<spdlog::formatter> inner;
    if (format == LogFormat::Json) inner = std::make_unique<JsonFormatter>();
    else inner = std::make_unique<spdlog::pattern_formatter>("vfilter: %^%l%$: %v");
    logger->set_formatter(std::make_unique<RedactingFormatter>(std::move(inner)));
    spdlog::level::level_enum level = spdlog::level::info;
    if (verbosity < 0) level = spdlog::level::err;
    if (verbosity == 1) level = spdlog::level::debug;
    if (verbosity >= 2) level = spdlog::level::trace;
    logger->set_level(level);
    spdlog::set_default_logger(logger);
}

}  // namespace vf
