#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <vector>

#include "common/thread_pool.hpp"

namespace vf {

TEST(ThreadPool, RunsEveryTaskOnceAcrossRepeatedCalls) {
    ThreadPool pool(4);
    for (int round = 0; round < 200; ++round) {
        const int n = 1 + round % 37;
        std::vector<std::atomic<int>> hits(n);
        pool.parallel_for(n, [&](int task, int worker) {
            ASSERT_GE(worker, 0);
            ASSERT_LT(worker, pool.size());
            ++hits[task];
        });
        for (int i = 0; i < n; ++i) ASSERT_EQ(hits[i].load(), 1) << "round " << round << " task " << i;
    }
}

TEST(ThreadPool, RethrowsTheFirstErrorAfterAllTasksFinish) {
    ThreadPool pool(3);
    std::atomic<int> done{0};
    EXPECT_THROW(pool.parallel_for(20,
                                   [&](int task, int) {
                                       ++done;
                                       if (task == 5) throw std::runtime_error("boom");
                                   }),
                 std::runtime_error);
    EXPECT_EQ(done.load(), 20);
    // Still usable afterwards.
    std::atomic<int> again{0};
    pool.parallel_for(10, [&](int, int) { ++again; });
    EXPECT_EQ(again.load(), 10);
}

}  // namespace vf
