// The ring, ordering, backpressure and shutdown logic of the multi-frame filter stage, tested
// through its CPU stand-in (CpuFrameEngine: one worker per slot where the GPU has one stream per
// slot), so it runs in CI without a GPU, under ThreadSanitizer too. Frames are made to finish out
// of order on purpose (random delays per frame); they must still leave in order, identical to
// the synchronous path, with passthrough packets exactly where they were.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <random>
#include <thread>
#include <vector>

#include "config/filter_registry.hpp"
#include "decode/file_source.hpp"
#include "encode/sink.hpp"
#include "pipeline/cpu_frame_engine.hpp"
#include "pipeline/filter_stage.hpp"
#include "pipeline/pipeline.hpp"
#include "support/clip_writer.hpp"
#include "support/expected_output.hpp"
#include "support/run_command.hpp"

namespace vf {
namespace {

using namespace test;
using namespace std::chrono_literals;


// Delays each frame by a pseudo-random 0-3 ms, so later frames often finish first.
std::function<void(int64_t)> jitter() {
    return [](int64_t i) { std::this_thread::sleep_for(std::chrono::microseconds((i * 7919) % 3000)); };
}

TEST(CpuFrameEngine, FramesFinishOutOfOrderAndLeaveInOrder) {
    const std::string chain = "gaussian=sigma=1.5,sobel=planes=all";
    CpuFrameEngine engine(build_chain(chain), 4, jitter());
    FramePool inputs(67, 45, AV_PIX_FMT_YUV420P), outputs(67, 45, AV_PIX_FMT_YUV420P);
    std::mt19937 rng(3);
    std::vector<AvFramePtr> expected, got;
    for (int i = 0; i < 40; ++i) {
        AvFramePtr in = random_frame(inputs, rng, i);
        expected.push_back(reference_filter(in.get(), chain));
        if (engine.in_flight() == engine.capacity()) got.push_back(engine.take(true));
        engine.submit(std::move(in), outputs);
        EXPECT_LE(engine.in_flight(), engine.capacity());
        if (rng() % 2)
            while (AvFramePtr f = engine.take(false)) got.push_back(std::move(f));
    }
    while (AvFramePtr f = engine.take(true)) got.push_back(std::move(f));
    ASSERT_EQ(got.size(), expected.size());
    for (size_t i = 0; i < got.size(); ++i) {
        EXPECT_EQ(got[i]->pts, static_cast<int64_t>(i));
        EXPECT_EQ(frame_differences(got[i].get(), expected[i].get()), 0) << "frame " << i;
    }
    EXPECT_EQ(engine.max_in_flight(), 4) << "the ring never filled: the test did not exercise backpressure";
}

TEST(CpuFrameEngine, PollingNeverSkipsTheOldestFrame) {
    std::atomic<bool> release_first{false};
    CpuFrameEngine engine(build_chain("box=radius=1"), 3, [&](int64_t i) {
        if (i == 0)
            while (!release_first) std::this_thread::sleep_for(1ms);
    });
    FramePool pool(16, 16, AV_PIX_FMT_GRAY8);
    std::mt19937 rng(1);
    engine.submit(random_frame(pool, rng, 0), pool);
    engine.submit(random_frame(pool, rng, 1), pool);
    std::this_thread::sleep_for(20ms);  // frame 1 is done by now; frame 0 is held
    EXPECT_EQ(engine.take(false), nullptr) << "a later frame overtook the oldest";
    release_first = true;
    AvFramePtr a = engine.take(true), b = engine.take(true);
    ASSERT_TRUE(a && b);
    EXPECT_EQ(a->pts, 0);
    EXPECT_EQ(b->pts, 1);
    EXPECT_EQ(engine.take(true), nullptr);
}

TEST(CpuFrameEngine, AFailedFrameIsReportedInItsTurn) {
    CpuFrameEngine engine(build_chain("sharpen"), 2, [](int64_t i) {
        if (i == 3) throw Error(ErrorCategory::Device, "injected failure");
    });
    FramePool pool(20, 10, AV_PIX_FMT_GRAY8);
    std::mt19937 rng(2);
    int taken = 0;
    try {
        for (int i = 0; i < 10; ++i) {
            if (engine.in_flight() == engine.capacity()) {
                engine.take(true);
                ++taken;
            }
            engine.submit(random_frame(pool, rng, i), pool);
        }
        FAIL() << "the failure was not reported";
    } catch (const Error& e) {
        EXPECT_EQ(e.category(), ErrorCategory::Device);
        EXPECT_EQ(taken, 3) << "frames before the failed one come out first";
    }
}

TEST(CpuFrameEngine, DestroyedWithFramesInFlight) {
    FramePool pool(32, 32, AV_PIX_FMT_GRAY8);
    std::mt19937 rng(4);
    std::vector<AVBufferRef*> held;  // a reference of ours to each submitted frame's pixels
    const auto start = std::chrono::steady_clock::now();
    {
        CpuFrameEngine engine(build_chain("emboss"), 3, [](int64_t) { std::this_thread::sleep_for(5ms); });
        for (int i = 0; i < 3; ++i) {
            AvFramePtr frame = random_frame(pool, rng, i);
            held.push_back(av_buffer_ref(frame->buf[0]));
            engine.submit(std::move(frame), pool);
        }
    }  // must neither hang nor leak (ASan) nor race (TSan)
    EXPECT_LT(std::chrono::steady_clock::now() - start, 2s) << "the engine's end waited for more than its frames";
    for (AVBufferRef*& ref : held) {
        EXPECT_EQ(av_buffer_get_ref_count(ref), 1) << "the engine still holds a frame it was given";
        av_buffer_unref(&ref);
    }
}

// Records what reaches the sink, in order: frames (copied) and packets (stream and pts).
class RecordingSink : public Sink {
public:
    void write_frame(const AVFrame* f, Clock::time_point) override {
        AvFramePtr copy = make_frame();
        copy->format = f->format;
        copy->width = f->width;
        copy->height = f->height;
        if (av_frame_get_buffer(copy.get(), 0) < 0 || av_frame_copy(copy.get(), f) < 0) throw std::runtime_error("copy");
        copy->pts = f->pts;
        order.push_back("v" + std::to_string(f->pts));
        frames.push_back(std::move(copy));
    }
    void write_packet(PassthroughPacket& p) override {
        order.push_back("a" + std::to_string(p.source_stream) + ":" + std::to_string(p.packet->pts));
    }
    void finish() override { finished = true; }
    std::string describe() const override { return "recording"; }
    std::vector<std::string> order;
    std::vector<AvFramePtr> frames;
    bool finished = false;
};

struct Recorded {
    RunStats stats;
    std::vector<std::string> order;
    std::vector<AvFramePtr> frames;
    int max_in_flight = 0;
    bool finished = false;       // the pipeline finished the sink (output finalised)
    std::exception_ptr error;    // what Pipeline::run threw, if anything
};

// The filter stage on the CPU stand-in with `slots` slots (0: the synchronous path) and its hooks.
FilterStageOptions stand_in(int slots, std::function<void(int64_t)> hook = nullptr,
                            std::function<void(int64_t)> submit_hook = nullptr) {
    FilterStageOptions fo;
    fo.threads = 2;
    if (slots > 0)
        fo.engine_factory = [slots, hook, submit_hook](const std::vector<FilterPlan>& chain) {
            return std::make_unique<CpuFrameEngine>(chain, slots, hook, submit_hook);
        };
    return fo;
}

// Runs clip -> chain -> RecordingSink; `during` runs on a side thread while the pipeline runs.
Recorded run_pipeline(const std::string& clip, const std::string& chain, const FilterStageOptions& fo, size_t queue = 4,
                      const std::function<void(Pipeline&)>& during = nullptr) {
    FileSourceOptions so;
    so.url = clip;
    FileSource source(so);
    FilterStage filter(build_chain(chain), fo);
    RecordingSink sink;
    PipelineOptions po;
    po.queue_frames = queue;
    Pipeline pipeline(source, filter, sink, po);
    std::thread side;
    if (during) side = std::thread([&] { during(pipeline); });
    Recorded r;
    try {
        r.stats = pipeline.run();
    } catch (...) {
        r.error = std::current_exception();
    }
    if (side.joinable()) side.join();
    r.finished = sink.finished;
    r.order = std::move(sink.order);
    r.frames = std::move(sink.frames);
    if (auto* e = dynamic_cast<const CpuFrameEngine*>(filter.engine())) r.max_in_flight = e->max_in_flight();
    return r;
}

// The error a run ended with, for EXPECTs on its category and message.
Error error_of(const Recorded& r) {
    try {
        if (r.error) std::rethrow_exception(r.error);
    } catch (const Error& e) {
        return e;
    }
    return Error(ErrorCategory::Internal, "no error");
}

std::string audio_clip(const std::string& dir, int frames) {
    ClipSpec c;
    c.path = dir + "/in.mkv";
    c.width = 96;
    c.height = 54;
    c.frames = frames;
    c.audio = true;
    write_clip(c);
    return c.path;
}

TEST(PipelineWithFramesInFlight, SameFramesAndPacketOrderAsTheSynchronousPath) {
    const std::string clip = audio_clip(temp_dir(), 60);
    const std::string chain = "box=radius=2,sobel=planes=all";
    const Recorded sync = run_pipeline(clip, chain, stand_in(0));
    for (int slots : {1, 3, 6}) {
        const Recorded async = run_pipeline(clip, chain, stand_in(slots, jitter()));
        ASSERT_EQ(async.frames.size(), 60u) << slots << " slots";
        EXPECT_EQ(async.order, sync.order) << "packets overtook video or frames reordered, " << slots << " slots";
        for (size_t i = 0; i < async.frames.size(); ++i)
            EXPECT_EQ(frame_differences(async.frames[i].get(), sync.frames[i].get()), 0) << "frame " << i;
        EXPECT_LE(async.max_in_flight, slots) << "more frames in flight than slots";
        EXPECT_EQ(async.stats.frames_out, 60);
    }
    EXPECT_GT(std::count_if(sync.order.begin(), sync.order.end(), [](const std::string& s) { return s[0] == 'a'; }), 0)
        << "the clip has no audio: the packet ordering was not tested";
}

TEST(PipelineWithFramesInFlight, StopsCleanlyMidStream) {
    const std::string clip = audio_clip(temp_dir(), 200);
    const Recorded r = run_pipeline(clip, "sharpen", stand_in(4, [](int64_t) { std::this_thread::sleep_for(2ms); }), 4,
                                    [](Pipeline& p) {
                                        std::this_thread::sleep_for(60ms);
                                        p.stop();
                                    });
    EXPECT_GT(r.frames.size(), 0u);
    EXPECT_LT(r.frames.size(), 200u) << "stop() did not stop the source";
    for (size_t i = 1; i < r.frames.size(); ++i) EXPECT_GT(r.frames[i]->pts, r.frames[i - 1]->pts);
}

TEST(PipelineWithFramesInFlight, AGpuFailureFinalisesWhatWasFiltered) {
    const std::string clip = audio_clip(temp_dir(), 80);
    const Recorded r = run_pipeline(clip, "emboss", stand_in(3, [](int64_t i) {
                                        if (i == 17) throw Error(ErrorCategory::Device, "injected: out of GPU memory");
                                    }));
    ASSERT_TRUE(r.error) << "the failure was swallowed";
    const Error e = error_of(r);
    EXPECT_EQ(e.category(), ErrorCategory::Device);
    EXPECT_NE(std::string(e.what()).find("finalised with the 17 frames"), std::string::npos) << e.what();
    EXPECT_TRUE(r.finished) << "the output must be finalised after a GPU failure";
    ASSERT_EQ(r.frames.size(), 17u);
}

TEST(PipelineWithFramesInFlight, AFrameThatCannotStartKeepsTheFramesBeforeIt) {
    const std::string clip = audio_clip(temp_dir(), 60);
    const Recorded r = run_pipeline(
        clip, "sharpen",
        stand_in(4, [](int64_t) { std::this_thread::sleep_for(3ms); },  // keep frames in flight
                 [](int64_t i) {
                     if (i == 20) throw Error(ErrorCategory::Device, "injected: out of GPU memory");
                 }));
    EXPECT_TRUE(r.error);
    EXPECT_TRUE(r.finished);
    ASSERT_EQ(r.frames.size(), 20u) << "frames in flight before the failed one were lost";
    for (size_t i = 1; i < r.frames.size(); ++i) EXPECT_GT(r.frames[i]->pts, r.frames[i - 1]->pts);
}

TEST(PipelineWithFramesInFlight, AFilterFailureStopsEveryStage) {
    const std::string clip = audio_clip(temp_dir(), 80);
    const Recorded r = run_pipeline(clip, "emboss", stand_in(3, [](int64_t i) {
                                        if (i == 17) throw Error(ErrorCategory::Internal, "injected filter failure");
                                    }));
    ASSERT_TRUE(r.error) << "the failure was swallowed";
    const Error e = error_of(r);
    EXPECT_EQ(e.category(), ErrorCategory::Internal);
    EXPECT_NE(std::string(e.what()).find("injected"), std::string::npos);
}

}  // namespace
}  // namespace vf
