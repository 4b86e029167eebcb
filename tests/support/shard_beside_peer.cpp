#include "support/shard_beside_peer.hpp"

#include <vector>

namespace vf::test {

std::unique_ptr<ChildProcess> start_shard_beside_peer(const std::string& dir, int api_port, int peer_port, const std::string& token) {
    return std::make_unique<ChildProcess>(
        std::vector<std::string>{VFILTER_BIN, "serve", "--config", dir + "/streams.yaml", "--shard", "0/2", "--api-port",
                                 std::to_string(api_port), "--api-token", token, "--peers", "http://127.0.0.1:" + std::to_string(peer_port)},
        dir + "/serve.log");
}

}  // namespace vf::test
