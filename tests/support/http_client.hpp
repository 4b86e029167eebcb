// A bare TCP/HTTP client for tests that talk to vfilter's metrics endpoint and to local servers.
#pragma once

#include <chrono>
#include <string>

namespace vf::test {

// Connects to 127.0.0.1:port, sends `request` as is, returns all that comes back ("" when the
// connection is refused).
std::string http_exchange(int port, const std::string& request);
// GET path over HTTP/1.0.
std::string http_get(int port, const std::string& path);
// A client that sends more than a server should read: `head`, then `piece` up to `times` times,
// reading what comes back all the while; it stops sending once the server closes or resets, and
// returns when the server has closed or `timeout` passed.
struct FloodResult {
    std::string received;
    size_t sent = 0;      // bytes the kernel accepted from this client
    bool closed = false;  // the server closed (or reset) the connection
};
FloodResult http_flood(int port, const std::string& head, const std::string& piece, size_t times,
                       std::chrono::milliseconds timeout = std::chrono::seconds(10));
// A request whose answer is read while it comes (a streamed body), and a client that can leave
// in the middle of it.
class HttpConnection {
public:
    HttpConnection(int port, const std::string& request);  // connects and sends
    ~HttpConnection();
    HttpConnection(const HttpConnection&) = delete;
    HttpConnection& operator=(const HttpConnection&) = delete;
    bool open() const { return fd_ >= 0; }
    // Everything received so far, once it holds `want`, the server closed, or `timeout` passed.
    const std::string& read_until(const std::string& want, std::chrono::milliseconds timeout = std::chrono::seconds(5));
    bool send(const std::string& bytes);  // more of the request; false once the connection is broken
    // Whether the server closed the connection within `timeout` (what it sent meanwhile is kept).
    bool closed_by_server(std::chrono::milliseconds timeout);
    void close_now();  // the client leaves

private:
    int fd_;
    std::string received_;
    bool server_closed_ = false;
};

// Whether something accepts connections on 127.0.0.1:port.
bool port_open(int port);

}  // namespace vf::test
