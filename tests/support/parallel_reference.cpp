#include "support/parallel_reference.hpp"

#include <algorithm>
#include <thread>
#include <vector>

#include "kernels/reference.hpp"

namespace vf::test {

void parallel_reference(const PlaneOp& op, const PlaneView& src, const PlaneView& dst) {
    const long taps = op.kind == OpKind::Convolve ? static_cast<long>(op.conv.kw) * op.conv.kh : 9;
    // Below about a million multiply-adds a thread costs more than it saves.
    const long work = static_cast<long>(dst.width) * dst.height * taps;
    const int threads = static_cast<int>(std::min<long>({std::max(1u, std::thread::hardware_concurrency()), dst.height,
                                                         std::max(1L, work / 1000000)}));
    if (threads <= 1) return reference_apply(op, src, dst);
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            reference_apply_rows(op, src, dst, static_cast<int>(static_cast<long>(dst.height) * t / threads),
                                 static_cast<int>(static_cast<long>(dst.height) * (t + 1) / threads));
        });
    for (std::thread& th : pool) th.join();
}

}  // namespace vf::test
