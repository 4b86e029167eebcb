#include "support/serve_api.hpp"

#include <cstdlib>

#include "support/http_client.hpp"

namespace vf::test {
namespace {

std::string request_head(const std::string& method, const std::string& target, const std::string& token, const std::string& extra_headers) {
    std::string head = method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n" + extra_headers;
    if (!token.empty()) head += "Authorization: Bearer " + token + "\r\n";
    return head;
}

ApiAnswer answer_of(std::string response) {
    ApiAnswer a;
    a.text = std::move(response);
    if (a.text.rfind("HTTP/1.1 ", 0) != 0) return a;
    a.status = std::atoi(a.text.c_str() + 9);
    const size_t at = a.text.find("\r\n\r\n");
    a.head = a.text.substr(0, at);
    if (at != std::string::npos) a.body = nlohmann::json::parse(a.text.substr(at + 4), nullptr, false);
    return a;
}

}  // namespace

ApiAnswer api_get(int port, const std::string& target, const std::string& token) {
    return answer_of(http_exchange(port, request_head("GET", target, token, "") + "\r\n"));
}

ApiAnswer api_call(int port, const std::string& method, const std::string& target, const std::string& body, const std::string& token,
                   const std::string& extra_headers) {
    return answer_of(http_exchange(port, request_head(method, target, token, extra_headers) + "Content-Type: application/json\r\nContent-Length: " +
                                             std::to_string(body.size()) + "\r\n\r\n" + body));
}

}  // namespace vf::test
