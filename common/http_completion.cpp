#include <atomic>

#include "common/http_server.hpp"
#include "common/http_wire.hpp"

namespace vf {

// Shared by every copy of one completion: the first call delivers; the last copy to go delivers
// 503 if none did, so the client of a deferred answer is never left waiting.
struct HttpCompletion::State {
    explicit State(std::function<void(HttpResponse)> d) : deliver(std::move(d)) {}
    ~State() {
        if (done.exchange(true)) return;
        HttpResponse dropped = http::error_answer(503);
        dropped.headers.push_back({"Retry-After", "1"});
        try {
            deliver(std::move(dropped));
        } catch (...) {  // a destructor: nothing left to tell
        }
    }
    std::function<void(HttpResponse)> deliver;
    std::atomic<bool> done{false};
};

HttpCompletion::HttpCompletion(std::function<void(HttpResponse)> deliver) : state_(std::make_shared<State>(std::move(deliver))) {}

void HttpCompletion::operator()(HttpResponse answer) const {
    if (state_ && !state_->done.exchange(true)) state_->deliver(std::move(answer));
}

}  // namespace vf
