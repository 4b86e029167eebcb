// libFuzzer target: the command line (app/cli/cli.cpp) and the option checks a run makes before it
// opens anything (filters, device, queue). Input: arguments separated by NUL bytes.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "app/cli/cli.hpp"
#include "common/error.hpp"
#include "config/filter_registry.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size > 4096) return 0;
    std::vector<std::string> args{"vfilter"};
    std::string cur;
    for (size_t i = 0; i < size; ++i) {
        if (data[i] == 0) {
            args.push_back(cur);
            cur.clear();
        } else {
            cur += static_cast<char>(data[i]);
        }
    }
    if (!cur.empty()) args.push_back(cur);
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    // CLI11 prints help to stdout; keep the fuzzer's output readable.
    static const bool quiet = std::freopen("/dev/null", "w", stdout) != nullptr;
    (void)quiet;
    const vf::Command cmd = vf::parse_command_line(static_cast<int>(args.size()), argv.data());
    if (cmd.kind == vf::Command::Run) {
        try {
            (void)vf::plan_chain(cmd.run.filter.chain.spec());
        } catch (const vf::Error&) {
        }
    }
    return 0;
}
