#include "support/child_process.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace vf::test {

ChildProcess::ChildProcess(const std::vector<std::string>& argv, const std::string& log_path, const std::string& stdout_path)
    : log_path_(log_path) {
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
        const int log = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
        const int out = stdout_path.empty() ? log : open(stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (log < 0 || out < 0) _exit(126);
        dup2(out, 1);
        dup2(log, 2);
        const int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0) dup2(devnull, 0);
        setpgid(0, 0);  // its own group: a signal meant for it never reaches the test runner
        execvp(args[0], args.data());
        _exit(127);
    }
}

ChildProcess::~ChildProcess() {
    if (!reaped_ && pid_ > 0) {
        kill(pid_, SIGKILL);
        waitpid(pid_, &status_, 0);
    }
}

void ChildProcess::signal(int sig) {
    if (!reaped_) kill(pid_, sig);
}

bool ChildProcess::running() {
    if (reaped_) return false;
    const pid_t r = waitpid(pid_, &status_, WNOHANG);
    if (r == pid_) reaped_ = true;
    return !reaped_;
}

int ChildProcess::wait(double timeout_s) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    while (running()) {
        if (std::chrono::steady_clock::now() > until) return -1;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (WIFEXITED(status_)) return WEXITSTATUS(status_);
    if (WIFSIGNALED(status_)) return 128 + WTERMSIG(status_);
    return -1;
}

bool ChildProcess::wait_for_log(const std::string& text, double timeout_s) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    for (;;) {
        if (log().find(text) != std::string::npos) return true;
        if (!running() || std::chrono::steady_clock::now() > until) return log().find(text) != std::string::npos;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
}

std::string ChildProcess::log() const { return read_file(log_path_); }

int listen_on_loopback(int backlog, int* port) {
    const int s = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    if (backlog > 0) listen(s, backlog);
    socklen_t len = sizeof addr;
    getsockname(s, reinterpret_cast<sockaddr*>(&addr), &len);
    *port = ntohs(addr.sin_port);
    return s;
}

int free_port() {
    int port = 0;
    close(listen_on_loopback(0, &port));
    return port;
}

namespace {

// Waits until a line of `tables` (Linux's /proc/net/ socket tables) has a socket whose local port
// is `port` and, where `state` is not empty, whose state (hex, "0A" for TCP's LISTEN) is that.
bool wait_for_socket(std::initializer_list<const char*> tables, int port, const char* state, double timeout_s) {
    char local[16];
    std::snprintf(local, sizeof local, ":%04X ", port);  // "sl local_address rem_address st": 0100007F:1F90
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    while (std::chrono::steady_clock::now() < until) {
        for (const char* table : tables) {
            std::ifstream in(table);
            std::string line;
            std::getline(in, line);  // the header
            while (std::getline(in, line)) {
                const size_t colon = line.find(':', line.find(':') + 1);  // after "sl:", the address's
                if (colon == std::string::npos || line.compare(colon, 6, local) != 0) continue;
                std::istringstream fields(line.substr(colon + 6));
                std::string remote, st;
                fields >> remote >> st;
                if (!*state || st == state) return true;
            }
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
}

}  // namespace

bool wait_for_udp_bound(int port, double timeout_s) { return wait_for_socket({"/proc/net/udp", "/proc/net/udp6"}, port, "", timeout_s); }

bool wait_for_tcp_listening(int port, double timeout_s) {
    return wait_for_socket({"/proc/net/tcp", "/proc/net/tcp6"}, port, "0A", timeout_s);
}

std::string read_file(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

}  // namespace vf::test
