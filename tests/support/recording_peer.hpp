// A peer of `vfilter serve --peers` that is no vfilter (an address of the list that another
// machine has taken): a plain TCP listener on loopback that keeps every request it is sent, byte
// for byte as it came, and answers each through vfilter's own request parser
// (http_answer_bytes) and `answer`. One connection at a time: serve's calls to a peer close after
// their answer.
#pragma once

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/http_server.hpp"

namespace vf::test {

class RecordingPeer {
public:
    explicit RecordingPeer(HttpHandler answer);
    ~RecordingPeer();
    RecordingPeer(const RecordingPeer&) = delete;
    RecordingPeer& operator=(const RecordingPeer&) = delete;
    int port() const { return port_; }
    std::vector<std::string> requests() const;  // each request's bytes (head and body), in order

private:
    void serve();
    void take(int fd);

    HttpHandler answer_;
    int listener_ = -1;
    int port_ = 0;
    std::atomic<bool> stop_{false};
    mutable std::mutex mutex_;
    std::vector<std::string> requests_;
    std::thread thread_;
};

}  // namespace vf::test
