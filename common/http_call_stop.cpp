#include "common/http_call_stop.hpp"

#include "common/http_client_connection.hpp"

namespace vf {

void HttpCallStop::stop() {
    std::lock_guard<std::mutex> lock(mutex_);
    stopped_ = true;
    // Each connection is still there: its Watch leaves the set, under this lock, before it goes.
    for (http::ClientConnection* c : running_) c->interrupt();
}

bool HttpCallStop::stopped() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return stopped_;
}

HttpCallStop::Watch::Watch(HttpCallStop* stop, http::ClientConnection& connection) : stop_(stop), connection_(connection) {
    if (!stop_) return;
    std::lock_guard<std::mutex> lock(stop_->mutex_);
    // Stopped already: the interruption waits in the connection's queue and ends its first step
    // (a connect, which gives up once its socket is closed).
    if (stop_->stopped_) connection_.interrupt();
    stop_->running_.insert(&connection_);
}

HttpCallStop::Watch::~Watch() {
    if (!stop_) return;
    std::lock_guard<std::mutex> lock(stop_->mutex_);
    stop_->running_.erase(&connection_);
}

}  // namespace vf
