// A request serve's API refuses, with the HTTP status that says why (400, 404, 409): thrown by the
// stream service and the parsers of requests, answered by the control API.
#pragma once

#include <stdexcept>
#include <string>

namespace vf {

class ServiceError : public std::runtime_error {
public:
    ServiceError(int status, const std::string& what) : std::runtime_error(what), status_(status) {}
    int status() const { return status_; }

private:
    int status_;
};

}  // namespace vf
