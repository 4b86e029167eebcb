#include "pipeline/progress.hpp"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstdio>

namespace vf {

ProgressReporter::ProgressReporter(const PipelineProgress& progress, const VideoInfo& video, bool enabled)
    : progress_(progress), video_(video), tty_(isatty(STDERR_FILENO)), start_(Clock::now()) {
    if (enabled) thread_ = std::thread([this] { loop(); });
}

ProgressReporter::~ProgressReporter() {
    if (!thread_.joinable()) return;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
    if (tty_ && printed_) std::fprintf(stderr, "\r\033[K");
}

void ProgressReporter::loop() {
    const auto period = tty_ ? std::chrono::milliseconds(500) : std::chrono::milliseconds(10000);
    std::unique_lock<std::mutex> lock(mutex_);
    while (!cv_.wait_for(lock, period, [&] { return stop_; })) report(false);
}

void ProgressReporter::report(bool) {
    const int64_t frames = progress_.frames_out.load();
    const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
    const double fps = elapsed > 0 ? frames / elapsed : 0;
    char line[256];
    double fraction = -1;
    if (video_.duration_s > 0) fraction = progress_.position_s.load() / video_.duration_s;
    else if (video_.expected_frames > 0) fraction = static_cast<double>(frames) / video_.expected_frames;
    if (fraction >= 0) {
        fraction = fraction > 1 ? 1 : fraction;
        const double eta = fraction > 0.001 ? elapsed * (1 - fraction) / fraction : 0;
        std::snprintf(line, sizeof line, "frame %lld  %5.1f%%  %6.1f fps  ETA %.0f s", static_cast<long long>(frames),
                      100 * fraction, fps, eta);
    } else {
        std::snprintf(line, sizeof line, "frame %lld  %6.1f fps  %.0f s", static_cast<long long>(frames), fps, elapsed);
    }
    if (tty_) {
        std::fprintf(stderr, "\r\033[K%s", line);
        std::fflush(stderr);
    } else {
        spdlog::info("progress: {}", line);
    }
    printed_ = true;
}

}  // namespace vf
