#include "decode/nvdec_device.hpp"
#include "decode/nvdec_gate.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

namespace vf {
namespace {

using namespace std::chrono_literals;

// Many threads through a gate of `slots`: never more inside at once than the gate allows, as
// many as it allows when enough wait, and every pass ends (a lost hand-over would hang the test).
void run_through(NvdecGate& gate, bool creating, int threads, int passes, std::atomic<int>& most) {
    std::atomic<int> inside{0};
    std::atomic<int> done{0};
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t)
        workers.emplace_back([&] {
            for (int p = 0; p < passes; ++p) {
                NvdecGate::Pass pass(&gate, creating);
                const int now = ++inside;
                int seen = most.load();
                while (now > seen && !most.compare_exchange_weak(seen, now)) {
                }
                std::this_thread::sleep_for(200us);
                --inside;
            }
            ++done;
        });
    for (auto& w : workers) w.join();
    EXPECT_EQ(done.load(), threads);
    EXPECT_EQ(inside.load(), 0);
}

TEST(NvdecGate, NoMoreDecodeAtOnceThanItsSlots) {
    NvdecGate gate(3);
    std::atomic<int> most{0};
    run_through(gate, false, 12, 40, most);
    EXPECT_EQ(most.load(), 3);
    EXPECT_GT(gate.waits(), 0);
}

TEST(NvdecGate, CreatesOneDecoderAtATime) {
    NvdecGate gate(8);
    std::atomic<int> most{0};
    run_through(gate, true, 10, 20, most);
    EXPECT_EQ(most.load(), 1);
}

TEST(NvdecGate, CreatingDoesNotWaitForDecodeSlots) {
    // Every slot taken: a decoder being created still gets its turn (its own queue).
    NvdecGate gate(1);
    NvdecGate::Pass decoding(&gate, false);
    std::atomic<bool> created{false};
    std::thread creator([&] {
        NvdecGate::Pass pass(&gate, true);
        created = true;
    });
    creator.join();
    EXPECT_TRUE(created.load());
}

TEST(NvdecGate, WaitersGetTheirTurnInArrivalOrder) {
    NvdecGate gate(1);
    std::vector<int> order;
    std::mutex order_mutex;
    std::vector<std::thread> waiters;
    {
        NvdecGate::Pass holder(&gate, false);
        for (int i = 0; i < 6; ++i) {
            waiters.emplace_back([&, i] {
                NvdecGate::Pass pass(&gate, false);
                std::lock_guard<std::mutex> lock(order_mutex);
                order.push_back(i);
            });
            // The next waiter arrives only once this one waits in the queue.
            const int64_t before = i;
            for (int spin = 0; spin < 2000 && gate.waits() == before; ++spin) std::this_thread::sleep_for(1ms);
            ASSERT_EQ(gate.waits(), before + 1);
        }
    }
    for (auto& w : waiters) w.join();
    EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4, 5}));
}

// A GPU's streams share its device's gate, with the slots its runtime gave; the gate is freed
// with its last stream, and a device of another runtime (or GPU) has a gate of its own.
TEST(NvdecGate, OneGateForEachDeviceWhileItsStreamsLast) {
    NvdecDevice gpu0(0, 5), other_runtime_gpu0(0, 9), gpu1(1, 7), ungated(0, 0);
    auto a = gpu0.gate();
    auto b = gpu0.gate();
    EXPECT_EQ(a.get(), b.get());
    EXPECT_EQ(a->slots(), 5);
    EXPECT_NE(a.get(), other_runtime_gpu0.gate().get());
    EXPECT_EQ(other_runtime_gpu0.gate()->slots(), 9);
    EXPECT_EQ(gpu1.gate()->slots(), 7);
    EXPECT_EQ(ungated.gate(), nullptr);
    std::weak_ptr<NvdecGate> gone = a;
    a.reset();
    b.reset();
    EXPECT_TRUE(gone.expired());  // freed with its last user
    EXPECT_EQ(gpu0.gate()->slots(), 5);  // and made anew with the same slots
}

// Decoding on the CPU, or a single run, has no gate: its passes never wait, even while a gate of
// the same GPU is full, and that gate counts no wait of theirs.
TEST(NvdecGate, NoGateMeansNoWait) {
    NvdecDevice gpu(7, 1);
    auto full = gpu.gate();
    std::atomic<bool> passed{false};
    std::thread other;
    {
        NvdecGate::Pass holder(full.get(), false);  // the gate's only slot
        other = std::thread([&] {
            NvdecGate::Pass create(nullptr, true);
            NvdecGate::Pass decode(nullptr, false);
            passed = true;
        });
        for (int i = 0; i < 2000 && !passed; ++i) std::this_thread::sleep_for(1ms);
        EXPECT_TRUE(passed) << "a pass without a gate waited for a full gate";
    }  // the slot is given back: a pass that wrongly waited on the gate ends now, and the join returns
    other.join();
    EXPECT_EQ(full->waits(), 0);
}

}  // namespace
}  // namespace vf
