#include "app/serve/watch/clip_recorder.hpp"

#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <regex>

#include "common/logging.hpp"
#include "common/thread_name.hpp"

namespace vf {

namespace {

namespace fs = std::filesystem;
using Clock = ClipRecorder::Clock;

// A time of the watch (seconds on the steady clock: EventLog::steady_seconds) as a time point.
Clock::time_point steady_at(double seconds) {
    return Clock::time_point(std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds)));
}

Clock::duration seconds(double s) { return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s)); }

// How long before its event a recorded condition may have begun: its enter hold (at most 30 s of
// it is kept), and a second for the watch's own lag (a measurement's interval, its visit).
double event_lag_s(const StreamClipFields& clips, const watch::WatchSettings& settings) {
    double hold = 0;
    for (const watch::Condition c : clips.on)
        hold = std::max(hold, watch::resolve_hysteresis(c, settings.of(c), watch::default_hysteresis(c)).enter_hold_s);
    return std::min(hold, 30.0) + 1;
}

uint32_t bit(watch::Condition c) { return 1u << static_cast<int>(c); }

// A clip's partial file left by a process that was killed while writing it: named as clips are
// (clip_file_name, then ".partial"), in the stream's clip folder, a regular file (not a link), and
// untouched for longer than any clip in progress goes without a write. Neither retention nor the
// listing count those, so without this a serve killed again and again would fill its disk.
void remove_stale_partials(const std::string& folder) {
    const std::regex partial("[0-9]{8}T[0-9]{6}Z-[a-z]+(-[0-9]+)?\\.(mp4|mov|mkv)\\.partial");
    const auto stale_before = fs::file_time_type::clock::now() - std::chrono::minutes(10);
    std::error_code ec;
    for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
        std::error_code e;
        if (!std::regex_match(it->path().filename().string(), partial) || !it->is_regular_file(e) || it->is_symlink(e)) continue;
        if (it->last_write_time(e) < stale_before && !e && fs::remove(it->path(), e))
            spdlog::warn("clip '{}' was left unfinished by an earlier run; removed", it->path().string());
    }
}

// clips/ and the stream's folder below it, each made if missing (mkdir never follows a link at
// the name it makes); false when one is a symbolic link or not a folder, or the recording's own
// folder is not there (like the recording, clips never make it): clips are never written, nor a
// folder made, through a link.
bool make_folder(const std::string& folder, std::string* why) {
    for (const fs::path& p : {fs::path(folder).parent_path(), fs::path(folder)}) {
        struct stat st {};
        if ((::mkdir(p.c_str(), 0777) != 0 && errno != EEXIST) || ::lstat(p.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
            *why = "'" + p.string() + "' is not a folder vfilter may write clips into";
            return false;
        }
    }
    return true;
}

}  // namespace

ClipRecorder::ClipRecorder(std::string stream, const StreamClipFields& clips, const watch::WatchSettings& watch, ClipPlace place,
                           std::shared_ptr<void> tap_owner, PacketTap& tap)
    : stream_(std::move(stream)), clips_(clips), place_(std::move(place)), tap_owner_(std::move(tap_owner)), tap_(tap),
      reader_(tap_.attach()), ring_(seconds(clips.pre_roll_s + event_lag_s(clips, watch)), kRingBytes),
      thread_([this] { run(); }) {}

ClipRecorder::~ClipRecorder() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
    }
    thread_.join();  // within a take's wait
}

void ClipRecorder::on_event(const watch::WatchEvent& e) {
    if (!clips_.records(e.kind)) return;
    std::lock_guard<std::mutex> lock(mutex_);
    events_.push_back(e);  // handled within a take's wait
}

void ClipRecorder::run() {
    name_this_thread("vf-clips");
    set_log_stream(stream_);
    for (;;) {
        bool lost = false;
        std::vector<PacketTap::Item> items = reader_->take(std::chrono::milliseconds(100), &lost);
        const std::shared_ptr<const PacketFormat> format = tap_.format();
        std::vector<watch::WatchEvent> events;
        bool stop = false;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            events.swap(events_);
            stop = stop_;
        }
        if (lost && clip_) spdlog::warn("the clip writer fell behind the stream and lost packets: its clip ends here");
        if (lost || !format || format->generation != generation_) {
            end_of_packets();
            generation_ = format ? format->generation : 0;
            format_ = format;
        }
        if (format_) take_packets(items);
        for (const watch::WatchEvent& e : events) handle(e);
        if (to_start_ && !ring_.empty()) start_clip();
        // A stream that stalls after every condition was left ends its clip all the same.
        if (clip_ && end_at_ && Clock::now() > *end_at_ + std::chrono::seconds(2)) finish_clip();
        if (stop) break;
    }
    end_of_packets();
}

void ClipRecorder::take_packets(std::vector<PacketTap::Item>& items) {
    for (PacketTap::Item& item : items) {
        if (clip_) {
            if ((end_at_ && item.read_at > *end_at_) || item.read_at > cap_at_) {
                capped_ = !end_at_;
                finish_clip();
            } else {
                try {
                    clip_->write(*item.packet);
                } catch (const std::exception& e) {
                    drop_clip(e.what());
                }
            }
        }
        ring_.push(std::move(item));
    }
}

void ClipRecorder::handle(const watch::WatchEvent& e) {
    if (e.entered) {
        active_ |= bit(e.kind);
        if (clip_) {
            end_at_.reset();  // another condition holds it open
        } else if (!capped_ && !to_start_) {
            to_start_ = e;
            if (!ring_.empty()) start_clip();  // else at the first keyframe
        }
        return;
    }
    active_ &= ~bit(e.kind);
    if (active_ != 0) return;
    capped_ = false;
    if (clip_) end_at_ = steady_at(e.time) + seconds(clips_.post_roll_s);
    else if (to_start_) to_start_.reset();  // left before a packet came: nothing to show
}

void ClipRecorder::start_clip() {
    const watch::WatchEvent e = *to_start_;
    to_start_.reset();
    const Clock::time_point began = steady_at(e.since);
    const double began_unix = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count() -
                              std::chrono::duration<double>(Clock::now() - began).count();
    const std::string name = clip_file_name(began_unix, watch::condition_name(e.kind), place_.extension);
    std::string why;
    try {
        if (!make_folder(place_.folder, &why)) throw std::runtime_error(why);
        if (!swept_) {  // once a run, when its first clip starts
            remove_stale_partials(place_.folder);
            swept_ = true;
        }
        clip_ = std::make_unique<ClipFile>(place_.folder + "/" + name, *format_);
        for (PacketTap::Item& item : ring_.since(began - seconds(clips_.pre_roll_s))) clip_->write(*item.packet);
    } catch (const std::exception& ex) {
        drop_clip(ex.what());
        return;
    }
    cap_at_ = began + seconds(clips_.max_s);
    end_at_.reset();
    std::lock_guard<std::mutex> lock(mutex_);
    recording_ = true;
}

void ClipRecorder::finish_clip() {
    if (!clip_) return;
    try {
        const std::string kept = clip_->finish();
        spdlog::info("clip '{}' written ({} packets)", kept, clip_->packets());
        std::lock_guard<std::mutex> lock(mutex_);
        ++written_;
        recording_ = false;
        last_ = "clips/" + stream_ + "/" + fs::path(kept).filename().string();
    } catch (const std::exception& e) {
        drop_clip(e.what());
        return;
    }
    clip_.reset();
    end_at_.reset();
}

void ClipRecorder::drop_clip(const std::string& why) {
    spdlog::warn("a clip was not written: {}", why);
    clip_.reset();  // its partial file is removed
    end_at_.reset();
    std::lock_guard<std::mutex> lock(mutex_);
    ++failed_;
    recording_ = false;
}

void ClipRecorder::end_of_packets() {
    finish_clip();
    ring_.clear();
}

nlohmann::json ClipRecorder::describe() const {
    nlohmann::json on = nlohmann::json::array();
    for (const watch::Condition c : clips_.on) on.push_back(watch::condition_name(c));
    std::lock_guard<std::mutex> lock(mutex_);
    return {{"on", on}, {"written", written_}, {"failed", failed_}, {"recording", recording_}, {"last", last_}};
}

void ClipRecorder::collect_metrics(MetricSet& set, const std::string& stream_label) const {
    std::lock_guard<std::mutex> lock(mutex_);
    set.add("vfilter_clips_written_total", "counter", "Clips around events written (docs/serve.md, clips around events).",
            static_cast<double>(written_), stream_label);
    set.add("vfilter_clips_failed_total", "counter", "Clips around events begun and not written (the log says why).",
            static_cast<double>(failed_), stream_label);
    set.add("vfilter_clip_recording", "gauge", "1 while a clip around an event is being written.", recording_ ? 1 : 0, stream_label);
}

}  // namespace vf
