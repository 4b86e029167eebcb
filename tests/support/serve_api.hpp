// Calls of `vfilter serve`'s control API on loopback as a client holding a token sends them, and
// their answers as the tests read them: the fleet tests ask several shards the same questions.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace vf::test {

struct ApiAnswer {
    int status = -1;      // -1: no HTTP answer (nothing listening, or the connection cut)
    std::string text;     // the whole answer, head and body
    std::string head;     // the status line and headers
    nlohmann::json body;  // discarded when the body is not JSON
};

// GET `target` (Host, Connection: close, and the bearer `token` unless it is empty).
ApiAnswer api_get(int port, const std::string& target, const std::string& token);

// `method target` with a JSON `body` (its Content-Type and Content-Length), the bearer `token`
// unless it is empty, and `extra_headers` (each ending in CRLF) before them.
ApiAnswer api_call(int port, const std::string& method, const std::string& target, const std::string& body, const std::string& token,
                   const std::string& extra_headers = "");

}  // namespace vf::test
