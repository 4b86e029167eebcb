// A stream whose filter is changed again and again, as an operator editing filters from serve's page
// does: distinct filters (dense 15x15 and 7x7 matrices of random whole numbers, Gaussians of ever
// other sigmas, boxes of other radii, chains of them), each seen through until frames filtered
// with it have been written. The memory tests run it on the CPU and on the GPU.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "app/run/job.hpp"

namespace vf::test {

// n filter strings, no two alike.
std::vector<std::string> churn_filters(int n, unsigned seed);

// Options of a job that reads `clip` at its own pace, one frame in flight and one queued, so that
// a filter change reaches the output within a few frames; output null.
RunOptions churn_options(const std::string& clip, DeviceChoice device);

// A clip for churn_options: small frames at 200 fps, enough for `changes` changes.
std::string write_churn_clip(const std::string& dir, int changes);

// Runs `job` on a thread of its own and changes its filter to each of `filters` in turn, each
// kept until four more frames have been written (so it filtered at least one); after_each(i), when
// given, runs once change i has been seen through. Returns the changes seen through; the job has
// ended when it returns.
int run_filter_churn(Job& job, const std::vector<std::string>& filters, const std::function<void(int)>& after_each = nullptr);

// The process's resident memory, in bytes.
long resident_bytes();

}  // namespace vf::test
