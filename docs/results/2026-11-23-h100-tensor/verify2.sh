#!/usr/bin/env bash
# After auto's eligibility moved into its cache and the tap rules into plan.cpp: the whole GPU
# kernel suite, and the dense rows timed (auto must still take the tensor path for 13x13, 27x27).
set -u
out=${OUT:-/tmp/out}; mkdir -p $out
cmake -S . -B /tmp/bk -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF -DVF_WERROR=ON >$out/cmake.log 2>&1
cmake --build /tmp/bk -j16 --target vfilter_gpu_tests vfilter_gpu_bench >$out/build.log 2>&1 || { grep -E "error|warning" $out/build.log | head -30; exit 1; }
/tmp/bk/vfilter_gpu_tests --gtest_brief=1 >$out/gpu_tests.txt 2>&1; echo "gpu kernel tests exit $?"; grep -E "FAILED|PASSED|SKIPPED|Failure|tests ran" $out/gpu_tests.txt | head -10
timeout 150 /tmp/bk/vfilter_gpu_bench --only "dense 13" --only "dense 27" >$out/bench.txt 2>&1
grep -E " (tensor|auto|fft) +[0-9]" $out/bench.txt
