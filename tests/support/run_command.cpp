#include "support/run_command.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <stdexcept>

namespace vf::test {

CommandResult run_command(const std::vector<std::string>& argv, int timeout_s) {
    int fds[2];
    if (pipe(fds) != 0) throw std::runtime_error("pipe failed");
    const pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], 1);
        dup2(fds[1], 2);
        close(fds[0]);
        close(fds[1]);
        const int devnull = open("/dev/null", O_RDONLY);
        dup2(devnull, 0);
        std::vector<char*> args;
        for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        execvp(args[0], args.data());
        _exit(127);
    }
    close(fds[1]);
    CommandResult r;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
    char buf[4096];
    for (;;) {
        pollfd p{fds[0], POLLIN, 0};
        const int left = static_cast<int>(
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count());
        if (left <= 0) {
            kill(pid, SIGKILL);
            r.output += "\n[killed: timeout]";
            break;
        }
        if (poll(&p, 1, left) <= 0) continue;
        const ssize_t n = read(fds[0], buf, sizeof buf);
        if (n <= 0) break;
        r.output.append(buf, static_cast<size_t>(n));
    }
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return r;
}

CommandResult run_vfilter(const std::vector<std::string>& args, int timeout_s) {
    std::vector<std::string> argv = {VFILTER_BIN, "--no-progress"};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_command(argv, timeout_s);
}

bool file_exists(const std::string& path) {
    struct stat st {};
    return stat(path.c_str(), &st) == 0;
}

int lines_containing(const std::string& text, const std::string& part) {
    int n = 0;
    std::istringstream lines(text);
    for (std::string l; std::getline(lines, l);) n += l.find(part) != std::string::npos;
    return n;
}

std::string temp_dir() {
    const char* base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base && *base ? base : "/tmp") + "/vfilter-test-XXXXXX";
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    return tmpl;
}

}  // namespace vf::test
