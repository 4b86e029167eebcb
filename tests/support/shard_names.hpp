// Stream names for fleet tests: the first `prefix` + number that shard `k` of `count` serves,
// by serve's own hashing (app/serve/serve_config.hpp), so a test knows which process owns it.
#pragma once

#include <string>

#include "app/serve/serve_config.hpp"

namespace vf::test {

inline std::string name_in_shard(const std::string& prefix, int k, int count) {
    for (int i = 0;; ++i)
        if (shard_of(prefix + std::to_string(i), count) == k) return prefix + std::to_string(i);
}

}  // namespace vf::test
