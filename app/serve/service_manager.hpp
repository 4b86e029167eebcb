// Tells systemd how `vfilter serve` is doing when it runs as a Type=notify service: READY=1 once
// the streams are started and the API listens, RELOADING=1 then READY=1 around a SIGHUP,
// STOPPING=1 when it stops, STATUS= lines, and WATCHDOG=1 pings when the unit sets WatchdogSec=.
// The protocol itself (one datagram to the socket in $NOTIFY_SOCKET), so no libsystemd is
// needed; outside systemd (no NOTIFY_SOCKET) it does nothing.
#pragma once

#include <chrono>
#include <string>

namespace vf {

class ServiceManager {
public:
    ServiceManager();  // reads NOTIFY_SOCKET, WATCHDOG_USEC and WATCHDOG_PID
    bool present() const { return !socket_path_.empty(); }

    void ready(const std::string& status);
    void reloading();
    void stopping();
    void status(const std::string& status);
    // Call often (serve's main loop): sends WATCHDOG=1 every half of the interval systemd asked for.
    void keep_alive();

private:
    bool send(const std::string& message);

    std::string socket_path_;  // '@' first: an abstract socket
    std::chrono::microseconds watchdog_{0};
    std::chrono::steady_clock::time_point last_ping_;
};

}  // namespace vf
