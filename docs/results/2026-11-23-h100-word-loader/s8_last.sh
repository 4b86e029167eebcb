#!/usr/bin/env bash
# Eighth pass, last call: the word loader (consecutive groups) and auto's best-of-three timing:
# the whole benchmark (NPP in the same run), the sample-at-a-time loader on the affected rows,
# cuDNN; then the whole GPU kernel suite, memcheck and racecheck on the tile-staging tests, and a
# mutation of the item stepping, side by side.
set -u
out=${OUT:-/tmp/out}; mkdir -p $out
t0=$(date +%s)
tl=kernels/cuda/tile_loader.cuh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $out/machine.txt; date -u >> $out/machine.txt
mkdir -p /tmp/old && cp -r CMakeLists.txt app bench common config decode encode kernels pipeline scripts tests /tmp/old/
cp .device/old_tile_loader.cuh /tmp/old/$tl
d=/tmp/m4; rm -rf $d; mkdir -p $d; cp -r CMakeLists.txt app bench common config decode encode kernels pipeline scripts tests $d/
sed -i 's|if (g >= groups) g -= groups, ++r;|if (g >= groups) g -= groups;|' $d/$tl; grep -c "g -= groups;$" $d/$tl
cmake -S . -B /tmp/bk -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF -DVF_WERROR=ON >/tmp/cmake.log 2>&1
cmake --build /tmp/bk -j9 --target vfilter_gpu_tests vfilter_gpu_bench >/tmp/build.log 2>&1 &
(cmake -S /tmp/old -B /tmp/old/b -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF >/dev/null 2>&1 && cmake --build /tmp/old/b -j3 --target vfilter_gpu_bench >/tmp/build_old.log 2>&1) &
(cmake -S $d -B $d/b -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF >/dev/null 2>&1 && cmake --build $d/b -j4 --target vfilter_gpu_tests >$d/build.log 2>&1) &
wait
[ -x /tmp/bk/vfilter_gpu_tests ] || { grep -E "error|warning" /tmp/build.log | head -30; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s"
/tmp/bk/vfilter_gpu_bench --json $out/gpu_bench.json >$out/gpu_bench.txt 2>&1
echo "bench ($(( $(date +%s) - t0 )) s)"; grep -E "device:| (auto|npp) +[0-9]|63x63.*(fft|tensor)|1D" $out/gpu_bench.txt | head -60
/tmp/old/b/vfilter_gpu_bench --only gaussian --only "dense 27x27" --only "dense 13x13" --only "dense 63x63" >$out/bench_old_loader.txt 2>&1
grep -E " (auto|tiled|tensor|separable) +[0-9]" $out/bench_old_loader.txt
PYTHONUNBUFFERED=1 timeout 130 python3 bench/cudnn_anchor.py >$out/cudnn_anchor.txt 2>&1; tail -22 $out/cudnn_anchor.txt
echo "anchors done ($(( $(date +%s) - t0 )) s)"
( timeout 300 compute-sanitizer --tool memcheck --error-exitcode 99 /tmp/bk/vfilter_gpu_tests --gtest_brief=1 --gtest_filter='Gpu.SeparableAtEveryTapCount:Kernels/GpuVariants.*' >/tmp/memcheck.txt 2>&1
  echo "memcheck exit $?: $(grep -E 'ERROR SUMMARY|PASSED|FAILED' /tmp/memcheck.txt | tr '\n' ' ')" >>$out/sanitizers.txt ) &
( timeout 300 compute-sanitizer --tool racecheck --error-exitcode 99 /tmp/bk/vfilter_gpu_tests --gtest_brief=1 --gtest_filter='Kernels/GpuVariants.*' >/tmp/racecheck.txt 2>&1
  echo "racecheck exit $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED' /tmp/racecheck.txt | tr '\n' ' ')" >>$out/sanitizers.txt ) &
( timeout 200 $d/b/vfilter_gpu_tests --gtest_brief=1 --gtest_filter='Gpu.SeparableAtEveryTapCount' >/tmp/mut4.txt 2>&1
  echo "mutation (group wrap without the next row; Gpu.SeparableAtEveryTapCount): exit $?, $(grep -c 'Failure' /tmp/mut4.txt) failures" >>$out/sanitizers.txt ) &
timeout 320 /tmp/bk/vfilter_gpu_tests --gtest_brief=1 >$out/gpu_tests.txt 2>&1; echo "whole gpu suite exit $? ($(( $(date +%s) - t0 )) s)"
grep -E "PASSED|FAILED|tests ran" $out/gpu_tests.txt | head; grep -B3 -A10 "Failure" $out/gpu_tests.txt | head -30
wait; cat $out/sanitizers.txt
echo "done in $(( $(date +%s) - t0 )) s"
