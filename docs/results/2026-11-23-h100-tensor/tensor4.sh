#!/usr/bin/env bash
# Tensor path with the chunk count unrolled: tests, memcheck, racecheck, dense rows timed.
set -u
out=${OUT:-/tmp/out}; mkdir -p $out
cmake -S . -B /tmp/bk -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF -DVF_WERROR=ON >$out/cmake.log 2>&1
cmake --build /tmp/bk -j16 --target vfilter_gpu_tests vfilter_gpu_bench >$out/build.log 2>&1 || { grep -E "error|warning" $out/build.log | head -30; exit 1; }
timeout 120 /tmp/bk/vfilter_gpu_tests --gtest_brief=1 --gtest_filter="*Tensor*:GpuVariants*:Gpu.LargeKernelsAndFourK" >$out/gpu_tests.txt 2>&1; echo "tensor tests exit $?"
grep -E "FAILED|PASSED|SKIPPED|Failure|Expected|Which is|differ|max diff|ms\)" $out/gpu_tests.txt | head -30
B=/tmp/bk/vfilter_gpu_bench
timeout 200 $B --only "dense 7x7" --only "dense 13" --only "dense 27" --only "dense 63" >$out/bench_dense.txt 2>&1
grep -E " (tiled|fft|tensor|auto|npp) +[0-9]" $out/bench_dense.txt
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 99 /tmp/bk/vfilter_gpu_tests --gtest_brief=1 \
  --gtest_filter='Gpu.TensorPathExactAgainstReference' >$out/memcheck.txt 2>&1
echo "memcheck exit $? : $(grep -E 'ERROR SUMMARY|PASSED' $out/memcheck.txt | tr '\n' ' ')"
timeout 150 compute-sanitizer --tool racecheck --error-exitcode 99 /tmp/bk/vfilter_gpu_tests --gtest_brief=1 \
  --gtest_filter='Gpu.TensorPathExactAgainstReference' >$out/racecheck.txt 2>&1
echo "racecheck exit $? : $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY|PASSED' $out/racecheck.txt | tr '\n' ' ')"
