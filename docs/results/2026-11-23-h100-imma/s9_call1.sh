#!/usr/bin/env bash
# Ninth pass, call 1: the integer tensor path on the GPU for the first time: its test, the tensor
# and small-kernel tests, the dense rows of the benchmark (tiled = DP4A strips, tensor = integer
# products, tensor-f16 = the half-precision path), ncu on one launch each; then the whole suite.
set -u
out=${OUT:-/tmp/out}; mkdir -p $out
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $out/machine.txt; date -u >> $out/machine.txt
cmake -S . -B /tmp/bk -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF -DVF_WERROR=ON >/tmp/cmake.log 2>&1
cmake --build /tmp/bk -j16 --target vfilter_gpu_tests vfilter_gpu_bench >/tmp/build.log 2>&1
[ -x /tmp/bk/vfilter_gpu_tests ] || { grep -E "error|warning" /tmp/build.log | head -30; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s"
timeout 200 /tmp/bk/vfilter_gpu_tests --gtest_brief=1 --gtest_filter='Gpu.IntegerTensor*' >$out/imma_test.txt 2>&1
echo "imma test exit $? ($(( $(date +%s) - t0 )) s)"; grep -E "PASSED|FAILED|Failure|differ|max diff" $out/imma_test.txt | head -30
/tmp/bk/vfilter_gpu_bench --only dense --json $out/bench_dense.json >$out/bench_dense.txt 2>&1
echo "bench ($(( $(date +%s) - t0 )) s)"; grep -E "device|copy |dense" $out/bench_dense.txt | grep -vE "naive|constant|b2b|launch" | head -70
timeout 300 /tmp/bk/vfilter_gpu_tests --gtest_brief=1 --gtest_filter='Gpu.*:Kernels/GpuVariants.*' >$out/gpu_tests.txt 2>&1; echo "Gpu.* + GpuVariants exit $? ($(( $(date +%s) - t0 )) s)"
grep -E "PASSED|FAILED|tests ran" $out/gpu_tests.txt | head; grep -B3 -A6 "Failure" $out/gpu_tests.txt | head -30
echo "done in $(( $(date +%s) - t0 )) s"
