#include "common/hmac.hpp"

#include <openssl/evp.h>
#include <openssl/hmac.h>

namespace vf {

std::array<unsigned char, 32> hmac_sha256(const std::string& key, const std::string& message) {
    std::array<unsigned char, 32> mac{};
    unsigned int length = 0;
    // A failure leaves the zero MAC, which no signature check accepts (an HMAC of all zeros is
    // as likely as guessing the key).
    if (!HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(message.data()),
              message.size(), mac.data(), &length) ||
        length != mac.size())
        mac.fill(0);
    return mac;
}

std::string hex_of(const unsigned char* bytes, size_t n) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string text(2 * n, '0');
    for (size_t i = 0; i < n; ++i) {
        text[2 * i] = kDigits[bytes[i] >> 4];
        text[2 * i + 1] = kDigits[bytes[i] & 15];
    }
    return text;
}

}  // namespace vf
