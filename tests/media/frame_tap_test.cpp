// FrameTap (media/frame_tap.cpp): offers cost nothing without a reader, a reader gets the first
// frame offered after it asked (a reference, never an older frame), readers waiting together
// share one reference, and the tap lets go of the frame once the last of them took it.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "media/frame_tap.hpp"

namespace vf {
namespace {

using namespace std::chrono_literals;

AvFramePtr frame_with_pts(int64_t pts) {
    AvFramePtr f = make_frame();
    f->format = AV_PIX_FMT_GRAY8;
    f->width = 16;
    f->height = 16;
    EXPECT_EQ(av_frame_get_buffer(f.get(), 0), 0);
    f->pts = pts;
    return f;
}

int refs(const AvFramePtr& f) { return av_buffer_get_ref_count(f->buf[0]); }

// Offers frames 1, 2, ... every `gap` until stopped, from a thread of its own (the pipeline).
class Offering {
public:
    Offering(FrameTap& tap, std::chrono::milliseconds gap) : thread_([this, &tap, gap] {
        for (int64_t pts = 1; !stop_; ++pts) {
            AvFramePtr f = frame_with_pts(pts);
            tap.offer(f.get());
            last_ = pts;
            std::this_thread::sleep_for(gap);
        }
    }) {}
    ~Offering() {
        stop_ = true;
        thread_.join();
    }
    int64_t last() const { return last_; }

private:
    std::atomic<bool> stop_{false};
    std::atomic<int64_t> last_{0};
    std::thread thread_;
};

TEST(FrameTap, WithoutAReaderAnOfferTakesNothing) {
    FrameTap tap;
    AvFramePtr f = frame_with_pts(1);
    tap.offer(f.get());
    EXPECT_EQ(refs(f), 1);
    EXPECT_EQ(tap.frames_taken(), 0);
    EXPECT_EQ(tap.next(30ms), nullptr) << "an offer before the reader asked is not given to it";
}

TEST(FrameTap, AReaderGetsAFrameOfferedAfterItAskedByReference) {
    FrameTap tap;
    Offering offering(tap, 5ms);
    std::this_thread::sleep_for(30ms);
    const int64_t asked_after = offering.last();
    AvFramePtr got = tap.next(2s);
    ASSERT_NE(got, nullptr);
    EXPECT_GT(got->pts, asked_after);
    EXPECT_GE(refs(got), 1);
    EXPECT_GE(tap.frames_taken(), 1);
}

TEST(FrameTap, ReadersWaitingTogetherShareOneReferenceAndItIsLetGo) {
    FrameTap tap;
    std::vector<AvFramePtr> got(3);
    std::vector<std::thread> readers;
    for (auto& g : got) readers.emplace_back([&tap, &g] { g = tap.next(2s); });
    for (int i = 0; i < 1000 && tap.waiting() < 3; ++i) std::this_thread::sleep_for(10ms);
    EXPECT_EQ(tap.waiting(), 3) << "all three wait";
    AvFramePtr f = frame_with_pts(42);
    tap.offer(f.get());
    for (auto& t : readers) t.join();
    for (const auto& g : got) {
        ASSERT_NE(g, nullptr);
        EXPECT_EQ(g->pts, 42);
        EXPECT_EQ(g->data[0], f->data[0]) << "a reference to the offered pixels, not a copy";
    }
    EXPECT_EQ(tap.frames_taken(), 1) << "one offer served every reader";
    got.clear();
    EXPECT_EQ(refs(f), 1) << "the tap still holds the frame after its readers let go";
}

TEST(FrameTap, TimeoutAndClose) {
    FrameTap tap;
    const auto t = std::chrono::steady_clock::now();
    EXPECT_EQ(tap.next(50ms), nullptr);
    EXPECT_GE(std::chrono::steady_clock::now() - t, 45ms);
    std::thread closer([&] {
        std::this_thread::sleep_for(50ms);
        tap.close();
    });
    const auto t2 = std::chrono::steady_clock::now();
    EXPECT_EQ(tap.next(5s), nullptr);
    EXPECT_LT(std::chrono::steady_clock::now() - t2, 2s) << "close wakes a waiting reader";
    closer.join();
    const auto t3 = std::chrono::steady_clock::now();
    EXPECT_EQ(tap.next(5s), nullptr) << "a closed tap gives nothing";
    EXPECT_LT(std::chrono::steady_clock::now() - t3, 1s) << "and answers at once";
}

TEST(FrameTap, ManyReadersAgainstAFastPipeline) {
    FrameTap tap;
    Offering offering(tap, 0ms);
    std::vector<std::thread> readers;
    std::atomic<int> frames{0};
    for (int r = 0; r < 4; ++r)
        readers.emplace_back([&] {
            int64_t last = 0;
            for (int i = 0; i < 50; ++i) {
                AvFramePtr f = tap.next(2s);
                ASSERT_NE(f, nullptr);
                EXPECT_GT(f->pts, last) << "never an older frame than one already seen";
                last = f->pts;
                ++frames;
            }
        });
    for (auto& t : readers) t.join();
    EXPECT_EQ(frames.load(), 200);
}

TEST(FrameTap, ASamplerAsksWithoutWaitingAndTakesOneFrameOnly) {
    FrameTap tap;
    EXPECT_EQ(tap.take_sample(), nullptr) << "nothing before it asked";
    AvFramePtr before = frame_with_pts(1);
    tap.offer(before.get());
    EXPECT_EQ(refs(before), 1) << "an offer before the ask takes nothing";
    tap.ask_sample();
    EXPECT_EQ(tap.take_sample(), nullptr) << "asked, nothing offered yet";
    AvFramePtr first = frame_with_pts(2), second = frame_with_pts(3);
    tap.offer(first.get());
    tap.offer(second.get());
    EXPECT_EQ(refs(second), 1) << "once the sampler had its frame, offers take nothing";
    AvFramePtr got = tap.take_sample();
    ASSERT_NE(got, nullptr);
    EXPECT_EQ(got->pts, 2);
    EXPECT_EQ(got->data[0], first->data[0]) << "a reference, not a copy";
    EXPECT_EQ(tap.take_sample(), nullptr) << "taken once";
    got.reset();
    EXPECT_EQ(refs(first), 1);
    tap.ask_sample();
    tap.drop_sample();
    AvFramePtr after_drop = frame_with_pts(4);
    tap.offer(after_drop.get());
    EXPECT_EQ(refs(after_drop), 1) << "a withdrawn ask takes nothing";
    EXPECT_EQ(tap.take_sample(), nullptr);
}

TEST(FrameTap, ASamplerAndAWaitingReaderShareAnOffer) {
    FrameTap tap;
    tap.ask_sample();
    AvFramePtr read;
    std::thread reader([&] { read = tap.next(2s); });
    std::this_thread::sleep_for(100ms);
    AvFramePtr f = frame_with_pts(7);
    tap.offer(f.get());
    reader.join();
    ASSERT_NE(read, nullptr);
    AvFramePtr sampled = tap.take_sample();
    ASSERT_NE(sampled, nullptr);
    EXPECT_EQ(read->pts, 7);
    EXPECT_EQ(sampled->pts, 7);
    read.reset();
    sampled.reset();
    EXPECT_EQ(refs(f), 1) << "neither the reader's share nor the sampler's is kept by the tap";
    tap.ask_sample();
    tap.close();
    AvFramePtr after = frame_with_pts(8);
    tap.offer(after.get());
    EXPECT_EQ(tap.take_sample(), nullptr) << "a closed tap gives the sampler nothing";
}

}  // namespace
}  // namespace vf
