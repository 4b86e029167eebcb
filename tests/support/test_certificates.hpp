// Certificates made for a test with the openssl command, in a fresh folder: a CA, server
// certificates it signed, and others it did not, so that HTTPS is tested with real parts. EC
// P-256 keys (made in milliseconds), valid two days.
#pragma once

#include <string>

namespace vf::test {

struct TestCertificates {
    std::string dir;
    std::string ca;                    // the CA's certificate (PEM): what clients trust
    std::string cert, key;             // for localhost and 127.0.0.1, signed by ca
    std::string stranger_ca;           // another CA, trusted by nobody here
    std::string stranger_cert, stranger_key;  // for the same names, signed by stranger_ca
    std::string misnamed_cert, misnamed_key;  // signed by ca, for elsewhere.example only
};

// Throws std::runtime_error with openssl's output when a step fails.
TestCertificates make_test_certificates();

}  // namespace vf::test
