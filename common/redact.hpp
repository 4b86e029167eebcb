// Credentials never leave vfilter in what it writes: camera URLs carry passwords
// (rtsp://admin:secret@cam/...) and tokens (srt://...?passphrase=...). Every log line, error,
// summary and stats file passes through redact_credentials, which keeps the URL readable and
// replaces the secret with ***.
#pragma once

#include <string>
#include <string_view>

namespace vf {

// `text` with the password of every scheme://user:password@host replaced by *** and the value of
// every secret-bearing query parameter (password, passwd, pwd, pass, passphrase, secret, token,
// access_token, api_key, apikey, auth, key) likewise. Text without either is returned unchanged.
std::string redact_credentials(std::string_view text);

}  // namespace vf
