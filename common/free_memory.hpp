#pragma once
// Giving the memory that malloc holds free back to the system, for processes that run for months.

#include <cstdint>

namespace vf {

// glibc keeps freed memory in its arenas (one per thread, up to eight per core). A service whose
// threads come and go (decoders reopened at every camera reconnect, streams removed and added)
// leaves a little more of it behind in each arena, so its resident size climbs for many minutes
// although what it uses does not: the soak measured 140 to 218 MiB over 10 minutes with a heap
// that never passed 39 MiB, and malloc_trim gave back 45 MiB at once. serve calls this every 10
// seconds (app/serve/serve_loop.cpp). Elsewhere (another C library) it does nothing.
void return_free_memory_to_system();

// glibc gives a process up to eight arenas per core, and each keeps its own free pages between
// trims; a service's threads (a decoder, filter and encoder per stream) spread over all of them,
// and its resident size can rise with the load as more arenas fill. One arena per core is as many as
// can be used at once. serve calls this before it starts a thread; MALLOC_ARENA_MAX, where set,
// wins. Elsewhere (another C library) it does nothing.
void limit_malloc_arenas();

// glibc serves a block of 128 KiB or more, when no free space in the arena fits it, with a mapping
// of its own that goes back at free, but raises that bound to the size of each such block freed
// (up to 32 MiB): after the first encoder or muxer buffer of a megabyte is freed, blocks of that
// size are cut from the arenas, and the holes they leave stay resident until the next trim, a
// climb between trims that the soak on many cores shows (docs/benchmarks.md, "Unattended"). This
// fixes the bound at 128 KiB (large blocks go back at free, heap tops above 128 KiB too). serve
// calls it before it starts a thread; MALLOC_MMAP_THRESHOLD_ or GLIBC_TUNABLES'
// glibc.malloc.mmap_threshold, where set, wins. Elsewhere (another C library) it does nothing.
inline constexpr int kLargeBlockBytes = 128 * 1024;
void give_large_blocks_back_at_free();

// What malloc holds (glibc's mallinfo2): the bytes the program uses, in the arenas and in blocks
// mapped on their own; and the free bytes the arenas keep, resident or not (a trim gives their
// pages back, yet glibc still counts them). A resident size that climbs while the bytes in use stay
// flat is malloc's keeping, not the program's. -1 each elsewhere (another C library, glibc < 2.33).
struct HeapBytes {
    int64_t in_use = -1;
    int64_t free_kept = -1;
};
HeapBytes heap_bytes();

}  // namespace vf
