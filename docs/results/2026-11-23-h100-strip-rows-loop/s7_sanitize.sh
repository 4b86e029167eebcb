#!/usr/bin/env bash
# Seventh pass, last call: memcheck on the whole GPU kernel suite; racecheck and synccheck on
# the byte-path tests (the strips use no shared memory; the tile, tensor and separable paths did
# not change) side by side.
set -u
out=${OUT:-/tmp/out}; mkdir -p $out
t0=$(date +%s)
cmake -S . -B /tmp/bk -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF -DVF_WERROR=ON >/tmp/cmake.log 2>&1
cmake --build /tmp/bk -j16 --target vfilter_gpu_tests >/tmp/build.log 2>&1 || { grep -E "error|warning" /tmp/build.log | head -30; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s"
( timeout 470 compute-sanitizer --tool memcheck --error-exitcode 99 /tmp/bk/vfilter_gpu_tests --gtest_brief=1 >/tmp/full_memcheck.txt 2>&1
  echo "memcheck (whole kernel suite) exit $? in $(( $(date +%s) - t0 )) s: $(grep -E 'ERROR SUMMARY|PASSED|FAILED' /tmp/full_memcheck.txt | tr '\n' ' ')" ) &
for tool in racecheck synccheck; do
  ( timeout 400 compute-sanitizer --tool $tool --error-exitcode 99 /tmp/bk/vfilter_gpu_tests --gtest_brief=1 \
      --gtest_filter='Gpu.SixteenWide*:Gpu.SmallKernels*:Gpu.AllFilters*' >/tmp/$tool.txt 2>&1
    echo "$tool (byte-path tests) exit $? in $(( $(date +%s) - t0 )) s: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED' /tmp/$tool.txt | tr '\n' ' ')" ) &
done
wait
