#!/usr/bin/env bash
# Last call of the session: kernels-only build, the whole kernel benchmark once more (a second
# sample of every row; the 1D FFT came out 6x slower in the first), then memcheck and synccheck on
# the whole GPU kernel suite side by side.
set -u
out=${OUT:-/tmp/out}; mkdir -p $out
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $out/machine2.txt
t0=$(date +%s)
cmake -S . -B /tmp/bk -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF -DVF_WERROR=ON >/tmp/cmake.log 2>&1
cmake --build /tmp/bk -j16 --target vfilter_gpu_tests vfilter_gpu_bench >/tmp/build.log 2>&1 || { grep -E "error|warning" /tmp/build.log | head -30; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s"
/tmp/bk/vfilter_gpu_bench --json $out/gpu_bench2.json >$out/gpu_bench2.txt 2>&1
grep -E "device:|1D|sobel +auto |dense (3|5)x. +auto |sobel +npp |dense (3|5)x. +npp " $out/gpu_bench2.txt
for tool in memcheck synccheck; do
  ( s=$(date +%s)
    timeout 330 compute-sanitizer --tool $tool --error-exitcode 99 /tmp/bk/vfilter_gpu_tests --gtest_brief=1 >/tmp/full_$tool.txt 2>&1
    echo "$tool exit $? in $(( $(date +%s) - s )) s: $(grep -E 'ERROR SUMMARY|tests ran|PASSED|FAILED' /tmp/full_$tool.txt | tr '\n' ' ')" ) &
done
wait
