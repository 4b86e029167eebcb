#include "app/serve/preview/live_video.hpp"

#include <spdlog/spdlog.h>

#include "app/serve/service_error.hpp"
#include "encode/live_fmp4.hpp"

namespace vf {
namespace {

constexpr size_t kMaxFragmentsKept = 600;  // fragments kept since the last keyframe (20 s at 30 fps)
constexpr double kGopS = 2.0;              // a keyframe every 2 s besides those viewers ask for

int64_t steady_ms(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

// A steady-clock time in milliseconds as Unix time in milliseconds (what the page's clock reads).
int64_t unix_ms_of(int64_t steady) {
    const auto now_steady = steady_ms(std::chrono::steady_clock::now());
    const auto now_unix = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
    return now_unix - (now_steady - steady);
}

}  // namespace

// One side and width: its encoder thread, the init segment and the fragments since the last
// keyframe, shared by its viewers.
class LiveChannel {
public:
    struct Kept {
        uint64_t seq;
        LiveMessage message;
    };

    // Frames encoded at `width`, or (packets) the output encoder's packets as they are.
    LiveChannel(FrameTap& tap, int width, EncoderBudget* budget) : tap_(&tap), width_(width), budget_(budget) {}
    explicit LiveChannel(PacketTap& packets) : packets_(&packets), width_(0) {}
    bool passthrough() const { return packets_ != nullptr; }
    ~LiveChannel() {
        close();
        if (thread_.joinable()) thread_.join();
    }

    // Returns the fragment before the one the new viewer starts at: for an encoder, the last one
    // made (it starts at the keyframe this asks for); for packets, the one before the last
    // keyframe kept (no keyframe can be asked of the output's encoder).
    // Throws ServiceError(503) when its encoder would start and the process's budget is spent.
    uint64_t add_viewer() {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!running_ && !closed_ && !passthrough() && budget_ && !budget_->take(&place_))
            throw ServiceError(503, std::to_string(budget_->places()) + " preview encoders run already in this serve "
                                    "(serve: max-preview-encoders); watch a stream at a width already watched, or later");
        ++viewers_;
        keyframe_asked_ = true;
        if (!running_ && !closed_) {
            if (thread_.joinable()) thread_.join();  // the last run, which has ended or is ending
            running_ = true;
            thread_ = std::thread([this] { passthrough() ? run_packets() : run(); });
        }
        if (passthrough() && !kept_.empty() && kept_.front().message.keyframe) return kept_.front().seq - 1;
        return last_seq();
    }
    void remove_viewer() {
        std::lock_guard<std::mutex> lock(mutex_);
        --viewers_;
    }
    void close() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            closed_ = true;
        }
        changed_.notify_all();
    }
    int viewers() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return viewers_;
    }
    bool running() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return running_;
    }
    int64_t made() const { return made_.load(); }

    std::mutex& mutex() { return mutex_; }
    std::condition_variable& changed() { return changed_; }
    // Under mutex():
    bool closed() const { return closed_; }
    int init_generation() const { return init_generation_; }
    const LiveMessage& init() const { return init_; }
    const std::deque<Kept>& kept() const { return kept_; }
    uint64_t last_seq() const { return kept_.empty() ? sent_before_ : kept_.back().seq; }

private:
    // Under mutex_: whether the thread should end (nobody watches, or closed).
    bool ending() {
        if (viewers_ > 0 && !closed_) return false;
        running_ = false;
        place_.reset();  // the encoder stops: its place goes back to the process's budget
        return true;
    }
    void failed(const std::exception& e) {
        spdlog::warn("live video: {}", e.what());
        std::lock_guard<std::mutex> lock(mutex_);
        running_ = false;
        place_.reset();
        closed_ = true;  // this side and width shows nothing more; its viewers finish
        changed_.notify_all();
    }
    // Under mutex_: a new init segment; viewers start again from the next keyframe.
    void publish_init(const std::string& bytes, const std::string& codec, int width, int height) {
        ++init_generation_;
        init_.init = true;
        init_.bytes = bytes;
        init_.codec = codec;
        init_.width = width;
        init_.height = height;
        sent_before_ = last_seq();
        kept_.clear();
    }
    // Under mutex_.
    void publish(std::vector<LiveFragment>& fragments) {
        for (LiveFragment& f : fragments) {
            if (f.keyframe || kept_.size() >= kMaxFragmentsKept) {
                sent_before_ = last_seq();
                kept_.clear();
            }
            LiveMessage m;
            m.bytes = std::move(f.bytes);
            m.keyframe = f.keyframe;
            m.pts_ms = f.pts_ms;
            m.arrived_ms = unix_ms_of(f.taken_ms);
            kept_.push_back({++seq_, std::move(m)});
            ++made_;
        }
    }

    // The output encoder's packets, as they are.
    void run_packets() {
        const std::unique_ptr<PacketTap::Reader> reader = packets_->attach();
        std::unique_ptr<LiveFmp4Writer> writer;
        uint64_t generation = 0;
        bool synced = false;  // a keyframe was written: the packets after it decode
        for (;;) {
            {
                std::lock_guard<std::mutex> lock(mutex_);
                if (ending()) break;
            }
            bool lost = false;
            std::vector<PacketTap::Item> items = reader->take(std::chrono::milliseconds(500), &lost);
            const std::shared_ptr<const PacketFormat> format = packets_->format();
            if (!format || items.empty()) continue;
            std::vector<LiveFragment> fragments;
            try {
                if (!writer || format->generation != generation) {
                    writer = std::make_unique<LiveFmp4Writer>(*format->parameters, format->time_base);
                    generation = format->generation;
                    synced = false;
                    std::lock_guard<std::mutex> lock(mutex_);
                    publish_init(writer->init_segment(), writer->codec(), format->parameters->width, format->parameters->height);
                }
                if (lost) synced = false;
                for (PacketTap::Item& item : items) {
                    if (!synced && !(item.packet->flags & AV_PKT_FLAG_KEY)) continue;
                    synced = true;
                    for (LiveFragment& f : writer->write(*item.packet, steady_ms(item.read_at))) fragments.push_back(std::move(f));
                }
            } catch (const std::exception& e) {
                failed(e);
                return;
            }
            {
                std::lock_guard<std::mutex> lock(mutex_);
                publish(fragments);
            }
            if (!fragments.empty()) changed_.notify_all();
        }
    }

    // Frames, encoded at width_.
    void run() {
        LiveFmp4Encoder encoder(width_, kGopS);
        for (;;) {
            {
                std::lock_guard<std::mutex> lock(mutex_);
                if (ending()) return;
                if (keyframe_asked_) encoder.request_keyframe();
                keyframe_asked_ = false;
            }
            FrameTap::Clock::time_point read_at;
            AvFramePtr frame = tap_->next(std::chrono::milliseconds(500), &read_at);
            if (!frame) continue;
            std::vector<LiveFragment> fragments;
            try {
                fragments = encoder.encode(*frame, steady_ms(read_at));
            } catch (const std::exception& e) {
                failed(e);
                return;
            }
            frame.reset();  // the pipeline's buffer goes back at once
            {
                std::lock_guard<std::mutex> lock(mutex_);
                if (encoder.init_generation() != encoder_generation_) {
                    encoder_generation_ = encoder.init_generation();
                    publish_init(encoder.init_segment(), encoder.codec(), encoder.width(), encoder.height());
                }
                publish(fragments);
            }
            if (!fragments.empty()) changed_.notify_all();
        }
    }

    FrameTap* tap_ = nullptr;
    PacketTap* packets_ = nullptr;
    const int width_;
    EncoderBudget* budget_ = nullptr;  // the process's preview encoders; null: no limit
    std::shared_ptr<void> place_;      // held while the encoder runs
    int encoder_generation_ = 0;
    mutable std::mutex mutex_;
    std::condition_variable changed_;
    std::thread thread_;
    int viewers_ = 0;
    bool running_ = false, closed_ = false, keyframe_asked_ = false;
    LiveMessage init_;
    int init_generation_ = 0;
    std::deque<Kept> kept_;  // from the last keyframe on (or the last kMaxFragmentsKept)
    uint64_t seq_ = 0, sent_before_ = 0;
    std::atomic<int64_t> made_{0};
};

LiveVideo::Viewer::Viewer(std::shared_ptr<LiveChannel> channel) : channel_(std::move(channel)) {
    seen_ = channel_->add_viewer();  // start at the keyframe asked for, not at an older one
}

LiveVideo::Viewer::~Viewer() { channel_->remove_viewer(); }

bool LiveVideo::Viewer::ended() const {
    std::lock_guard<std::mutex> lock(channel_->mutex());
    return channel_->closed();
}

std::vector<LiveMessage> LiveVideo::Viewer::next(std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(channel_->mutex());
    LiveChannel& c = *channel_;
    const auto news = [&] {
        return c.closed() || (c.init_generation() != init_sent_ && c.init_generation() > 0) || c.last_seq() > seen_;
    };
    c.changed().wait_for(lock, timeout, news);
    std::vector<LiveMessage> out;
    if (c.init_generation() != init_sent_ && c.init_generation() > 0) {
        out.push_back(c.init());
        init_sent_ = c.init_generation();
        started_ = false;
    }
    const std::deque<LiveChannel::Kept>& kept = c.kept();
    // Fragments missed (this viewer read too slowly, or a new picture size): on from the first
    // keyframe kept, which the deque starts with.
    if (started_ && !kept.empty() && kept.front().seq > seen_ + 1) started_ = false;
    for (const LiveChannel::Kept& k : kept) {
        if (k.seq <= seen_ && started_) continue;
        if (!started_) {
            if (!k.message.keyframe || k.seq <= seen_) continue;
            started_ = true;
        }
        out.push_back(k.message);
        seen_ = k.seq;
    }
    return out;
}

LiveVideo::~LiveVideo() { close(); }

std::unique_ptr<LiveVideo::Viewer> LiveVideo::watch(PreviewSide side, int width) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (closed_) throw ServiceError(404, "the stream has ended");
    // Channels nobody watches any more are let go (their threads have ended or are ending).
    for (auto it = channels_.begin(); it != channels_.end();) {
        if (it->second->viewers() == 0 && !it->second->running()) {
            retired_made_ += it->second->made();
            it = channels_.erase(it);
        } else {
            ++it;
        }
    }
    // The output's own packets where they are H.264 and at least as wide as asked (width 0 keys them).
    const std::shared_ptr<const PacketFormat> own = side == PreviewSide::Output ? packets_.format() : nullptr;
    const bool passthrough = own && own->h264_with_extradata() && width >= own->parameters->width;
    const std::pair<int, int> key{static_cast<int>(side), passthrough ? 0 : width};
    auto it = channels_.find(key);
    if (it == channels_.end() && passthrough) {
        it = channels_.emplace(key, std::make_shared<LiveChannel>(packets_)).first;
    } else if (it == channels_.end()) {
        int widths = 0;
        for (const auto& [k, c] : channels_) widths += k.first == key.first;
        if (widths >= kMaxWidths)
            throw ServiceError(503, std::to_string(kMaxWidths) + " widths of this side are being watched already; ask for one of those");
        it = channels_.emplace(key, std::make_shared<LiveChannel>(side == PreviewSide::Input ? input_ : output_, width, budget_)).first;
    }
    return std::unique_ptr<Viewer>(new Viewer(it->second));
}

void LiveVideo::close() {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
    for (auto& [k, c] : channels_) c->close();
}

int LiveVideo::encoders_running() const {
    std::lock_guard<std::mutex> lock(mutex_);
    int n = 0;
    for (const auto& [k, c] : channels_) n += c->running() && !c->passthrough();
    return n;
}

int LiveVideo::passthrough_running() const {
    std::lock_guard<std::mutex> lock(mutex_);
    int n = 0;
    for (const auto& [k, c] : channels_) n += c->running() && c->passthrough();
    return n;
}

int LiveVideo::viewers() const {
    std::lock_guard<std::mutex> lock(mutex_);
    int n = 0;
    for (const auto& [k, c] : channels_) n += c->viewers();
    return n;
}

int64_t LiveVideo::fragments_made() const {
    std::lock_guard<std::mutex> lock(mutex_);
    int64_t n = retired_made_;
    for (const auto& [k, c] : channels_) n += c->made();
    return n;
}

}  // namespace vf
