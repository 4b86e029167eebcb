#include "kernels/plan.hpp"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <numeric>

namespace vf {

const char* border_name(Border b) {
    switch (b) {
    case Border::Mirror: return "mirror";
    case Border::Replicate: return "replicate";
    case Border::Zero: return "zero";
    case Border::Reflect: return "reflect";
    case Border::MirrorRepeat: return "mirror-repeat";
    }
    return "?";
}

namespace {
bool whole(double v) { return std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e9; }
}  // namespace

bool factor_rank1(const ConvolveOp& op, std::vector<int>& col, std::vector<int>& row) {
    col.clear();
    row.clear();
    if (!op.integer) return false;
    // Pivot row: the first row with a non-zero entry. Its entries, divided by their gcd, are the
    // row vector; each other row must be an integer multiple of it.
    int pivot = -1;
    for (int j = 0; j < op.kh && pivot < 0; ++j)
        for (int i = 0; i < op.kw; ++i)
            if (op.k[j * op.kw + i] != 0) { pivot = j; break; }
    if (pivot < 0) return false;  // all zero: nothing to gain
    long long g = 0;
    for (int i = 0; i < op.kw; ++i) g = std::gcd(g, std::llabs(static_cast<long long>(op.k[pivot * op.kw + i])));
    std::vector<long long> r(op.kw);
    for (int i = 0; i < op.kw; ++i) r[i] = static_cast<long long>(op.k[pivot * op.kw + i]) / g;
    int first_nz = 0;
    while (r[first_nz] == 0) ++first_nz;
    std::vector<long long> c(op.kh);
    for (int j = 0; j < op.kh; ++j) {
        const long long v = static_cast<long long>(op.k[j * op.kw + first_nz]);
        if (v % r[first_nz] != 0) return false;
        c[j] = v / r[first_nz];
        for (int i = 0; i < op.kw; ++i)
            if (static_cast<long long>(op.k[j * op.kw + i]) != c[j] * r[i]) return false;
    }
    for (long long v : r) if (std::llabs(v) > (1LL << 30)) return false;
    for (long long v : c) if (std::llabs(v) > (1LL << 30)) return false;
    row.assign(r.begin(), r.end());
    col.assign(c.begin(), c.end());
    return true;
}

void finalize_convolve(ConvolveOp& op) {
    // FNV-1a over the shape and the coefficients' bits.
    uint64_t h = 1469598103934665603ull;
    auto mix = [&h](uint64_t v) {
        for (int b = 0; b < 8; ++b, v >>= 8) h = (h ^ (v & 0xFF)) * 1099511628211ull;
    };
    mix(static_cast<uint64_t>(op.kw));
    mix(static_cast<uint64_t>(op.kh));
    for (double v : op.k) {
        uint64_t bits;
        std::memcpy(&bits, &v, sizeof bits);
        mix(bits);
    }
    op.fingerprint = h;
    op.integer = true;
    for (double v : op.k) op.integer = op.integer && whole(v);
    std::vector<int> col, row;
    // A 1-wide or 1-tall kernel is already one pass; factoring buys nothing.
    if (op.kw > 1 && op.kh > 1 && factor_rank1(op, col, row)) {
        op.col = std::move(col);
        op.row = std::move(row);
    } else {
        op.col.clear();
        op.row.clear();
    }
}

std::string tensor_taps_problem(const ConvolveOp& op, int peak) {
    if (!op.integer) return "its taps are not whole numbers";
    double abs_sum = 0;
    for (double t : op.k) {
        if (std::fabs(t) > 2048) return "a tap is beyond +-2048 (not exact in half precision)";
        abs_sum += std::fabs(t);
    }
    if (abs_sum * peak >= 16777216.0) return "its sums could reach 2^24 (not exact in FP32)";
    return "";
}

std::string forced_kernel_problem(const std::vector<FilterPlan>& chain, const KernelChoice& choice) {
    if (!choice.family) return "";
    const KernelFamily family = *choice.family;
    for (const FilterPlan& plan : chain)
        for (const PlaneOp& op : plan.ops) {
            if (op.kind != OpKind::Convolve) continue;
            if (op.conv.divisor > 0 && family != KernelFamily::Box && family != KernelFamily::Separable)
                return std::string("--kernel ") + kernel_family_name(family) + ": not for '" + plan.description +
                       "': its means are truncated as FFmpeg's avgblur truncates them, which only the box rows compute "
                       "(auto, --kernel separable, box-staged or box-walk)";
            if (family == KernelFamily::Separable && !op.conv.separable())
                return "--kernel separable: '" + plan.description + "' is not separable (its matrix has rank > 1)";
            if (family == KernelFamily::Tensor) {
                const std::string why = tensor_taps_problem(op.conv, 255);
                if (!why.empty()) return "--kernel tensor: not for '" + plan.description + "': " + why;
            }
        }
    return "";
}

bool same_operation(const PlaneOp& a, const PlaneOp& b) {
    if (a.kind != b.kind || a.border != b.border) return false;
    switch (a.kind) {
    case OpKind::Copy:
    case OpKind::Fill:
        return true;
    case OpKind::Convolve:
        return a.conv.kw == b.conv.kw && a.conv.kh == b.conv.kh && a.conv.k == b.conv.k && a.conv.rdiv == b.conv.rdiv &&
               a.conv.bias == b.conv.bias && a.conv.divisor == b.conv.divisor;
    case OpKind::Gradient:
        return a.grad.gx == b.grad.gx && a.grad.gy == b.grad.gy && a.grad.divisor == b.grad.divisor &&
               a.grad.scale == b.grad.scale && a.grad.delta == b.grad.delta && a.grad.compass == b.grad.compass;
    case OpKind::BoxPasses:
        return a.box.radius == b.box.radius && a.box.power == b.box.power;
    case OpKind::UnsharpFixed:
        return a.unsharp.steps_x == b.unsharp.steps_x && a.unsharp.steps_y == b.unsharp.steps_y &&
               a.unsharp.amount == b.unsharp.amount;
    }
    return false;
}

bool same_chain(const std::vector<FilterPlan>& a, const std::vector<FilterPlan>& b) {
    if (a.size() != b.size()) return false;
    for (size_t f = 0; f < a.size(); ++f)
        for (int c = 0; c < kMaxChannels; ++c)
            if (!same_operation(a[f].ops[c], b[f].ops[c])) return false;
    return true;
}

uint64_t chain_fingerprint(const std::vector<FilterPlan>& chain) {
    uint64_t h = 1469598103934665603ull;  // FNV-1a over the fields that same_operation compares
    auto mix = [&h](uint64_t v) {
        for (int i = 0; i < 8; ++i) h = (h ^ ((v >> (8 * i)) & 0xff)) * 1099511628211ull;
    };
    for (const FilterPlan& plan : chain)
        for (const PlaneOp& op : plan.ops) {
            mix(static_cast<uint64_t>(op.kind));
            mix(static_cast<uint64_t>(op.border));
            if (op.kind == OpKind::Convolve) mix(op.conv.fingerprint), mix(static_cast<uint64_t>(op.conv.divisor));
            if (op.kind == OpKind::Gradient)
                for (int t = 0; t < 9; ++t) mix(static_cast<uint64_t>(op.grad.gx[static_cast<size_t>(t)] * 31 + op.grad.gy[static_cast<size_t>(t)]));
            if (op.kind == OpKind::BoxPasses) mix(static_cast<uint64_t>(op.box.radius)), mix(static_cast<uint64_t>(op.box.power));
            if (op.kind == OpKind::UnsharpFixed)
                mix(static_cast<uint64_t>(op.unsharp.steps_x)), mix(static_cast<uint64_t>(op.unsharp.steps_y)),
                    mix(static_cast<uint64_t>(static_cast<uint32_t>(op.unsharp.amount)));
        }
    return h;
}

}  // namespace vf
