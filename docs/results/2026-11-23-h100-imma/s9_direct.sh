#!/usr/bin/env bash
# Ninth pass: square kernels up to 7x7 on the integer products without the shared tile: tests,
# then the 3x3 to 7x7 rows twice (tiled = DP4A strips, tensor = the new kernel).
set -u
out=${OUT:-/tmp/out}; mkdir -p $out
t0=$(date +%s)
cmake -S . -B /tmp/bk -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF -DVF_WERROR=ON >/tmp/cmake.log 2>&1
cmake --build /tmp/bk -j16 --target vfilter_gpu_tests vfilter_gpu_bench >/tmp/build.log 2>&1
[ -x /tmp/bk/vfilter_gpu_tests ] || { grep -E "error|warning" /tmp/build.log | head -30; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s"
for r in 1 2; do /tmp/bk/vfilter_gpu_bench --only "dense 3x3" --only "dense 5x5" --only "dense 7x7" >$out/direct_r$r.txt 2>&1
  grep -E " (tiled|tensor|auto|npp) +[0-9]" $out/direct_r$r.txt | grep -v b2b; done
timeout 240 /tmp/bk/vfilter_gpu_tests --gtest_brief=1 --gtest_filter='Gpu.IntegerTensor*:Gpu.TensorPath*:Kernels/GpuVariants.*' >$out/direct_tests.txt 2>&1
echo "tests exit $? ($(( $(date +%s) - t0 )) s)"; grep -E "PASSED|FAILED|Failure|differ|max diff" $out/direct_tests.txt | head -20
echo "done in $(( $(date +%s) - t0 )) s"
