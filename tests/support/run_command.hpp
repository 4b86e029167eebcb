// Runs the vfilter binary (or any command) as a child process and captures its result.
#pragma once

#include <string>
#include <vector>

namespace vf::test {

struct CommandResult {
    int exit_code = -1;
    std::string output;  // stdout and stderr together
};

// Runs argv[0] with arguments; kills it after timeout_s.
CommandResult run_command(const std::vector<std::string>& argv, int timeout_s = 120);
CommandResult run_vfilter(const std::vector<std::string>& args, int timeout_s = 120);

bool file_exists(const std::string& path);
// The lines of `text` that contain `part` (error lines in a command's output).
int lines_containing(const std::string& text, const std::string& part);
std::string temp_dir();  // a fresh directory per call

}  // namespace vf::test
