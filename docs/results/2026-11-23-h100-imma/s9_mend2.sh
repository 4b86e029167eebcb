#!/usr/bin/env bash
# Ninth pass: after the eligibility mend (checks cached per kernel, try_conv_imma): the GPU tests
# and the dense rows of the benchmark.
set -u
out=${OUT:-/tmp/out}; mkdir -p $out
cmake -S . -B /tmp/bk -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF -DVF_WERROR=ON >/tmp/cmake.log 2>&1
cmake --build /tmp/bk -j16 --target vfilter_gpu_tests vfilter_gpu_bench >/tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head; exit 1; }
/tmp/bk/vfilter_gpu_bench --only dense >$out/mend2_bench.txt 2>&1
grep -E "auto runs| (tensor|auto|npp) +[0-9]" $out/mend2_bench.txt | grep -v b2b
timeout 420 /tmp/bk/vfilter_gpu_tests --gtest_brief=1 --gtest_filter='Gpu.*:Kernels/GpuVariants.*' >$out/mend2_tests.txt 2>&1
echo "Gpu.* + GpuVariants exit $?"; grep -E "PASSED|FAILED|tests ran|Failure" $out/mend2_tests.txt | head
