// A bare TCP/HTTP client for tests that talk to vfilter's metrics endpoint and to local servers.
#pragma once

#include <string>

namespace vf::test {

// Connects to 127.0.0.1:port, sends `request` as is, returns all that comes back ("" when the
// connection is refused).
std::string http_exchange(int port, const std::string& request);
// GET path over HTTP/1.0.
std::string http_get(int port, const std::string& path);
// Whether something accepts connections on 127.0.0.1:port.
bool port_open(int port);

}  // namespace vf::test
