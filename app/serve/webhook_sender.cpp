#include "app/serve/webhook_sender.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <random>

#include "common/error.hpp"
#include "common/hmac.hpp"
#include "common/metric_set.hpp"
#include "common/redact.hpp"
#include "common/thread_name.hpp"

namespace vf {

WebhookTarget parse_webhook_url(const std::string& url, const std::string& option) {
    const size_t scheme_end = url.find("://");
    const size_t path_at = scheme_end == std::string::npos ? std::string::npos : url.find('/', scheme_end + 3);
    const std::string origin = path_at == std::string::npos ? url : url.substr(0, path_at);
    WebhookTarget t;
    std::string why;
    if (!parse_http_address(origin, &t.to, &why))
        fail(ErrorCategory::Usage, option + ": '" + redact_credentials(url) + "': " + why + " (expected http:// or https://HOST[:PORT][/PATH])");
    if (path_at != std::string::npos) t.target = url.substr(path_at);
    const bool printable = std::all_of(t.target.begin(), t.target.end(), [](char c) { return c > 0x20 && c < 0x7f; });
    if (!printable || t.target.find('#') != std::string::npos)
        fail(ErrorCategory::Usage, option + ": the path must be printable ASCII without spaces or a fragment (#)");
    return t;
}

std::string webhook_signature(const std::string& secret, const std::string& timestamp, const std::string& body) {
    return "sha256=" + hmac_sha256_hex(secret, timestamp + "." + body);
}

namespace {

// This process's events among every process's that post to one receiver (ids start at 1 in each).
std::string random_instance() {
    std::random_device rd;
    unsigned char bytes[8];
    for (unsigned char& b : bytes) b = static_cast<unsigned char>(rd());
    return hex_of(bytes, sizeof bytes);
}

}  // namespace

WebhookSender::WebhookSender(WebhookSettings settings)
    : settings_(std::move(settings)), target_(parse_webhook_url(settings_.url, "webhook")), instance_(random_instance()) {
    thread_ = std::thread([this] { run(); });
}

WebhookSender::~WebhookSender() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;
    }
    call_stop_.stop();
    wake_.notify_all();
    thread_.join();
}

void WebhookSender::send(nlohmann::json event) {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!event.is_object()) return;
        if (!event.contains("id")) event["id"] = next_id_++;
        event["instance"] = instance_;  // with the id, what a receiver takes once
        if (queue_.size() >= settings_.max_queued) {
            queue_.pop_front();  // the oldest: a receiver down for long gets the latest
            ++counts_.dropped;
        }
        queue_.push_back(std::move(event));
    }
    wake_.notify_all();
}

WebhookSender::Counts WebhookSender::counts() const {
    std::lock_guard<std::mutex> lock(mutex_);
    Counts c = counts_;
    c.queued = queue_.size();
    return c;
}

WebhookSender::Try WebhookSender::deliver(const nlohmann::json& event) {
    const std::string body = event.dump();
    const std::string timestamp = std::to_string(std::chrono::duration_cast<std::chrono::seconds>(
                                                     std::chrono::system_clock::now().time_since_epoch()).count());
    HttpCall call;
    call.to = target_.to;
    call.method = "POST";
    call.target = target_.target;
    call.body = body;
    call.content_type = "application/json";
    call.trust = settings_.trust;
    call.connect_timeout_ms = 2000;
    call.total_timeout_ms = 10000;      // a receiver that hangs holds the queue this long at most
    call.max_body_bytes = 64 * 1024;    // its answer is not read beyond its status
    call.headers = {{"X-Vfilter-Timestamp", timestamp},
                    {"X-Vfilter-Event", instance_ + ":" + event["id"].dump()},
                    {"X-Vfilter-Signature", webhook_signature(settings_.secret, timestamp, body)}};
    const HttpReply r = http_call(call, &call_stop_);
    if (r.status >= 200 && r.status < 300) return Try::Taken;
    // A refusal that trying again cannot change (a wrong path, a signature refused): given up
    // now, so that the events behind it do not wait.
    const bool final = r.status >= 400 && r.status < 500 && r.status != 408 && r.status != 429;
    return final ? Try::Refused : Try::Failed;
}

// In order: the event at the head is tried until taken or given up, with a growing wait between tries.
void WebhookSender::run() {
    name_this_thread("vf-webhook");
    std::unique_lock<std::mutex> lock(mutex_);
    while (!stopping_) {
        if (queue_.empty()) {
            wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
            continue;
        }
        const nlohmann::json event = queue_.front();
        const auto first_try = std::chrono::steady_clock::now();
        auto wait = settings_.first_retry;
        bool taken = false;
        for (;;) {
            lock.unlock();
            const Try t = deliver(event);
            lock.lock();
            taken = t == Try::Taken;
            if (taken || t == Try::Refused || stopping_) break;
            if (std::chrono::steady_clock::now() + wait - first_try > settings_.give_up_after) break;
            ++counts_.retries;
            wake_.wait_for(lock, wait, [this] { return stopping_; });
            if (stopping_) break;
            wait = std::min(wait * 2, settings_.longest_retry);
        }
        if (stopping_) break;
        if (taken) ++counts_.delivered;
        else {
            ++counts_.given_up;
            spdlog::warn("webhook {}: event {} given up (refused, or not taken within {} s)", target_.to.url(), event["id"].dump(),
                         std::chrono::duration_cast<std::chrono::seconds>(settings_.give_up_after).count());
        }
        // The head may have been dropped for room meanwhile: take it off only if it is still this one.
        if (!queue_.empty() && queue_.front() == event) queue_.pop_front();
    }
}

void WebhookSender::collect_metrics(MetricSet& set) const {
    const Counts c = counts();
    set.add("vfilter_webhook_delivered_total", "counter", "Events the webhook's receiver took.", static_cast<double>(c.delivered));
    set.add("vfilter_webhook_retries_total", "counter", "Tries of an event again after the receiver failed.", static_cast<double>(c.retries));
    set.add("vfilter_webhook_given_up_total", "counter", "Events never taken within the time allowed.", static_cast<double>(c.given_up));
    set.add("vfilter_webhook_dropped_total", "counter", "Events dropped because the queue was full.", static_cast<double>(c.dropped));
    set.add("vfilter_webhook_queued", "gauge", "Events waiting to be sent.", static_cast<double>(c.queued));
}

}  // namespace vf
