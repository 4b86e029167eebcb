#!/usr/bin/env bash
# Ninth pass: after the last mend (shared ldmatrix, device limits, one eligibility pass): the GPU
# tests of both tensor paths and the forced variants, and their benchmark rows.
set -u
out=${OUT:-/tmp/out}; mkdir -p $out
cmake -S . -B /tmp/bk -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF -DVF_WERROR=ON >/tmp/cmake.log 2>&1
cmake --build /tmp/bk -j16 --target vfilter_gpu_tests vfilter_gpu_bench >/tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head; exit 1; }
/tmp/bk/vfilter_gpu_bench --only "dense 13x13" --only "dense 27x27" --only "dense 63x63" >$out/mend3_bench.txt 2>&1
grep -E "auto runs| (tensor|tensor-f16|auto) +[0-9]" $out/mend3_bench.txt | grep -v b2b
timeout 400 /tmp/bk/vfilter_gpu_tests --gtest_brief=1 --gtest_filter='Gpu.*:Kernels/GpuVariants.*' >$out/mend3_tests.txt 2>&1
echo "Gpu.* + GpuVariants exit $?"; grep -E "PASSED|FAILED|tests ran|Failure" $out/mend3_tests.txt | head
