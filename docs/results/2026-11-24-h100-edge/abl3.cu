// Where does the 1080p 3x3's time go beyond a copy? Ablations of the kept strip16 3x3 kernel,
// timed the benchmark's way (256 MB memset flush + events, median of 101), rounds interleaved.
// Modes (all on padded planes so the edge-free modes never read outside an allocation):
//   0 kept structure (per-block edge checks)        1 every block on the inside path (edges wrong)
//   2 per-warp row checks (a candidate; checked)     3 inside path, trivial finish
//   4 inside path, loads only (xor of the words)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#include "kernels/cuda/strip16_dp4a.cuh"
#include "kernels/fixed_finish.hpp"
using namespace vf;
using namespace vf::cuda;
#define CK(x) do { cudaError_t e = (x); if (e) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1);} } while (0)

__global__ void copy16(const uint4* __restrict__ in, uint4* __restrict__ out, size_t n) {
    size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) out[i] = __ldg(in + i);
}

template <int Mode, typename Finish>
__global__ void __launch_bounds__(128) abl(DevPlane src, DevPlane dst, const __grid_constant__ strip::PackedTaps<1, 3> taps,
                                           Finish finish, int border) {
    constexpr int K = 3, R = 1, kBX = 8, kBY = 16, V = 16;
    const int bx = blockIdx.x * kBX * V, by = blockIdx.y * kBY;
    const int x = bx + threadIdx.x * V, y0 = by + threadIdx.y;
    if (x >= dst.width || y0 >= dst.height) return;
    bool check_x = bx < 4 || bx + kBX * V + 4 > src.width;
    bool check_y = by < R || by + kBY + R > src.height;
    if (Mode == 2) {
        const int wy = by + threadIdx.y / 4 * 4;  // a warp: 8 lanes across, 4 thread rows
        check_y = wy < R || wy + 4 + R > src.height;
    }
    if (Mode == 1 || Mode == 3 || Mode == 4) check_x = check_y = false;
    if (Mode == 3) {
        uint32_t raw[3][strip16::kWords<R>];
        const uint8_t* row = src.data + (long long)(y0 - 1) * src.pitch + x;
#pragma unroll
        for (int t = 0; t < 3; ++t) strip16::load_inside<R>(row + t * src.pitch, raw[t]);
        int acc[1][1][V];
        strip::dp4a_sums<K, 1, strip16::kHalo<R>>(raw, taps, acc);
        uint32_t o[4];
#pragma unroll
        for (int i = 0; i < 4; ++i)
            o[i] = __byte_perm(__byte_perm(acc[0][0][4 * i], acc[0][0][4 * i + 1], 0x0040), __byte_perm(acc[0][0][4 * i + 2], acc[0][0][4 * i + 3], 0x0040), 0x5410);
        *reinterpret_cast<uint4*>(dst.data + (long long)y0 * dst.pitch + x) = make_uint4(o[0], o[1], o[2], o[3]);
        return;
    }
    if (Mode == 4) {
        uint32_t raw[3][strip16::kWords<R>];
        const uint8_t* row = src.data + (long long)(y0 - 1) * src.pitch + x;
#pragma unroll
        for (int t = 0; t < 3; ++t) strip16::load_inside<R>(row + t * src.pitch, raw[t]);
        uint32_t o[4];
#pragma unroll
        for (int i = 0; i < 4; ++i) o[i] = raw[0][i] ^ raw[1][i + 1] ^ raw[2][i + 2] ^ raw[0][5 - i];
        *reinterpret_cast<uint4*>(dst.data + (long long)y0 * dst.pitch + x) = make_uint4(o[0], o[1], o[2], o[3]);
        return;
    }
    if (!check_x && !check_y) strip16::strip<K, 1, false, false>(src, dst, taps, finish, border, x, y0);
    else if (!check_y) strip16::strip<K, 1, true, false>(src, dst, taps, finish, border, x, y0);
    else if (!check_x) strip16::strip<K, 1, false, true>(src, dst, taps, finish, border, x, y0);
    else strip16::strip<K, 1, true, true>(src, dst, taps, finish, border, x, y0);
}

int main() {
    uint8_t* flush;
    CK(cudaMalloc(&flush, 256 << 20));
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    auto ev = [&]() { float ms; CK(cudaEventSynchronize(b)); CK(cudaEventElapsedTime(&ms, a, b)); return ms; };
    const bool ncu = getenv("NCU") != nullptr;
    const int taps9[9] = {1, -2, 3, -4, 5, -6, 7, -8, 9};
    long long lo = 0, hi = 0;
    for (int q : taps9) (q < 0 ? lo : hi) += (long long)q * 255;
    const FixedFinish ff = *solve_fixed_finish(1.0f / 36, 128, 255, lo, hi);
    const strip16::IntegerFinish<false> fin{ff.m, 0, ff.c};
    const auto packed = strip::pack_taps<1, 3>([&](int, int j, int i) { return taps9[j * 3 + i]; });
    for (auto [w, h] : std::vector<std::pair<int, int>>{{1920, 1080}, {3840, 2160}}) {
        const size_t bytes = size_t(w) * h;
        const int pitch = w + 128, count = int(75e6 / bytes) + 2;
        const size_t pbytes = size_t(pitch) * (h + 64);
        std::vector<uint8_t*> in(count), out(count), pin(count), pout(count);
        for (int i = 0; i < count; ++i) {
            CK(cudaMalloc(&in[i], bytes)); CK(cudaMalloc(&out[i], bytes));
            CK(cudaMalloc(&pin[i], pbytes)); CK(cudaMalloc(&pout[i], pbytes));
            CK(cudaMemset(in[i], i * 7 + 1, bytes)); CK(cudaMemset(pin[i], i * 7 + 1, pbytes));
        }
        auto view = [&](uint8_t* p, int pw, int ph, int pp) { PlaneView v; v.data = p; v.pitch = pp; v.width = pw; v.height = ph; return v; };
        auto pview = [&](uint8_t* p) { return view(p + 32 * pitch + 64, w, h, pitch); };
        auto dv = [&](const PlaneView& v) { return to_dev(v); };
        const dim3 grid((w + 127) / 128, (h + 15) / 16), blk(8, 16);
        auto launch_mode = [&](int mode, const PlaneView& si, const PlaneView& so, int border) {
            switch (mode) {
            case 0: abl<0><<<grid, blk, 0, s>>>(dv(si), dv(so), packed, fin, border); break;
            case 1: abl<1><<<grid, blk, 0, s>>>(dv(si), dv(so), packed, fin, border); break;
            case 2: abl<2><<<grid, blk, 0, s>>>(dv(si), dv(so), packed, fin, border); break;
            case 3: abl<3><<<grid, blk, 0, s>>>(dv(si), dv(so), packed, fin, border); break;
            case 4: abl<4><<<grid, blk, 0, s>>>(dv(si), dv(so), packed, fin, border); break;
            }
        };
        if (!ncu) {  // mode 2 against the library kernel, random bytes, odd sizes, every border
            for (auto [cw, chh] : std::vector<std::pair<int, int>>{{w, h}, {w - 3, h - 1}, {w - 16, h - 5}, {131, 7}, {17, 3}, {1, 1}}) {
                std::vector<uint8_t> hst(pbytes);
                uint32_t r = 12345 + cw;
                for (auto& v : hst) { r = r * 1664525u + 1013904223u; v = r >> 24; }
                CK(cudaMemcpy(pin[0], hst.data(), pbytes, cudaMemcpyHostToDevice));
                const int dims[3] = {cw, chh, 0};
                for (int border = 0; border < 3; ++border) {
                    CK(cudaMemset(pout[0], 0xA5, pbytes)); CK(cudaMemset(pout[1], 0x5A, pbytes));
                    const PlaneView si = view(pin[0] + 32 * pitch + 64, dims[0], dims[1], pitch);
                    strip16::launch<3>(si, view(pout[0] + 32 * pitch + 64, dims[0], dims[1], pitch), [&](int j, int i) { return taps9[j * 3 + i]; }, ff, border, s);
                    const dim3 g2((cw + 127) / 128, (chh + 15) / 16);
                    abl<2><<<g2, blk, 0, s>>>(dv(si), dv(view(pout[1] + 32 * pitch + 64, dims[0], dims[1], pitch)), packed, fin, border);
                    CK(cudaDeviceSynchronize());
                    std::vector<uint8_t> o1(pbytes), o2(pbytes);
                    CK(cudaMemcpy(o1.data(), pout[0], pbytes, cudaMemcpyDeviceToHost));
                    CK(cudaMemcpy(o2.data(), pout[1], pbytes, cudaMemcpyDeviceToHost));
                    size_t bad = 0, poisoned = 0;
                    for (int y = 0; y < chh; ++y)
                        for (int x = 0; x < cw; ++x) {
                            const size_t q = size_t(32 + y) * pitch + 64 + x;
                            bad += o1[q] != o2[q];
                            poisoned += o2[q] == 0x5A && o1[q] != 0x5A;
                        }
                    printf("check mode 2 %dx%d border %d: %zu differ\n", cw, chh, border, bad);
                }
            }
        }
        std::vector<std::pair<const char*, std::function<void(int)>>> vs = {
            {"copy16", [&](int i) { size_t n = bytes / 16; copy16<<<(n + 255) / 256, 256, 0, s>>>((uint4*)in[i % count], (uint4*)out[i % count], n); }},
            {"library strip16<3>", [&](int i) { strip16::launch<3>(view(in[i % count], w, h, w), view(out[i % count], w, h, w), [&](int j, int k) { return taps9[j * 3 + k]; }, ff, 0, s); }},
            {"padded mode0 kept", [&](int i) { launch_mode(0, pview(pin[i % count]), pview(pout[i % count]), 0); }},
            {"padded mode1 no-edges", [&](int i) { launch_mode(1, pview(pin[i % count]), pview(pout[i % count]), 0); }},
            {"padded mode2 warp-rows", [&](int i) { launch_mode(2, pview(pin[i % count]), pview(pout[i % count]), 0); }},
            {"padded mode3 no-finish", [&](int i) { launch_mode(3, pview(pin[i % count]), pview(pout[i % count]), 0); }},
            {"padded mode4 loads-only", [&](int i) { launch_mode(4, pview(pin[i % count]), pview(pout[i % count]), 0); }},
        };
        if (ncu) {
            for (auto& [name, fn] : vs) { CK(cudaMemsetAsync(flush, 1, 256 << 20, s)); fn(0); CK(cudaStreamSynchronize(s)); }
            continue;
        }
        std::vector<std::vector<float>> med(vs.size());
        for (int round = 0; round < 3; ++round)
            for (size_t v = 0; v < vs.size(); ++v) {
                auto& fn = vs[v].second;
                for (int i = 0; i < 5; ++i) fn(i);
                CK(cudaStreamSynchronize(s));
                std::vector<float> t;
                for (int i = 0; i < 101; ++i) {
                    CK(cudaMemsetAsync(flush, i, 256 << 20, s));
                    cudaEventRecord(a, s);
                    fn(i);
                    cudaEventRecord(b, s);
                    t.push_back(ev());
                }
                std::sort(t.begin(), t.end());
                med[v].push_back(t[50]);
            }
        for (size_t v = 0; v < vs.size(); ++v)
            printf("%dx%d %-26s %.4f %.4f %.4f ms\n", w, h, vs[v].first, med[v][0], med[v][1], med[v][2]);
        CK(cudaGetLastError());
        for (int i = 0; i < count; ++i) { cudaFree(in[i]); cudaFree(out[i]); cudaFree(pin[i]); cudaFree(pout[i]); }
    }
}
