// A child process the test starts, signals and waits for: vfilter runs that are interrupted
// mid-stream, and the real servers (RTSP, RTMP) the live tests talk to on loopback.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace vf::test {

class ChildProcess {
public:
    // Starts argv with stdout and stderr appended to log_path (stdout to stdout_path when given).
    ChildProcess(const std::vector<std::string>& argv, const std::string& log_path, const std::string& stdout_path = "");
    ~ChildProcess();  // kills it (SIGKILL) if still running
    ChildProcess(const ChildProcess&) = delete;
    ChildProcess& operator=(const ChildProcess&) = delete;

    void signal(int sig);
    // The exit code (128+signal when killed by one), or -1 when it did not end within timeout_s.
    int wait(double timeout_s);
    bool running();
    // Waits until the log contains `text`; false after timeout_s or if the process ended.
    bool wait_for_log(const std::string& text, double timeout_s);
    std::string log() const;
    pid_t pid() const { return pid_; }

private:
    pid_t pid_ = -1;
    int status_ = -1;
    bool reaped_ = false;
    std::string log_path_;
};

// A TCP socket bound to a free port of 127.0.0.1 (*port), listening with `backlog` (0: not
// listening); the caller closes it.
int listen_on_loopback(int backlog, int* port);
// A TCP port on 127.0.0.1 that was free a moment ago.
int free_port();
// Waits until some process has a UDP socket bound to `port` (Linux's /proc/net/udp): a listener
// started as a child is ready for datagrams. False after timeout_s.
bool wait_for_udp_bound(int port, double timeout_s);
// Waits until some process listens on TCP `port`, without connecting (a server that answers one
// client only, as ffmpeg's -listen 1, is not spent on a probe). False after timeout_s.
bool wait_for_tcp_listening(int port, double timeout_s);

// Reads a whole file (empty when missing).
std::string read_file(const std::string& path);

}  // namespace vf::test
