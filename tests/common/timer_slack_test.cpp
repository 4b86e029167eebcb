#include "common/timer_slack.hpp"

#include <gtest/gtest.h>

#include <thread>

namespace vf {
namespace {

TEST(TimerSlack, SetsTheCallingThreadsOnlyAndZeroRestoresTheDefault) {
    const int main_before = thread_timer_slack_us();
    ASSERT_GE(main_before, 0) << "no timer slack on this system";
    int set = -1, restored = -1, default_slack = -1;
    std::thread worker([&] {
        default_slack = thread_timer_slack_us();
        ASSERT_TRUE(set_thread_timer_slack_us(700));
        set = thread_timer_slack_us();
        ASSERT_TRUE(set_thread_timer_slack_us(0));
        restored = thread_timer_slack_us();
    });
    worker.join();
    EXPECT_EQ(set, 700);
    EXPECT_EQ(restored, default_slack);
    EXPECT_NE(default_slack, 700);
    EXPECT_EQ(thread_timer_slack_us(), main_before);  // another thread's setting stays its own
}

TEST(TimerSlack, RefusesANegativeValue) {
    const int before = thread_timer_slack_us();
    EXPECT_FALSE(set_thread_timer_slack_us(-5));
    EXPECT_EQ(thread_timer_slack_us(), before);
}

}  // namespace
}  // namespace vf
