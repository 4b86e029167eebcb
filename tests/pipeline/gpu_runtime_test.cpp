// The GPU runtime where there is no GPU (pipeline/gpu_runtime.hpp): asking it for a GPU is a
// Device error naming the GPU, its page-locked store still hands out zeroed frame memory, and the
// store lives exactly as long as its runtime or its last buffer. The GPU side is tested on the GPU
// machine (GpuMemory.RuntimeGivesEverythingBackWhenItEnds, PinnedBlocks.*).
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>

#include "common/error.hpp"
#include "pipeline/gpu_runtime.hpp"

#ifdef VF_HAVE_CUDA
#include "kernels/cuda_backend.hpp"
#endif

namespace vf {
namespace {

bool machine_has_a_gpu() {
#ifdef VF_HAVE_CUDA
    return gpu_count() > 0;
#else
    return false;
#endif
}

TEST(GpuRuntime, AskingForAGpuThatIsNotThereIsADeviceError) {
    GpuRuntime runtime;
    const int missing = machine_has_a_gpu() ? 4096 : 0;
    try {
        runtime.device(missing);
        FAIL() << "GPU " << missing << " was made";
    } catch (const Error& e) {
        EXPECT_EQ(e.category(), ErrorCategory::Device) << e.what();
        EXPECT_NE(std::string(e.what()).find(machine_has_a_gpu() ? "GPU 4096" : "CUDA"), std::string::npos) << e.what();
    }
    EXPECT_TRUE(runtime.devices().empty()) << "a GPU that failed was kept";
}

// A frame pool's allocator (and each page-locked buffer) holds the store, so frames still in
// flight when a runtime ends stay valid; the store goes with the last of them.
TEST(GpuRuntime, ItsFrameMemoryIsZeroedAndOutlivesTheRuntimeWhileAPoolHoldsIt) {
    auto runtime = std::make_unique<GpuRuntime>();
    BufferAllocator alloc = runtime->page_locked()->allocator();
    std::weak_ptr<PageLockedStore> store = runtime->page_locked();
    AVBufferRef* buffer = alloc(4099);
    ASSERT_NE(buffer, nullptr);
    ASSERT_GE(buffer->size, 4099u);
    size_t nonzero = 0;
    for (size_t i = 0; i < 4099; ++i) nonzero += buffer->data[i] != 0;
    EXPECT_EQ(nonzero, 0u);
    std::memset(buffer->data, 0x5a, 4099);  // written to the end: ASan would see an overrun
    runtime.reset();
    EXPECT_FALSE(store.expired()) << "the pool's allocator lost its store";
    av_buffer_unref(&buffer);
    alloc = nullptr;
    EXPECT_TRUE(store.expired()) << "the store outlived its runtime, its allocator and its buffers";
}

TEST(GpuRuntime, TheStoreGoesWithItsRuntimeWhenNoBufferIsOut) {
    std::weak_ptr<PageLockedStore> store;
    {
        GpuRuntime runtime;
        store = runtime.page_locked();
        AVBufferRef* buffer = runtime.page_locked()->alloc(256);
        ASSERT_NE(buffer, nullptr);
        av_buffer_unref(&buffer);
        EXPECT_FALSE(store.expired());
    }
    EXPECT_TRUE(store.expired()) << "the page-locked store outlived its runtime";
}

// An entry point's shared runtime: its users share one; once the last is gone the next gets a
// new one (so what the old one held went with it).
TEST(GpuRuntime, ASharedRuntimeLastsAsLongAsItsUsers) {
    SharedGpuRuntime shared;
    auto first = shared.get();
    EXPECT_EQ(shared.get(), first);
    std::weak_ptr<GpuRuntime> gone = first;
    first.reset();
    EXPECT_TRUE(gone.expired()) << "the entry point kept its runtime alive";
    EXPECT_NE(shared.get(), nullptr);
}

}  // namespace
}  // namespace vf
