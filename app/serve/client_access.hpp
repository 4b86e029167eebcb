// What the operator lets a client of serve's control API reach, and the check of a client's stream
// fields against it (docs/security.md). The operator's config file and command line set any field
// and path; a client holding the admin token may set only the fields the option table marks for it
// (app/run/stream_options.hpp), and within them only:
// - inputs: network URLs (rtsp://, rtmp://, srt://, udp://, http(s)://, ...), pattern://, or a
//   regular file under media-root (never a device, a FIFO, stdin or a protocol such as concat:);
// - outputs: null, a file under recordings-root, or a network sink whose host is in output-hosts;
// - kernel files (file= in a filter): names under kernel-dir (KernelFiles, checked where the
//   chain is built: config/kernel_file.hpp).
// Paths are resolved below their root without following a symbolic link. A refusal is a Forbidden
// error (HTTP 403) naming the field and the reason, never what a file holds.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "app/run/stream_options.hpp"
#include "config/kernel_file.hpp"

namespace vf {

struct ClientAccess {
    std::string media_root;                 // media-root: local inputs only below it; "" none
    std::string recordings_root;            // recordings-root: file outputs only below it; "" none
    std::string kernel_dir;                 // kernel-dir: file= kernels only below it; "" none
    std::vector<std::string> output_hosts;  // output-hosts: hosts network outputs may go to
    KernelFiles kernel_files() const { return KernelFiles::only_in(kernel_dir); }
};

// The folders of `access` checked (each an existing directory; throws Error(Usage) naming the
// option) and made absolute.
ClientAccess checked_client_access(ClientAccess access);

// A client's fields checked: each may be set by a client (else Forbidden naming the field), and
// its input, output and filter stay within `access`. Returns the fields with local paths made
// absolute under their root, and the protocols of a local input limited to file.
StreamFields check_client_fields(StreamFields fields, const ClientAccess& access);

// The host of a network URL ("rtsp://user:pw@cam.local:554/x" -> "cam.local"), lower case.
std::string url_host(const std::string& url);

}  // namespace vf
