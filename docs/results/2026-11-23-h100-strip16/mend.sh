#!/usr/bin/env bash
# After the mend (one DP4A accumulation for both strip kernels): build with -Werror, the whole GPU
# kernel suite, the small rows of the benchmark.
set -u
out=${OUT:-/tmp/out}; mkdir -p $out
cmake -S . -B /tmp/bk -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF -DVF_WERROR=ON >/tmp/cmake.log 2>&1
cmake --build /tmp/bk -j16 --target vfilter_gpu_tests vfilter_gpu_bench >/tmp/build.log 2>&1 || { grep -E "error|warning" /tmp/build.log | head -30; exit 1; }
/tmp/bk/vfilter_gpu_tests --gtest_brief=1 >/tmp/gpu_tests.txt 2>&1; echo "gpu tests exit $?"; grep -E "FAILED|PASSED|Failure" /tmp/gpu_tests.txt | head
/tmp/bk/vfilter_gpu_bench --only sobel --only "dense 3x3" --only "dense 5x5" --size 1920x1080 --size 3840x2160 >$out/mend_bench_small.txt 2>&1
grep -E " (auto|npp) +[0-9]" $out/mend_bench_small.txt
