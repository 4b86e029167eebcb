// Ends HTTP calls under way from another thread (common/http_client.hpp): an owner of calls that
// wait for a peer (serve's forwarder, app/serve/fleet/peer_forwarder.hpp) stops without waiting out their
// deadlines. A call made with it ends at once with status 0 when stop() is called while it runs
// or was called before it started.
#pragma once

#include <mutex>
#include <set>

namespace vf {
namespace http {
class ClientConnection;
}

class HttpCallStop {
public:
    HttpCallStop() = default;
    HttpCallStop(const HttpCallStop&) = delete;
    HttpCallStop& operator=(const HttpCallStop&) = delete;

    void stop();  // any thread; for good
    bool stopped() const;

    // A call's connection while the call waits on it: stop() can end it (common/http_client.cpp).
    // A null stop watches nothing.
    class Watch {
    public:
        Watch(HttpCallStop* stop, http::ClientConnection& connection);
        ~Watch();
        Watch(const Watch&) = delete;
        Watch& operator=(const Watch&) = delete;

    private:
        HttpCallStop* stop_;
        http::ClientConnection& connection_;
    };

private:
    mutable std::mutex mutex_;
    bool stopped_ = false;
    std::set<http::ClientConnection*> running_;
};

}  // namespace vf
