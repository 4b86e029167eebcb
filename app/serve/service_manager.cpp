#include "app/serve/service_manager.hpp"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <ctime>

#include <spdlog/spdlog.h>

namespace vf {

ServiceManager::ServiceManager() {
    if (const char* p = std::getenv("NOTIFY_SOCKET")) socket_path_ = p;
    if (!socket_path_.empty() && socket_path_[0] != '/' && socket_path_[0] != '@') {
        spdlog::warn("NOTIFY_SOCKET '{}' is neither a path nor an abstract socket; systemd is not told how serve is doing",
                     socket_path_);
        socket_path_.clear();
    }
    const char* usec = std::getenv("WATCHDOG_USEC");
    const char* pid = std::getenv("WATCHDOG_PID");
    if (usec && (!pid || std::atol(pid) == static_cast<long>(getpid()))) {
        const long long us = std::atoll(usec);
        if (us > 0) watchdog_ = std::chrono::microseconds(us);
    }
    last_ping_ = std::chrono::steady_clock::now();
}

bool ServiceManager::send(const std::string& message) {
    if (socket_path_.empty()) return false;
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (socket_path_.size() >= sizeof addr.sun_path) return false;
    std::memcpy(addr.sun_path, socket_path_.data(), socket_path_.size());
    if (addr.sun_path[0] == '@') addr.sun_path[0] = '\0';  // abstract namespace
    const socklen_t len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + socket_path_.size());
    const int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return false;
    const bool sent = sendto(fd, message.data(), message.size(), MSG_NOSIGNAL, reinterpret_cast<const sockaddr*>(&addr), len) ==
                      static_cast<ssize_t>(message.size());
    close(fd);
    if (!sent) spdlog::debug("could not tell systemd '{}'", message);
    return sent;
}

void ServiceManager::ready(const std::string& status) { send("READY=1\nSTATUS=" + status); }

void ServiceManager::reloading() {
    // systemd 253 and later (Type=notify-reload) want the moment of the reload with it.
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    const long long usec = static_cast<long long>(now.tv_sec) * 1000000 + now.tv_nsec / 1000;
    send("RELOADING=1\nMONOTONIC_USEC=" + std::to_string(usec));
}

void ServiceManager::stopping() { send("STOPPING=1\nSTATUS=stopping: every stream finishes its output"); }

void ServiceManager::status(const std::string& status) { send("STATUS=" + status); }

void ServiceManager::keep_alive() {
    if (watchdog_.count() == 0) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - last_ping_ < watchdog_ / 2) return;
    last_ping_ = now;
    send("WATCHDOG=1");
}

}  // namespace vf
