// HMAC-SHA256 (OpenSSL's), for the fleet's signed calls (app/serve/fleet/peer_auth.*) and the
// signatures of serve's webhooks (app/serve/webhook_sender.*).
#pragma once

#include <array>
#include <cstddef>
#include <string>

namespace vf {

// The MAC of `message` under `key`; all zeros if OpenSSL fails (which no check accepts).
std::array<unsigned char, 32> hmac_sha256(const std::string& key, const std::string& message);
// Bytes as lowercase hex digits.
std::string hex_of(const unsigned char* bytes, size_t n);
inline std::string hmac_sha256_hex(const std::string& key, const std::string& message) {
    const std::array<unsigned char, 32> mac = hmac_sha256(key, message);
    return hex_of(mac.data(), mac.size());
}

}  // namespace vf
