#include "support/test_certificates.hpp"

#include <fstream>
#include <stdexcept>
#include <vector>

#include "support/run_command.hpp"

namespace vf::test {
namespace {

void openssl(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {"openssl"};
    argv.insert(argv.end(), args.begin(), args.end());
    const CommandResult r = run_command(argv, 30);
    if (r.exit_code != 0) throw std::runtime_error("openssl " + args.front() + " failed: " + r.output);
}

const std::vector<std::string> kNewKey = {"-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"};

void make_ca(const std::string& at, const std::string& name) {
    std::vector<std::string> args = {"req", "-x509", "-days", "2", "-subj", "/CN=" + name, "-keyout", at + ".key", "-out", at + ".pem"};
    args.insert(args.begin() + 2, kNewKey.begin(), kNewKey.end());
    openssl(args);
}

// A server certificate for `names` (subjectAltName entries such as DNS:localhost), signed by the CA at `ca`.
void make_server(const std::string& at, const std::string& ca, const std::string& names) {
    std::vector<std::string> request = {"req", "-new", "-subj", "/CN=vfilter test server", "-keyout", at + ".key", "-out", at + ".csr"};
    request.insert(request.begin() + 2, kNewKey.begin(), kNewKey.end());
    openssl(request);
    std::ofstream(at + ".ext") << "subjectAltName=" << names << "\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n";
    openssl({"x509", "-req", "-days", "2", "-in", at + ".csr", "-CA", ca + ".pem", "-CAkey", ca + ".key", "-CAcreateserial",
             "-extfile", at + ".ext", "-out", at + ".pem"});
}

}  // namespace

TestCertificates make_test_certificates() {
    TestCertificates c;
    c.dir = temp_dir();
    const std::string d = c.dir + "/";
    make_ca(d + "ca", "vfilter test CA");
    make_ca(d + "stranger-ca", "a CA nobody here trusts");
    make_server(d + "server", d + "ca", "DNS:localhost,IP:127.0.0.1");
    make_server(d + "stranger", d + "stranger-ca", "DNS:localhost,IP:127.0.0.1");
    make_server(d + "misnamed", d + "ca", "DNS:elsewhere.example");
    c.ca = d + "ca.pem";
    c.cert = d + "server.pem";
    c.key = d + "server.key";
    c.stranger_ca = d + "stranger-ca.pem";
    c.stranger_cert = d + "stranger.pem";
    c.stranger_key = d + "stranger.key";
    c.misnamed_cert = d + "misnamed.pem";
    c.misnamed_key = d + "misnamed.key";
    return c;
}

}  // namespace vf::test
