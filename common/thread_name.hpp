// Names the calling thread (at most 15 characters are kept), so that `top -H`, `ps -L` and a
// profiler tell vfilter's threads apart: a stream's decode, filter and encode stages, the batch
// window, the HTTP workers.
#pragma once

namespace vf {

void name_this_thread(const char* name);

}  // namespace vf
