// Errors carry a category; app/ maps each category to a documented exit code
// (see docs/exit-codes.md). Library code throws, it never exits.
#pragma once

#include <stdexcept>
#include <string>

namespace vf {

enum class ErrorCategory {
    Internal = 1,  // a bug or an unexpected library failure
    Usage = 2,     // bad command line, filter spec, option value or kernel file
    Input = 3,     // input missing, unreadable, not a video
    Output = 4,    // output refused (exists, is the input, unwritable) or encoder/muxer failure
    Damaged = 5,   // finished, but part of the input could not be decoded
    Device = 6,    // GPU / CUDA failure
};

class Error : public std::runtime_error {
public:
    Error(ErrorCategory category, const std::string& message, bool lasting = false, bool disk_full = false)
        : std::runtime_error(message), category_(category), lasting_(lasting), disk_full_(disk_full) {}
    ErrorCategory category() const { return category_; }
    // An output that failed because its disk (or the user's quota) is full: serve records again
    // once space returns.
    bool disk_full() const { return disk_full_; }
    // An input that trying again will not mend (credentials refused, no such stream, a codec
    // with no decoder, a malformed address, a missing local file): serve reports it at once
    // instead of waiting for the camera to come up.
    bool lasting() const { return lasting_; }

private:
    ErrorCategory category_;
    bool lasting_;
    bool disk_full_;
};

// A value its sender may not set: an API client naming a file, device, host or option that the
// operator did not give clients. The control API answers 403; the command line exits 2.
class Forbidden : public Error {
public:
    explicit Forbidden(const std::string& message) : Error(ErrorCategory::Usage, message) {}
};

// `e` again with `prefix` before its message, of the same kind (a Forbidden stays one).
[[noreturn]] inline void rethrow_prefixed(const Error& e, const std::string& prefix) {
    if (dynamic_cast<const Forbidden*>(&e)) throw Forbidden(prefix + e.what());
    throw Error(e.category(), prefix + e.what(), e.lasting(), e.disk_full());
}

inline int exit_code_for(ErrorCategory c) { return static_cast<int>(c); }

[[noreturn]] inline void fail(ErrorCategory c, const std::string& message) { throw Error(c, message); }
[[noreturn]] inline void forbid(const std::string& message) { throw Forbidden(message); }
[[noreturn]] inline void fail_lasting(ErrorCategory c, const std::string& message) { throw Error(c, message, true); }

}  // namespace vf
