// A filter chain compiled for one device and one frame geometry: a prepared operation (prepared_op.hpp)
// for every filter and channel, each for the layout of the planes that filter reads and writes.
// Made once per (chain, --kernel choice, geometry) and device; frames then only launch. Streams
// filtering the same chain on frames of the same geometry share one through the device's store, so
// the batch window groups frames by prepared chain. A new filter (PUT, SIGHUP, Python) acquires a
// new chain; the old one is freed when the last frame that holds it has left.
#pragma once

#include <memory>
#include <vector>

#include "kernels/cuda/device_context.hpp"
#include "kernels/cuda/prepared_op.hpp"
#include "kernels/gpu_kernel.hpp"
#include "kernels/plan.hpp"

namespace vf::cuda {

// The planes one filter of a chain reads and writes, a shape per channel.
struct StepShapes {
    std::vector<PlaneShape> src, dst;
    bool operator==(const StepShapes& o) const { return src == o.src && dst == o.dst; }
    bool operator!=(const StepShapes& o) const { return !(*this == o); }
};

class PreparedChain {
public:
    // The device's prepared chain for (chain, choice, shapes): the live one where a stream holds
    // it, else one prepared now. shapes has one entry per filter of the chain. Throws a usage error
    // when a forced kernel cannot take one of its operations.
    static std::shared_ptr<const PreparedChain> acquire(const std::shared_ptr<DeviceContext>& ctx, const std::vector<FilterPlan>& chain,
                                                        const KernelChoice& choice, const std::vector<StepShapes>& shapes);
    ~PreparedChain();
    PreparedChain(const PreparedChain&) = delete;
    PreparedChain& operator=(const PreparedChain&) = delete;

    size_t filters() const { return ops_.size(); }
    size_t channels(size_t filter) const { return ops_[filter].size(); }
    const PreparedOp& op(size_t filter, size_t channel) const { return *ops_[filter][channel]; }
    const std::vector<FilterPlan>& chain() const { return chain_; }
    DeviceContext& context() const { return *ctx_; }

private:
    PreparedChain(std::shared_ptr<DeviceContext> ctx, std::vector<FilterPlan> chain, const KernelChoice& choice,
                  std::vector<StepShapes> shapes);
    bool same_key(const std::vector<FilterPlan>& chain, const KernelChoice& choice, const std::vector<StepShapes>& shapes) const;

    std::shared_ptr<DeviceContext> ctx_;
    std::vector<FilterPlan> chain_;
    KernelChoice choice_;
    std::vector<StepShapes> shapes_;
    std::vector<std::vector<std::unique_ptr<PreparedOp>>> ops_;  // [filter][channel]
};

}  // namespace vf::cuda
