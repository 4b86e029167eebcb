// Fleet::ask_every_shard: one GET to every other shard at once (a listing the whole fleet makes).
#include <future>

#include "app/serve/fleet/fleet.hpp"
#include "app/serve/service_error.hpp"

namespace vf {

namespace {

// One place of Fleet::kAsksAtOnce, given back when the asking ends.
class AskPlace {
public:
    explicit AskPlace(std::atomic<int>& in_flight) : in_flight_(in_flight) {
        if (in_flight_.fetch_add(1) >= Fleet::kAsksAtOnce) {
            in_flight_.fetch_sub(1);
            throw ServiceError(503, "the other shards are being asked for a listing already; ask again in a moment");
        }
    }
    ~AskPlace() { in_flight_.fetch_sub(1); }
    AskPlace(const AskPlace&) = delete;
    AskPlace& operator=(const AskPlace&) = delete;

private:
    std::atomic<int>& in_flight_;
};

}  // namespace

std::map<int, nlohmann::json> Fleet::ask_every_shard(const std::string& target, size_t max_body_bytes) {
    const AskPlace place(asks_in_flight_);
    std::map<int, std::future<nlohmann::json>> asked;
    for (int k = 0; k < o_.shard_count; ++k) {
        if (k == o_.shard_index) continue;
        std::string why;
        std::optional<HttpCall> call = call_to(k, &why);
        if (!call) {
            asked[k] = std::async(std::launch::deferred, [] { return nlohmann::json(); });
            continue;
        }
        call->target = target;
        call->read_timeout_ms = call->total_timeout_ms = o_.timeout_ms;
        call->max_body_bytes = max_body_bytes;
        sign(*call);
        asked[k] = std::async(std::launch::async, [c = *call] {
            const HttpReply r = http_call(c);
            return r.status == 200 ? nlohmann::json::parse(r.body, nullptr, false) : nlohmann::json();
        });
    }
    std::map<int, nlohmann::json> answers;
    for (auto& [k, f] : asked) {
        nlohmann::json j = f.get();
        answers[k] = j.is_discarded() ? nlohmann::json() : std::move(j);
    }
    return answers;
}

}  // namespace vf
