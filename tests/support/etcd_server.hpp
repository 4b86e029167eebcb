// A real etcd (Debian's etcd-server) started by a test on loopback ports of its own, with its data
// in a fresh folder; stopped (SIGKILL) and its folder removed when the object goes. pause() and
// resume() stop and continue the process: a store that no longer answers, as a partition does.
#pragma once

#include <memory>
#include <string>

#include "support/child_process.hpp"

namespace vf::test {

class EtcdServer {
public:
    // Whether the etcd command is installed (scripts/install_deps.sh --test installs it).
    static bool available();
    // Starts etcd and waits until it answers (fails the test's assertion when it does not).
    EtcdServer();
    ~EtcdServer();
    EtcdServer(const EtcdServer&) = delete;
    EtcdServer& operator=(const EtcdServer&) = delete;

    const std::string& url() const { return url_; }  // http://127.X.Y.Z:PORT
    const std::string& host() const { return host_; }
    int port() const { return client_port_; }
    bool started() const { return started_; }
    void pause();
    void resume();

private:
    std::string dir_;
    std::string url_, host_;
    int client_port_ = 0;
    bool started_ = false;
    std::unique_ptr<ChildProcess> process_;
};

}  // namespace vf::test
