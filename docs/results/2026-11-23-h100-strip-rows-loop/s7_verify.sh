#!/usr/bin/env bash
# Seventh pass: DP4A on aligned words (taps packed per byte offset) and the 16-wide strips for
# 7x7 to 15x15. Builds the new tree and the old one (HEAD's three kernel files, from .device/old)
# side by side, runs the whole GPU kernel suite on the new one, and times the small and mid rows
# of the benchmark for both in the same session (NPP in the same run).
set -u
out=${OUT:-/tmp/out}; mkdir -p $out
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $out/machine.txt
t0=$(date +%s)
rm -rf /tmp/old && mkdir /tmp/old && cp -r CMakeLists.txt app bench common config decode encode kernels pipeline scripts tests cmake /tmp/old/ 2>/dev/null
cp .device/old/strip_dp4a.cuh .device/old/strip16_dp4a.cuh .device/old/conv_direct.cu /tmp/old/kernels/cuda/
cmake -S . -B /tmp/bk -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF -DVF_WERROR=ON >/tmp/cmake.log 2>&1
cmake -S /tmp/old -B /tmp/bo -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF >/tmp/cmake_old.log 2>&1
cmake --build /tmp/bk -j12 --target vfilter_gpu_tests vfilter_gpu_bench >/tmp/build.log 2>&1 &
cmake --build /tmp/bo -j4 --target vfilter_gpu_bench >/tmp/build_old.log 2>&1 &
wait
[ -x /tmp/bk/vfilter_gpu_tests ] || { grep -E "error|warning" /tmp/build.log | head -30; exit 1; }
[ -x /tmp/bo/vfilter_gpu_bench ] || { grep -E "error" /tmp/build_old.log | head -10; tail -5 /tmp/cmake_old.log; }
echo "built in $(( $(date +%s) - t0 )) s"
/tmp/bk/vfilter_gpu_tests --gtest_brief=1 >/tmp/gpu_tests.txt 2>&1; echo "gpu tests exit $? ($(( $(date +%s) - t0 )) s)"
grep -E "FAILED|PASSED|tests ran|Failure" /tmp/gpu_tests.txt | head -20; grep -B2 -A8 "Failure" /tmp/gpu_tests.txt | head -40
only=(--only sobel --only "dense 3x3" --only "dense 5x5" --only "dense 7x7" --only "dense 13x13")
for v in new old; do
  b=/tmp/bk; [ $v = old ] && b=/tmp/bo
  [ -x $b/vfilter_gpu_bench ] || continue
  $b/vfilter_gpu_bench "${only[@]}" --size 1920x1080 --size 3840x2160 --json $out/bench_$v.json >$out/bench_$v.txt 2>&1
  echo "== $v ($(( $(date +%s) - t0 )) s)"; grep -E " (auto|npp|tiled|tensor|copy) +[0-9]" $out/bench_$v.txt
done
# the new one once more, after the old, to see the session's spread
/tmp/bk/vfilter_gpu_bench "${only[@]}" --size 1920x1080 --size 3840x2160 >/tmp/bench_new2.txt 2>&1
echo "== new again"; grep -E " (auto|npp) +[0-9]" /tmp/bench_new2.txt
echo "done in $(( $(date +%s) - t0 )) s"
