// serve's events (app/serve: a camera's conditions, docs/serve.md) sent to a webhook: each an HTTP
// POST of its JSON, in order, signed so that the receiver can tell them from forgeries:
//   X-Vfilter-Timestamp: unix seconds       X-Vfilter-Event: INSTANCE:ID (repeated on a retry)
//   X-Vfilter-Signature: sha256=HEX, HEX = HMAC-SHA256(secret, timestamp + "." + body)
// A receiver that fails (no answer, 5xx, 408, 429) gets the event again after 1, 2, 4 ... up to 60
// s, until it takes it or `give_up_after` has passed; another 4xx gives it up at once (counted).
// The body carries "instance" (random, the process's) beside "id": the pair is unique. Events
// wait in a bounded queue: when it is full the oldest goes (counted). One thread sends; nothing
// else waits for the receiver.
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "common/http_call_stop.hpp"
#include "common/http_client.hpp"

namespace vf {

class MetricSet;

struct WebhookSettings {
    std::string url;     // http:// or https://HOST[:PORT][/PATH]
    std::string secret;  // the signature's key (from a file: never logged)
    size_t max_queued = 1000;
    std::chrono::milliseconds give_up_after{std::chrono::minutes(10)};
    std::chrono::milliseconds first_retry{std::chrono::seconds(1)};
    std::chrono::milliseconds longest_retry{std::chrono::seconds(60)};
    std::shared_ptr<const HttpsTrust> trust;  // https: whom the receiver's certificate must come from
};

// Where a webhook URL points: its address and the request target. Throws Error(Usage) naming
// `option` for anything else (another scheme, credentials, a fragment).
struct WebhookTarget {
    HttpAddress to;
    std::string target = "/";
};
WebhookTarget parse_webhook_url(const std::string& url, const std::string& option);

// The signature header's value for `body` sent at `timestamp` (what a receiver recomputes).
std::string webhook_signature(const std::string& secret, const std::string& timestamp, const std::string& body);

class WebhookSender {
public:
    explicit WebhookSender(WebhookSettings settings);  // throws Error(Usage) for a bad URL
    ~WebhookSender();                                  // ends a call under way and the thread
    WebhookSender(const WebhookSender&) = delete;
    WebhookSender& operator=(const WebhookSender&) = delete;

    // Queues `event` (an object; its "id" is set when missing). Never waits for the receiver.
    void send(nlohmann::json event);

    struct Counts {
        int64_t delivered = 0, retries = 0, given_up = 0, dropped = 0;
        size_t queued = 0;
    };
    Counts counts() const;
    void collect_metrics(MetricSet& set) const;

private:
    void run();
    enum class Try { Taken, Failed, Refused };  // Refused: a 4xx that trying again cannot change
    Try deliver(const nlohmann::json& event);    // one try

    const WebhookSettings settings_;
    const WebhookTarget target_;
    const std::string instance_;  // random, a process's: its events' ids are unique with it
    mutable std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<nlohmann::json> queue_;
    Counts counts_;
    int64_t next_id_ = 1;
    bool stopping_ = false;
    HttpCallStop call_stop_;
    std::thread thread_;
};

}  // namespace vf
