// Fleet::ask_every_shard: one GET to every other shard at once (a listing the whole fleet makes).
#include <future>

#include "app/serve/fleet/fleet.hpp"

namespace vf {

std::map<int, nlohmann::json> Fleet::ask_every_shard(const std::string& target) {
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
        call->max_body_bytes = 4 << 20;
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
