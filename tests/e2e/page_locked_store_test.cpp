// The page-locked store of a GPU runtime (media/host_memory.hpp): blocks reused by size, counted,
// and freed with the store once its last buffer is back.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <thread>

#include "kernels/cuda_backend.hpp"
#include "media/host_memory.hpp"

namespace vf {
namespace {

// The page-locked store: a buffer freed by one pool is the next one of its size (zeroed again),
// whichever stream asks; one of another size, or asked while the first is in use, is new. Its
// blocks are counted until they are freed, and the store lives until its last buffer is back.
TEST(PinnedBlocks, FreedBuffersGoToTheNextPoolOfTheirSize) {
    std::string why;
    if (!cuda_device_available(&why)) GTEST_SKIP() << "GPU test skipped: " << why;
    const size_t size = 3 * 1024 * 1024 + 17;
    auto store = std::make_shared<PageLockedStore>();
    AVBufferRef* a = store->alloc(size);
    ASSERT_TRUE(a);
    ASSERT_TRUE(is_pinned(a->data));
    uint8_t* const first = a->data;
    std::memset(first, 0xab, size);
    EXPECT_EQ(store->bytes().kept, 0u);
    AVBufferRef* other = store->alloc(size);  // while the first is in use: a block of its own
    ASSERT_NE(other->data, first);
    av_buffer_unref(&a);
    EXPECT_EQ(store->bytes().kept, size);
    EXPECT_EQ(store->bytes().pinned, 2 * size);
    std::thread([&] {  // another stream's thread
        AVBufferRef* b = store->alloc(size);
        EXPECT_EQ(b->data, first) << "the freed block is reused";
        EXPECT_TRUE(is_pinned(b->data));
        size_t nonzero = 0;
        for (size_t i = 0; i < size; ++i) nonzero += b->data[i] != 0;
        EXPECT_EQ(nonzero, 0u) << "a reused block is zeroed as a new one";
        AVBufferRef* c = store->alloc(size + 64);
        EXPECT_NE(c->data, first) << "only blocks of the same size are reused";
        av_buffer_unref(&b);
        av_buffer_unref(&c);
    }).join();
    EXPECT_EQ(store->bytes().kept, 2 * size + 64);
    std::weak_ptr<PageLockedStore> gone = store;
    store.reset();
    EXPECT_FALSE(gone.expired()) << "a buffer in use holds its store";
    av_buffer_unref(&other);
    EXPECT_TRUE(gone.expired()) << "the store outlived its last buffer";
}

}  // namespace
}  // namespace vf
