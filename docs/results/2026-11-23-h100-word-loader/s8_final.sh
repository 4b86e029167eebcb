#!/usr/bin/env bash
# Eighth pass, fourth call: the word loader with unpadded direct-kernel tiles: the whole GPU kernel
# suite, a mutation of the 4x8 patch mapping, the whole benchmark (NPP in the same run),
# and the affected rows against the sample-at-a-time loader built side by side.
set -u
out=${OUT:-/tmp/out}; mkdir -p $out
t0=$(date +%s)
tl=kernels/cuda/tile_loader.cuh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $out/machine.txt; date -u >> $out/machine.txt
mkdir -p /tmp/old && cp -r CMakeLists.txt app bench common config decode encode kernels pipeline scripts tests /tmp/old/
cp .device/old_tile_loader.cuh /tmp/old/$tl
d=/tmp/m3; rm -rf $d; mkdir -p $d; cp -r CMakeLists.txt app bench common config decode encode kernels pipeline scripts tests $d/
sed -i 's|lr = vec ? 0 : lane / 8,|lr = vec ? 0 : lane / 8 % 2,|' $d/$tl; grep -c "lane / 8 % 2" $d/$tl
cmake -S . -B /tmp/bk -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF -DVF_WERROR=ON >/tmp/cmake.log 2>&1
cmake --build /tmp/bk -j8 --target vfilter_gpu_tests vfilter_gpu_bench >/tmp/build.log 2>&1 &
(cmake -S /tmp/old -B /tmp/old/b -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF >/dev/null 2>&1 && cmake --build /tmp/old/b -j3 --target vfilter_gpu_bench >/tmp/build_old.log 2>&1) &
(cmake -S $d -B $d/b -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF >/dev/null 2>&1 && cmake --build $d/b -j5 --target vfilter_gpu_tests >$d/build.log 2>&1) &
wait
[ -x /tmp/bk/vfilter_gpu_tests ] || { grep -E "error|warning" /tmp/build.log | head -30; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s"
( timeout 200 $d/b/vfilter_gpu_tests --gtest_brief=1 --gtest_filter='Gpu.SeparableAtEveryTapCount' >/tmp/mut3.txt 2>&1
  echo "mutation (patch rows 2 and 3 never staged; Gpu.SeparableAtEveryTapCount): exit $?, $(grep -c 'Failure' /tmp/mut3.txt) failures" >$out/mutation.txt ) &
/tmp/bk/vfilter_gpu_tests --gtest_brief=1 >$out/gpu_tests.txt 2>&1; echo "whole gpu suite exit $? ($(( $(date +%s) - t0 )) s)"
grep -E "PASSED|FAILED|tests ran" $out/gpu_tests.txt | head; grep -B3 -A10 "Failure" $out/gpu_tests.txt | head -30
wait; cat $out/mutation.txt
/tmp/bk/vfilter_gpu_bench --json $out/gpu_bench.json >$out/gpu_bench.txt 2>&1
echo "bench ($(( $(date +%s) - t0 )) s)"; grep -E "device:| (auto|npp) +[0-9]" $out/gpu_bench.txt | head -60
/tmp/old/b/vfilter_gpu_bench --only gaussian --only "dense 27x27" --only "dense 13x13" --only "dense 63x63" >$out/bench_old_loader.txt 2>&1
grep -E " (auto|tiled|tensor|separable) +[0-9]" $out/bench_old_loader.txt
echo "done in $(( $(date +%s) - t0 )) s"
