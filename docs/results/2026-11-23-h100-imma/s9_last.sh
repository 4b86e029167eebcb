#!/usr/bin/env bash
# Ninth pass, last call: the strips' loads with the L2 256-byte hint: the whole GPU kernel suite,
# the whole benchmark twice (NPP in the same runs), memcheck on the byte-path tests.
set -u
out=${OUT:-/tmp/out}; mkdir -p $out
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $out/machine.txt; date -u >> $out/machine.txt
cmake -S . -B /tmp/bk -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF -DVF_WERROR=ON >/tmp/cmake.log 2>&1
cmake --build /tmp/bk -j16 --target vfilter_gpu_tests vfilter_gpu_bench >/tmp/build.log 2>&1
[ -x /tmp/bk/vfilter_gpu_tests ] || { grep -E "error|warning" /tmp/build.log | head -30; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s"
for r in 1 2; do /tmp/bk/vfilter_gpu_bench --json $out/last_gpu_bench_$r.json >$out/last_gpu_bench_$r.txt 2>&1; done
echo "bench ($(( $(date +%s) - t0 )) s)"
for r in 1 2; do grep -E "device:|auto runs| (auto|npp) +[0-9]|1D" $out/last_gpu_bench_$r.txt | grep -v "auto runs"; done
( timeout 300 compute-sanitizer --tool memcheck --error-exitcode 99 /tmp/bk/vfilter_gpu_tests --gtest_brief=1 --gtest_filter='Gpu.SixteenWide*:Gpu.SmallKernels*:Gpu.FiveByFive*' >/tmp/memcheck.txt 2>&1
  echo "memcheck exit $?: $(grep -E 'ERROR SUMMARY|PASSED|FAILED' /tmp/memcheck.txt | tr '\n' ' ')" >$out/last_sanitizers.txt ) &
timeout 330 /tmp/bk/vfilter_gpu_tests --gtest_brief=1 >$out/last_gpu_tests.txt 2>&1; echo "whole gpu suite exit $? ($(( $(date +%s) - t0 )) s)"
grep -E "PASSED|FAILED|tests ran" $out/last_gpu_tests.txt | head; grep -B3 -A6 "Failure" $out/last_gpu_tests.txt | head -30
wait; cat $out/last_sanitizers.txt
echo "done in $(( $(date +%s) - t0 )) s"
