#include "kernels/cuda/prepared_chain.hpp"

#include <algorithm>

#include "common/error.hpp"

namespace vf::cuda {
namespace {

uint64_t key_hash(const std::vector<FilterPlan>& chain, const KernelChoice& choice, const std::vector<StepShapes>& shapes) {
    uint64_t h = chain_fingerprint(chain);
    auto mix = [&h](uint64_t v) { h = (h ^ v) * 1099511628211ull; };
    mix(choice.family ? static_cast<uint64_t>(*choice.family) + 1 : 0);
    mix(static_cast<uint64_t>(choice.row + 1));
    for (const StepShapes& step : shapes) {
        for (const PlaneShape& s : step.src) mix(s.hash());
        for (const PlaneShape& s : step.dst) mix(s.hash());
    }
    return h;
}

}  // namespace

std::shared_ptr<const PreparedChain> PreparedChain::acquire(const std::shared_ptr<DeviceContext>& ctx,
                                                            const std::vector<FilterPlan>& chain, const KernelChoice& choice,
                                                            const std::vector<StepShapes>& shapes) {
    if (shapes.size() != chain.size()) throw Error(ErrorCategory::Internal, "a chain prepared with shapes for another number of filters");
    const uint64_t hash = key_hash(chain, choice, shapes);
    // Held while a chain is prepared: two streams asking for the same new chain prepare it once.
    std::lock_guard<std::mutex> lock(ctx->store_mutex_);
    auto& store = ctx->store_;
    store.erase(std::remove_if(store.begin(), store.end(), [](const DeviceContext::StoredChain& e) { return e.chain.expired(); }),
                store.end());
    for (const DeviceContext::StoredChain& e : store)
        if (e.hash == hash)
            if (auto live = e.chain.lock(); live && live->same_key(chain, choice, shapes)) return live;
    std::shared_ptr<const PreparedChain> made(new PreparedChain(ctx, chain, choice, shapes));
    store.push_back(DeviceContext::StoredChain{hash, made});
    return made;
}

PreparedChain::PreparedChain(std::shared_ptr<DeviceContext> ctx, std::vector<FilterPlan> chain, const KernelChoice& choice,
                             std::vector<StepShapes> shapes)
    : ctx_(std::move(ctx)), chain_(std::move(chain)), choice_(choice), shapes_(std::move(shapes)) {
    for (size_t f = 0; f < chain_.size(); ++f) {
        const StepShapes& step = shapes_[f];
        if (step.src.size() != step.dst.size() || step.src.size() > static_cast<size_t>(kMaxChannels))
            throw Error(ErrorCategory::Internal, "a chain step prepared with unmatched planes");
        std::vector<std::unique_ptr<PreparedOp>> channels;
        for (size_t c = 0; c < step.src.size(); ++c)
            channels.push_back(std::make_unique<PreparedOp>(ctx_, chain_[f].ops[c], step.src[c], step.dst[c], choice_));
        ops_.push_back(std::move(channels));
    }
    ++ctx_->chains_;
}

PreparedChain::~PreparedChain() { --ctx_->chains_; }

bool PreparedChain::same_key(const std::vector<FilterPlan>& chain, const KernelChoice& choice,
                             const std::vector<StepShapes>& shapes) const {
    return choice_ == choice && shapes_ == shapes && same_chain(chain_, chain);
}

}  // namespace vf::cuda
