#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "pipeline/bounded_queue.hpp"

namespace vf {

TEST(BoundedQueue, KeepsOrderAndBlocksWhenFull) {
    BoundedQueue<int> q(3);
    std::atomic<int> pushed{0};
    std::thread producer([&] {
        for (int i = 0; i < 100; ++i) {
            q.push(i);
            ++pushed;
        }
        q.close();
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_LE(pushed.load(), 3);  // backpressure: the producer waits for the consumer
    EXPECT_LE(q.size(), 3u);
    for (int i = 0; i < 100; ++i) {
        auto v = q.pop();
        ASSERT_TRUE(v.has_value());
        EXPECT_EQ(*v, i);
    }
    EXPECT_FALSE(q.pop().has_value());  // closed and drained
    producer.join();
}

TEST(BoundedQueue, AbortWakesBlockedProducerAndConsumer) {
    BoundedQueue<int> full(1), empty(1);
    full.push(1);
    std::atomic<bool> push_returned{false}, pop_returned{false};
    bool push_result = true;
    std::thread p([&] { push_result = full.push(2); push_returned = true; });
    std::thread c([&] { EXPECT_FALSE(empty.pop().has_value()); pop_returned = true; });
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    EXPECT_FALSE(push_returned.load());
    EXPECT_FALSE(pop_returned.load());
    full.abort();
    empty.abort();
    p.join();
    c.join();
    EXPECT_FALSE(push_result);
    EXPECT_FALSE(full.pop().has_value());
}

TEST(BoundedQueue, CloseLetsTheConsumerDrainWhatIsLeft) {
    BoundedQueue<int> q(4);
    q.push(7);
    q.push(8);
    q.close();
    EXPECT_FALSE(q.push(9));
    EXPECT_EQ(*q.pop(), 7);
    EXPECT_EQ(*q.pop(), 8);
    EXPECT_FALSE(q.pop().has_value());
}

}  // namespace vf

namespace vf {
namespace {

TEST(BoundedQueue, TryPushNeverBlocksAndTellsFullFromEnded) {
    BoundedQueue<int> q(2);
    int a = 1, b = 2, c = 3;
    EXPECT_EQ(q.try_push(a), BoundedQueue<int>::TryPush::Pushed);
    EXPECT_EQ(q.try_push(b), BoundedQueue<int>::TryPush::Pushed);
    EXPECT_EQ(q.try_push(c), BoundedQueue<int>::TryPush::Full);
    EXPECT_EQ(c, 3) << "a refused item stays with the caller";
    EXPECT_EQ(*q.pop(), 1);
    EXPECT_EQ(q.try_push(c), BoundedQueue<int>::TryPush::Pushed);
    q.close();
    int d = 4;
    EXPECT_EQ(q.try_push(d), BoundedQueue<int>::TryPush::Ended);
    BoundedQueue<int> aborted(1);
    aborted.abort();
    EXPECT_EQ(aborted.try_push(d), BoundedQueue<int>::TryPush::Ended);
}

TEST(BoundedQueue, PopForGivesUpAfterItsWaitAndSeesTheEnd) {
    BoundedQueue<int> q(2);
    int v = -1;
    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_EQ(q.pop_for(std::chrono::milliseconds(30), &v), BoundedQueue<int>::Popped::Timeout);
    EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(30));
    EXPECT_EQ(v, -1);
    ASSERT_TRUE(q.push(7));
    q.close();
    EXPECT_EQ(q.pop_for(std::chrono::milliseconds(30), &v), BoundedQueue<int>::Popped::Item);
    EXPECT_EQ(v, 7);  // what was left before close() is drained first
    EXPECT_EQ(q.pop_for(std::chrono::milliseconds(30), &v), BoundedQueue<int>::Popped::Ended);
    BoundedQueue<int> aborted(2);
    ASSERT_TRUE(aborted.push(1));
    aborted.abort();
    EXPECT_EQ(aborted.pop_for(std::chrono::milliseconds(30), &v), BoundedQueue<int>::Popped::Ended);
}

}  // namespace
}  // namespace vf

