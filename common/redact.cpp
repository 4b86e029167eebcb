#include "common/redact.hpp"

#include <algorithm>
#include <cctype>

#include "common/ascii.hpp"

namespace vf {
namespace {

// Where a URL's part ends in free text: its delimiters, whitespace and the quotes messages use.
bool ends_url(char c) { return std::isspace(static_cast<unsigned char>(c)) || c == '\'' || c == '"' || c == '<' || c == '>'; }

bool secret_key(const std::string& text) {
    const std::string key = ascii_lower(text);
    for (const char* k : {"password", "passwd", "pwd", "pass", "passphrase", "secret", "token", "access_token", "api_key",
                          "apikey", "auth", "key"})
        if (key == k) return true;
    return false;
}

}  // namespace

std::string redact_credentials(std::string_view text) {
    std::string out(text);
    // user:password@ after a scheme: the password is what follows the first ':' of the authority's
    // user part (the part before its last '@').
    for (size_t at = out.find("://"); at != std::string::npos; at = out.find("://", at + 3)) {
        const size_t start = at + 3;
        size_t end = start;
        while (end < out.size() && out[end] != '/' && out[end] != '?' && out[end] != '#' && !ends_url(out[end])) ++end;
        const size_t sign = out.rfind('@', end == 0 ? 0 : end - 1);
        if (sign == std::string::npos || sign < start) continue;
        const size_t colon = out.find(':', start);
        if (colon == std::string::npos || colon >= sign) continue;
        out.replace(colon + 1, sign - colon - 1, "***");
    }
    // ?key=value and &key=value: the value of a secret key, to the next '&', '#' or the URL's end.
    for (size_t q = out.find_first_of("?&;"); q != std::string::npos; q = out.find_first_of("?&;", q + 1)) {
        const size_t eq = out.find('=', q + 1);
        if (eq == std::string::npos) break;
        const std::string key = out.substr(q + 1, eq - q - 1);
        if (key.empty() || key.find_first_of("?&;/ \t'\"") != std::string::npos || !secret_key(key)) continue;
        size_t end = eq + 1;
        while (end < out.size() && out[end] != '&' && out[end] != '#' && out[end] != ';' && !ends_url(out[end])) ++end;
        if (end > eq + 1) out.replace(eq + 1, end - eq - 1, "***");
    }
    return out;
}

}  // namespace vf
