// `vfilter serve` as shard 0 of 2 whose --peers names one address only: the test's own stand-in
// for shard 1 on loopback (a peer that trickles, hangs or answers what no vfilter would). The
// fleet tests that make the other shard misbehave all start serve so.
#pragma once

#include <memory>
#include <string>

#include "support/child_process.hpp"

namespace vf::test {

// Serves dir/streams.yaml with its control API on `api_port` (bearer `token`) and the peer at
// `peer_port`; logs to dir/serve.log. The caller waits for "control API: http://" in its log.
std::unique_ptr<ChildProcess> start_shard_beside_peer(const std::string& dir, int api_port, int peer_port, const std::string& token);

}  // namespace vf::test
