// The batch window of the shared GPU stage, driven by plain threads: which jobs share a launch,
// when a flush happens, and what leaving and failing do. The serve tests run it under
// ThreadSanitizer (scripts/sanitize.sh).
#include "pipeline/batch_window.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "common/error.hpp"

namespace vf {
namespace {

using namespace std::chrono_literals;

struct TestJob : BatchJob {
    int id = 0;
    int kind = 0;  // what must really be equal; `group` is a hash that may collide
};

struct Recorder {
    std::mutex mutex;
    std::vector<std::vector<int>> launches;  // the ids of each launch
    std::vector<int> times_launched = std::vector<int>(100000, 0);
    bool mixed = false;

    BatchWindow::Launch launch() {
        return [this](const std::vector<BatchJob*>& jobs) {
            std::lock_guard<std::mutex> lock(mutex);
            std::vector<int> ids;
            for (BatchJob* j : jobs) {
                const auto& t = static_cast<const TestJob&>(*j);
                if (t.kind != static_cast<const TestJob&>(*jobs.front()).kind) mixed = true;
                ids.push_back(t.id);
                ++times_launched[static_cast<size_t>(t.id)];
            }
            launches.push_back(ids);
        };
    }
};

BatchWindow::SameGroup same_kind() {
    return [](const BatchJob& a, const BatchJob& b) {
        return static_cast<const TestJob&>(a).kind == static_cast<const TestJob&>(b).kind;
    };
}

BatchWindowOptions waiting(std::chrono::microseconds max_wait, int max_batch = 16) {
    BatchWindowOptions o;
    o.max_wait = max_wait;
    o.max_batch = max_batch;
    return o;
}

bool launched_within(BatchWindow& w, BatchJob& job, std::chrono::milliseconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!w.launched(job, false)) {
        if (std::chrono::steady_clock::now() > deadline) return false;
        std::this_thread::sleep_for(1ms);
    }
    return true;
}

TEST(BatchWindow, ProducersInStepShareOneLaunch) {
    Recorder r;
    BatchWindow w(waiting(60s), same_kind(), r.launch());
    int producers[8];
    TestJob jobs[8];
    for (int i = 0; i < 8; ++i) w.join(&producers[i]);
    for (int i = 0; i < 8; ++i) {
        jobs[i].producer = &producers[i];
        jobs[i].id = i;
        w.submit(jobs[i]);
    }
    for (auto& j : jobs) ASSERT_TRUE(launched_within(w, j, 10s));
    ASSERT_EQ(r.launches.size(), 1u);
    EXPECT_EQ(r.launches[0], (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));  // arrival order
    EXPECT_EQ(w.counts().jobs, 8);
    EXPECT_EQ(w.counts().largest, 8);
}

TEST(BatchWindow, GroupsNeverShareALaunchEvenWhenTheirHashesCollide) {
    Recorder r;
    BatchWindow w(waiting(60s), same_kind(), r.launch());
    int producers[6];
    TestJob jobs[6];
    for (int i = 0; i < 6; ++i) w.join(&producers[i]);
    for (int i = 0; i < 6; ++i) {
        jobs[i].producer = &producers[i];
        jobs[i].id = i;
        jobs[i].kind = i % 3;                   // three real groups
        jobs[i].group = i % 3 == 2 ? 0 : i % 3;  // kinds 0 and 2 collide on hash 0
    }
    for (auto& j : jobs) w.submit(j);
    for (auto& j : jobs) ASSERT_TRUE(launched_within(w, j, 10s));
    EXPECT_FALSE(r.mixed);
    EXPECT_EQ(r.launches.size(), 3u);
    EXPECT_EQ(w.counts().largest, 2);
}

TEST(BatchWindow, AJobWaitsForAnotherProducerAtMostMaxWait) {
    Recorder r;
    const auto max_wait = 150ms;
    BatchWindow w(waiting(max_wait), same_kind(), r.launch());
    int a = 0, b = 0;
    w.join(&a);
    w.join(&b);  // b never submits: only the time limit can launch a's job
    TestJob j;
    j.producer = &a;
    const auto t0 = std::chrono::steady_clock::now();
    w.submit(j);
    EXPECT_TRUE(w.launched(j, true));
    EXPECT_GE(std::chrono::steady_clock::now() - t0, max_wait);
}

TEST(BatchWindow, AProducerAloneInItsGroupDoesNotWaitForOthers) {
    Recorder r;
    BatchWindow w(waiting(600s), same_kind(), r.launch());
    int a = 0, b = 0;
    w.join(&a);
    w.join(&b);
    TestJob ja1, jb1, jb2, ja2;
    for (TestJob* j : {&ja1, &ja2}) j->producer = &a;
    for (TestJob* j : {&jb1, &jb2}) j->producer = &b;
    ja1.id = 1, jb1.id = 2, jb2.id = 3, ja2.id = 4;
    ja1.group = ja1.kind = jb1.group = jb1.kind = ja2.group = ja2.kind = 1;
    jb2.group = jb2.kind = 2;
    w.submit(ja1);  // waits for b, which has not submitted yet
    w.submit(jb1);  // in step: one launch
    ASSERT_TRUE(launched_within(w, ja1, 10s));
    ASSERT_TRUE(launched_within(w, jb1, 10s));
    ASSERT_EQ(r.launches.size(), 1u);
    w.submit(jb2);  // b moves to group 2, where it is alone: at once
    ASSERT_TRUE(launched_within(w, jb2, 10s));
    w.submit(ja2);  // and a is now alone in group 1: at once
    EXPECT_TRUE(launched_within(w, ja2, 10s));
    EXPECT_EQ(r.launches.size(), 3u);
}

TEST(BatchWindow, MaxBatchJobsFlushAtOnce) {
    Recorder r;
    BatchWindow w(waiting(600s, 4), same_kind(), r.launch());
    int a = 0, b = 0;
    w.join(&a);
    w.join(&b);  // never in step
    TestJob jobs[4];
    for (int i = 0; i < 4; ++i) {
        jobs[i].producer = &a;
        jobs[i].id = i;
        w.submit(jobs[i]);
    }
    for (auto& j : jobs) EXPECT_TRUE(launched_within(w, j, 10s));
}

TEST(BatchWindow, LeavingDropsTheProducersWaitingJobs) {
    Recorder r;
    BatchWindow w(waiting(600s), same_kind(), r.launch());
    int a = 0, b = 0;
    w.join(&a);
    w.join(&b);
    TestJob ja, jb;
    ja.producer = &a;
    ja.id = 1;
    jb.producer = &b;
    jb.id = 2;
    w.submit(ja);  // waits for b
    w.leave(&a);
    EXPECT_FALSE(w.launched(ja, false));
    w.submit(jb);  // b is now alone: at once
    EXPECT_TRUE(launched_within(w, jb, 10s));
    EXPECT_FALSE(w.launched(ja, false));
    EXPECT_EQ(r.times_launched[1], 0);
}

TEST(BatchWindow, ALaunchErrorFailsEveryJobOfItsGroupWithItsCategory) {
    BatchWindow w(
        waiting(600s), same_kind(),
        [](const std::vector<BatchJob*>& jobs) {
            if (static_cast<const TestJob&>(*jobs.front()).kind == 1) fail(ErrorCategory::Device, "out of memory");
        });
    int p[3];
    TestJob jobs[3];
    for (int i = 0; i < 3; ++i) {
        w.join(&p[i]);
        jobs[i].producer = &p[i];
        jobs[i].kind = jobs[i].group = i == 2 ? 0 : 1;
    }
    for (auto& j : jobs) w.submit(j);
    for (int i = 0; i < 2; ++i) {
        try {
            w.launched(jobs[i], true);
            ADD_FAILURE() << "job " << i << " did not fail";
        } catch (const Error& e) {
            EXPECT_EQ(e.category(), ErrorCategory::Device);
            EXPECT_STREQ(e.what(), "out of memory");
        }
    }
    EXPECT_TRUE(w.launched(jobs[2], true));
}

TEST(BatchWindow, DestroyingTheWindowLaunchesWhatWaits) {
    Recorder r;
    int a = 0, b = 0;
    TestJob j;
    j.producer = &a;
    j.id = 7;
    {
        BatchWindow w(waiting(600s), same_kind(), r.launch());
        w.join(&a);
        w.join(&b);
        w.submit(j);
    }
    EXPECT_EQ(r.times_launched[7], 1);
    EXPECT_TRUE(j.launched);
}

// Many streams, each with frames in flight as the GPU engine keeps them, in three filter groups;
// a quarter of them leave half way. Every frame submitted and not dropped by leaving launches
// exactly once, groups never mix, and streams in step do share launches.
TEST(BatchWindow, ManyStreamsWithFramesInFlight) {
    Recorder r;
    BatchWindow w(waiting(2ms), same_kind(), r.launch());
    constexpr int kStreams = 16, kFrames = 120, kInFlight = 3;
    std::atomic<int> dropped{0};
    std::vector<std::thread> threads;
    for (int s = 0; s < kStreams; ++s) {
        threads.emplace_back([&, s] {
            const bool leaves = s % 4 == 3;
            int self = 0;
            w.join(&self);
            TestJob ring[kInFlight];
            int64_t submitted = 0, taken = 0;
            const int frames = leaves ? kFrames / 2 : kFrames;
            while (taken < frames) {
                if (submitted < frames && submitted - taken < kInFlight) {
                    TestJob& j = ring[submitted % kInFlight];
                    j.producer = &self;
                    j.id = s * kFrames + static_cast<int>(submitted);
                    j.kind = j.group = s % 3;
                    w.submit(j);
                    ++submitted;
                    continue;
                }
                ASSERT_TRUE(w.launched(ring[taken % kInFlight], true));
                ++taken;
            }
            if (leaves) {  // with nothing in flight: a stream removed between frames
                TestJob extra;
                extra.producer = &self;
                extra.id = s * kFrames + kFrames - 1;
                extra.kind = extra.group = s % 3;
                w.submit(extra);
                w.leave(&self);  // launched or dropped, never both nor half
                if (!w.launched(extra, false)) ++dropped;
                return;
            }
            w.leave(&self);
        });
    }
    for (auto& t : threads) t.join();
    EXPECT_FALSE(r.mixed);
    int launched_frames = 0;
    for (int s = 0; s < kStreams; ++s)
        for (int f = 0; f < kFrames; ++f) {
            const int n = r.times_launched[static_cast<size_t>(s * kFrames + f)];
            EXPECT_LE(n, 1) << "stream " << s << " frame " << f;
            launched_frames += n;
        }
    const int leavers = kStreams / 4;
    EXPECT_EQ(launched_frames, (kStreams - leavers) * kFrames + leavers * (kFrames / 2) + leavers - dropped.load());
    EXPECT_GT(w.counts().largest, 1) << "no two frames ever shared a launch";
}

}  // namespace
}  // namespace vf
