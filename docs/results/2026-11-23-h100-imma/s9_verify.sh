#!/usr/bin/env bash
# Ninth pass: the integer tensor path with one or two row tiles a warp chosen by plane size:
# its tests, four mutations, the dense rows of the benchmark, the whole GPU kernel suite.
set -u
out=${OUT:-/tmp/out}; mkdir -p $out
t0=$(date +%s)
f=kernels/cuda/conv_imma.cu
mut() { local d=/tmp/m$1; rm -rf $d; mkdir -p $d; cp -r CMakeLists.txt app bench common config decode encode kernels pipeline scripts tests $d/
  sed -i "$2" $d/$f; echo "m$1: $(diff $f $d/$f | grep -c '^>') line(s) changed"; }
mut 1 's|(k / 16) \* 4 + k % 4;|(1 - k / 16) * 4 + k % 4;|'
mut 2 's|load_bands<NC, MLO, MHI, 0>(next, lane_bands, i + 1);|load_bands<NC, MLO, MHI, 0>(next, lane_bands, i);|'
mut 3 's|staging + (n + 8) \* kOutStride|staging + n * kOutStride|'
mut 4 's|const int m = i < 0 ? -i : 2 \* (n - 1) - i;|const int m = i < 0 ? -i : 2 * n - 1 - i;|'
cmake -S . -B /tmp/bk -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF -DVF_WERROR=ON >/tmp/cmake.log 2>&1
cmake --build /tmp/bk -j8 --target vfilter_gpu_tests vfilter_gpu_bench >/tmp/build.log 2>&1 &
for m in 1 2 3 4; do (cmake -S /tmp/m$m -B /tmp/m$m/b -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF >/dev/null 2>&1 && cmake --build /tmp/m$m/b -j2 --target vfilter_gpu_tests >/tmp/m$m/build.log 2>&1) & done
wait
[ -x /tmp/bk/vfilter_gpu_tests ] || { grep -E "error|warning" /tmp/build.log | head -30; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s"
timeout 200 /tmp/bk/vfilter_gpu_tests --gtest_brief=1 --gtest_filter='Gpu.IntegerTensor*:Gpu.TensorPath*' >$out/imma_test.txt 2>&1
echo "tests exit $? ($(( $(date +%s) - t0 )) s)"; grep -E "PASSED|FAILED|Failure|differ|max diff" $out/imma_test.txt | head -20
/tmp/bk/vfilter_gpu_bench --only dense >$out/bench_dense.txt 2>&1
grep -E "dense" $out/bench_dense.txt | grep -E " (tiled|tensor|tensor-f16|fft|auto|npp) " 
for m in 1 2 3 4; do timeout 150 /tmp/m$m/b/vfilter_gpu_tests --gtest_brief=1 --gtest_filter='Gpu.IntegerTensor*' >$out/mut$m.txt 2>&1
  echo "mutation $m: exit $?, $(grep -c 'Failure' $out/mut$m.txt) failures"; done
echo "($(( $(date +%s) - t0 )) s)"
timeout 330 /tmp/bk/vfilter_gpu_tests --gtest_brief=1 >$out/gpu_tests.txt 2>&1; echo "whole gpu suite exit $? ($(( $(date +%s) - t0 )) s)"
grep -E "PASSED|FAILED|tests ran" $out/gpu_tests.txt | head; grep -B3 -A6 "Failure" $out/gpu_tests.txt | head -30
echo "done in $(( $(date +%s) - t0 )) s"
