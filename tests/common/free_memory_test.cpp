// serve's malloc arenas: at most one per core once limited, however many threads allocate at once
// (glibc's own limit, eight per core, is what the unlimited child shows).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "common/free_memory.hpp"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace vf {
namespace {

#if defined(__GLIBC__)
// malloc's arenas as malloc_info lists them (one <heap> each).
int arenas_in_use() {
    char* text = nullptr;
    size_t size = 0;
    FILE* out = open_memstream(&text, &size);
    if (!out) return -1;
    malloc_info(0, out);
    std::fclose(out);
    int heaps = 0;
    for (const char* at = text; (at = std::strstr(at, "<heap nr=")) != nullptr; at += 9) ++heaps;
    std::free(text);
    return heaps;
}

// In a child process (the arena limit is process-wide and lasts): `threads` threads each allocate
// while all of them are alive; the child's exit code is its arena count.
int arenas_after_threads(bool limited, int threads) {
    const pid_t pid = fork();
    if (pid == 0) {
        if (limited) limit_malloc_arenas();
        std::vector<std::thread> running;
        std::vector<void*> blocks(threads, nullptr);
        std::atomic<int> allocated{0};
        for (int i = 0; i < threads; ++i)
            running.emplace_back([&, i] {
                blocks[i] = std::malloc(4096);
                ++allocated;
                while (allocated.load() < threads) std::this_thread::yield();  // all alive at once
            });
        for (std::thread& t : running) t.join();
        for (void* b : blocks) std::free(b);
        _exit(std::min(arenas_in_use(), 250));
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(FreeMemory, ArenasAreLimitedToOnePerCore) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    GTEST_SKIP() << "the sanitizer's allocator replaces glibc's arenas";
#endif
    if (std::getenv("MALLOC_ARENA_MAX")) GTEST_SKIP() << "MALLOC_ARENA_MAX is set: the operator's limit wins";
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const int threads = 4 * cores + 4;
    const int limited = arenas_after_threads(true, threads);
    EXPECT_GE(limited, 1);
    EXPECT_LE(limited, cores) << threads << " threads allocating at once";
    EXPECT_GT(arenas_after_threads(false, threads), cores) << "without the limit glibc gives more: the test can tell";
}
#endif

}  // namespace
}  // namespace vf
