#!/usr/bin/env bash
# Tenth pass, sixth call: the box walk from a cp.async-staged tile and the separable integer path
# staging by cp.async: the new box test and the whole GPU kernel suite, then the Gaussian and box
# rows (3 runs).
set -u
out=${OUT:-/tmp/out}; mkdir -p $out
t0=$(date +%s)
cmake -S . -B /tmp/bk -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF -DVF_WERROR=ON >/tmp/cmake.log 2>&1
cmake --build /tmp/bk -j16 --target vfilter_gpu_tests vfilter_gpu_bench >/tmp/build.log 2>&1
[ -x /tmp/bk/vfilter_gpu_bench ] || { grep -E "error|warning" /tmp/build.log | head -30; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s"
for r in 1 2 3; do
  /tmp/bk/vfilter_gpu_bench --only gaussian --only box >/tmp/bench_$r.txt 2>&1
  echo "run $r: $(grep -E ' (separable|separable-f32|npp) ' /tmp/bench_$r.txt | awk '{print $1, $2, $(NF-3), $(NF-2)}' | tr '\n' ' ')"
done
timeout 330 /tmp/bk/vfilter_gpu_tests --gtest_brief=1 >/tmp/gpu_tests.txt 2>&1; echo "whole gpu suite exit $? ($(( $(date +%s) - t0 )) s)"
grep -E "PASSED|FAILED|tests ran" /tmp/gpu_tests.txt | head; grep -B3 -A8 "Failure" /tmp/gpu_tests.txt | head -40
cd /tmp && tar czf $out/call6.tgz gpu_tests.txt bench_?.txt
echo "done in $(( $(date +%s) - t0 )) s"
