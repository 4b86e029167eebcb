// serve's malloc settings: at most one arena per core once limited, however many threads allocate
// at once (glibc's own limit, eight per core, is what the unlimited child shows); large blocks given
// back to the system when freed, even after a larger one was (which raises glibc's own bound).
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

// Runs `child` in a forked process (malloc's settings are process-wide and last) and returns the
// exit code it gives (-1 if it did not exit).
template <typename Child>
int exit_code_in_child(Child child) {
    const pid_t pid = fork();
    if (pid == 0) _exit(child());
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// In a child process: `threads` threads each allocate while all of them are alive; the child's
// exit code is its arena count.
int arenas_after_threads(bool limited, int threads) {
    return exit_code_in_child([=] {
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
        return std::min(arenas_in_use(), 250);
    });
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

// Fills a block, and tells the compiler the block is used (else it may drop a malloc, memset and
// free that nothing reads).
void use(void* block, size_t bytes) {
    std::memset(block, 1, bytes);
    asm volatile("" : : "r"(block) : "memory");
}

// Resident KiB of this process (/proc/self/statm's second field, in pages).
long resident_kib() {
    long pages_total = 0, pages_resident = 0;
    FILE* statm = std::fopen("/proc/self/statm", "r");
    if (!statm) return -1;
    const int fields = std::fscanf(statm, "%ld %ld", &pages_total, &pages_resident);
    std::fclose(statm);
    return fields == 2 ? pages_resident * (sysconf(_SC_PAGESIZE) / 1024) : -1;
}

constexpr int kStatmUnreadable = 254;

// In a child process: a 4 MiB block used and freed (as an encoder's frames are at a stream's
// removal), then 64 blocks of 1 MiB used, each followed by a small block that stays, and freed.
// One more 1 MiB block, never touched, stays until the end: under glibc's own bound it is cut from
// the heap's top, so the freed blocks cannot merge into the top and be trimmed there (the small
// blocks may land elsewhere, in a free chunk the child inherited). The exit code is the MiB still
// resident.
int mib_kept_after_freeing(bool tuned) {
    return exit_code_in_child([=] {
        if (tuned) give_large_blocks_back_at_free();
        constexpr size_t kMiB = 1 << 20;
        void* large = std::malloc(4 * kMiB);
        use(large, 4 * kMiB);
        std::free(large);
        const long before = resident_kib();
        std::vector<void*> blocks, kept;
        for (int i = 0; i < 64; ++i) {
            blocks.push_back(std::malloc(kMiB));
            use(blocks.back(), kMiB);
            kept.push_back(std::malloc(64));
            use(kept.back(), 64);
        }
        void* cap = std::malloc(kMiB);
        asm volatile("" : : "r"(cap) : "memory");
        for (void* b : blocks) std::free(b);
        const long after = resident_kib();
        for (void* k : kept) std::free(k);
        std::free(cap);
        return before < 0 || after < 0 ? kStatmUnreadable : static_cast<int>(std::clamp((after - before) / 1024, 0L, 250L));
    });
}

TEST(FreeMemory, LargeBlocksGoBackToTheSystemWhenFreed) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    GTEST_SKIP() << "the sanitizer's allocator replaces glibc's";
#endif
    // Each of these fixes glibc's bound too, and the untuned child would give its blocks back.
    const char* tunables = std::getenv("GLIBC_TUNABLES");
    for (const char* name : {"MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_", "MALLOC_MMAP_MAX_"})
        if (std::getenv(name)) GTEST_SKIP() << name << " is set: malloc is tuned in the environment";
    if (tunables && std::strstr(tunables, "glibc.malloc.")) GTEST_SKIP() << "GLIBC_TUNABLES tunes malloc";
    const int tuned = mib_kept_after_freeing(true);
    const int untuned = mib_kept_after_freeing(false);
    ASSERT_NE(tuned, kStatmUnreadable) << "/proc/self/statm unreadable";
    ASSERT_NE(untuned, kStatmUnreadable) << "/proc/self/statm unreadable";
    EXPECT_GE(tuned, 0);
    EXPECT_LE(tuned, 4) << "MiB still resident after 64 MiB of large blocks were freed";
    EXPECT_GE(untuned, 48) << "glibc's own bound keeps them: the test can tell";
}

// What /metrics reports as malloc's heap: blocks allocated show in the bytes in use, those cut
// from an arena and those mapped on their own alike, and leave it when freed.
TEST(FreeMemory, HeapBytesInUseFollowWhatIsAllocated) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    GTEST_SKIP() << "the sanitizer's allocator replaces glibc's";
#endif
    const int64_t before = heap_bytes().in_use;
    if (before < 0) GTEST_SKIP() << "glibc before 2.33 has no mallinfo2";
    std::vector<char*> blocks;
    const size_t small = 100 << 10, large = 8 << 20;  // 100 KiB from an arena, 8 MiB mapped on its own
    for (int i = 0; i < 200; ++i) blocks.push_back(static_cast<char*>(std::malloc(small)));
    for (int i = 0; i < 4; ++i) blocks.push_back(static_cast<char*>(std::malloc(large)));
    for (char* b : blocks) {
        ASSERT_NE(b, nullptr);
        std::memset(b, 1, small);  // used, so no compiler takes the allocations away
    }
    const int64_t allocated = 200 * int64_t(small) + 4 * int64_t(large);
    const HeapBytes during = heap_bytes();
    for (char* b : blocks) std::free(b);
    const HeapBytes after = heap_bytes();
    EXPECT_GE(during.in_use - before, allocated) << "bytes in use while " << allocated << " are allocated";
    EXPECT_LT(during.in_use - before, allocated + (4 << 20));
    EXPECT_LT(std::abs(after.in_use - before), 1 << 20) << "bytes in use once they are freed";
    EXPECT_GE(after.free_kept, 0);
}
#endif

}  // namespace
}  // namespace vf
