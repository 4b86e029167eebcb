#!/usr/bin/env bash
# Eleventh pass: the strips at the plane's left/right edges build their halo from their own
# samples. Tests, the ablation harness (library row), the small rows with NPP, one mutation.
set -u
out=${OUT:-/tmp/out}; mkdir -p $out
t0=$(date +%s)
cmake -S . -B /tmp/bk -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF -DVF_WERROR=ON >/tmp/cmake.log 2>&1
cmake --build /tmp/bk -j16 --target vfilter_gpu_tests vfilter_gpu_bench >/tmp/build.log 2>&1
[ -x /tmp/bk/vfilter_gpu_bench ] || { grep -E "error|warning" /tmp/build.log | head -30; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s"
# the mutation tree, built while the tests run: the left mirror one byte off
rm -rf /tmp/mut && mkdir /tmp/mut && git ls-files | tar cf - -T - | tar xf - -C /tmp/mut
sed -i 's/w\[2 \* L - i\], 0x1234)/w[2 * L - i], 0x2345)/' /tmp/mut/kernels/cuda/strip16_dp4a.cuh
grep -c 0x2345 /tmp/mut/kernels/cuda/strip16_dp4a.cuh
(cd /tmp/mut && cmake -S . -B /tmp/bm -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF >/dev/null 2>&1 && cmake --build /tmp/bm -j8 --target vfilter_gpu_tests >/tmp/bm.log 2>&1) &
timeout 200 /tmp/bk/vfilter_gpu_tests --gtest_brief=1 --gtest_filter='Gpu.SixteenWide*:Gpu.SmallKernels*:Gpu.*Gradient*:Gpu.*Sobel*:*GpuVariants*' >/tmp/edge_tests.txt 2>&1; echo "tests exit $? ($(( $(date +%s) - t0 )) s)"
grep -E "PASSED|FAILED|tests ran" /tmp/edge_tests.txt | head; grep -B3 -A8 "Failure" /tmp/edge_tests.txt | head -30
nvcc -std=c++17 -O3 -arch=sm_90 -I. -o /tmp/abl3 .device/s11/abl3.cu kernels/fixed_finish.cpp 2>/dev/null && /tmp/abl3 > /tmp/edge_abl3.txt 2>&1
grep -v check /tmp/edge_abl3.txt; grep -c "0 differ" /tmp/edge_abl3.txt
for i in 1 2; do /tmp/bk/vfilter_gpu_bench --only "dense 3x3" --only "dense 5x5" --only "dense 7x7" --only sobel >/tmp/edge_bench$i.txt 2>&1; grep -E " (auto|npp) +[0-9]" /tmp/edge_bench$i.txt; done
wait
timeout 120 /tmp/bm/vfilter_gpu_tests --gtest_brief=1 --gtest_filter='Gpu.SixteenWide*' >/tmp/edge_mut.txt 2>&1; echo "mutation tests exit $?"
grep -c "Failure" /tmp/edge_mut.txt; grep -E "PASSED|FAILED" /tmp/edge_mut.txt | head -3
cd /tmp && tar czf $out/edge.tgz edge_tests.txt edge_abl3.txt edge_bench1.txt edge_bench2.txt edge_mut.txt
echo "done in $(( $(date +%s) - t0 )) s"
