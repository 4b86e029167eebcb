// A stream's clips around its watch's events (docs/serve.md, "Clips around events"): on a thread
// of its own it reads the output encoder's packets (media/packet_tap.hpp, a reader of its own that
// loses packets rather than making the encoder wait) into a ring of the last seconds
// (media/packet_ring.hpp). When a condition of `clips.on` is entered, a clip is opened with the
// ring's packets from the keyframe at or before pre-roll seconds before the condition began (the
// event's since), goes on with the packets as they come, and is finished post-roll seconds after
// every condition it records was left, or at the cap (clips.max_s after the condition began), or
// when the output closes. Packets are remuxed, never encoded again (encode/clip_file.hpp).
// Events come from the watchers' thread (app/serve/watch/camera_watchers.hpp), which only queues
// them here; all writing is on this recorder's thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/run/clip_fields.hpp"
#include "common/metric_set.hpp"
#include "encode/clip_file.hpp"
#include "media/packet_ring.hpp"
#include "pipeline/watch/stream_watcher.hpp"

namespace vf {

struct ClipPlace {
    std::string folder;     // clips_folder(output, stream)
    std::string extension;  // clip_extension(output)
};

class ClipRecorder {
public:
    using Clock = PacketTap::Clock;
    // The ring's bound in bytes, whatever its time: a stream of huge packets keeps less pre-roll.
    static constexpr int64_t kRingBytes = 48 << 20;

    // `watch`: the stream's watch settings (the enter holds: how long before its event a condition
    // began). tap_owner keeps `tap` alive as long as this.
    ClipRecorder(std::string stream, const StreamClipFields& clips, const watch::WatchSettings& watch, ClipPlace place,
                 std::shared_ptr<void> tap_owner, PacketTap& tap);
    ~ClipRecorder();  // finishes a clip being written, stops the thread
    ClipRecorder(const ClipRecorder&) = delete;
    ClipRecorder& operator=(const ClipRecorder&) = delete;

    // An event of the stream's watch (any thread; queued, never waits).
    void on_event(const watch::WatchEvent& e);

    // {"on": [...], "written": n, "failed": n, "recording": bool, "last": "clips/NAME/..."}
    nlohmann::json describe() const;
    void collect_metrics(MetricSet& set, const std::string& stream_label) const;

private:
    void run();
    void take_packets(std::vector<PacketTap::Item>& items);
    void handle(const watch::WatchEvent& e);
    void start_clip();
    void finish_clip();
    void drop_clip(const std::string& why);
    void end_of_packets();  // the output closed or reopened, or this reader lost packets

    const std::string stream_;
    const StreamClipFields clips_;
    const ClipPlace place_;
    std::shared_ptr<void> tap_owner_;
    PacketTap& tap_;

    std::unique_ptr<PacketTap::Reader> reader_;
    // The recorder's thread alone.
    PacketRing ring_;
    uint64_t generation_ = 0;
    std::shared_ptr<const PacketFormat> format_;
    std::unique_ptr<ClipFile> clip_;
    uint32_t active_ = 0;                         // the recorded conditions entered and not left (bits)
    std::optional<watch::WatchEvent> to_start_;   // an entered event whose clip waits for a first keyframe
    std::optional<Clock::time_point> end_at_;     // every condition left: the clip ends here
    Clock::time_point cap_at_{};
    bool capped_ = false;  // the cap ended the clip: none again until every condition was left
    bool swept_ = false;   // partial clips of killed runs looked for

    mutable std::mutex mutex_;  // below
    std::vector<watch::WatchEvent> events_;
    bool stop_ = false;
    int64_t written_ = 0, failed_ = 0;
    bool recording_ = false;
    std::string last_;
    std::thread thread_;  // last: started once the rest is made
};

// How the watch's events reach a stream's clip recorder without holding it: the watchers' thread
// passes each event through while the gate is open, and the stream closes it before its recorder
// goes. close() waits for an event being passed, so the recorder ends on the thread that ends the
// stream (its clip finished and its thread joined when the stream's removal returns), never on
// the watchers' thread, which would then finish a file and join a thread while every other
// stream's watch waited.
class ClipEventGate {
public:
    using Target = std::function<void(const watch::WatchEvent&)>;
    explicit ClipEventGate(Target to) : to_(std::move(to)) {}
    void pass(const watch::WatchEvent& e) {  // any thread; nothing once closed
        std::lock_guard<std::mutex> lock(mutex_);
        if (to_) to_(e);
    }
    void close() {  // returns once no event is being passed, nor will be
        std::lock_guard<std::mutex> lock(mutex_);
        to_ = nullptr;
    }

private:
    std::mutex mutex_;
    Target to_;  // ClipRecorder::on_event queues and returns: the lock is held only that long
};

}  // namespace vf
