#!/usr/bin/env bash
# Ninth pass: the tests after the mend (random kernels from one helper), on the final code.
set -u
out=${OUT:-/tmp/out}; mkdir -p $out
cmake -S . -B /tmp/bk -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF -DVF_WERROR=ON >/tmp/cmake.log 2>&1
cmake --build /tmp/bk -j16 --target vfilter_gpu_tests >/tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head; exit 1; }
timeout 400 /tmp/bk/vfilter_gpu_tests --gtest_brief=1 --gtest_filter='Gpu.*' >$out/mend_tests.txt 2>&1
echo "Gpu.* exit $?"; grep -E "PASSED|FAILED|tests ran|Failure" $out/mend_tests.txt | head
