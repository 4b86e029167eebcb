#!/usr/bin/env bash
# Eighth pass, check after the last change: the FP32 tile kernels back on the sample-at-a-time
# loader (load_tile<T, float, false>), separable and tensor kernels on the word loader. The tests
# that run the direct kernels; the rows with a tile kernel.
set -u
out=${OUT:-/tmp/out}; mkdir -p $out
t0=$(date +%s)
cmake -S . -B /tmp/bk -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF -DVF_WERROR=ON >/tmp/cmake.log 2>&1
cmake --build /tmp/bk -j16 --target vfilter_gpu_tests vfilter_gpu_bench >/tmp/build.log 2>&1 || { grep -E "error|warning" /tmp/build.log | head -30; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s"
/tmp/bk/vfilter_gpu_bench --only gaussian --only "dense 27x27" --only "dense 13x13" --only "dense 7x7" --size 1920x1080 --size 3840x2160 >$out/bench_tiled.txt 2>&1
grep -E " (auto|tiled|tensor|separable) +[0-9]" $out/bench_tiled.txt
timeout 300 /tmp/bk/vfilter_gpu_tests --gtest_brief=1 --gtest_filter='Kernels/GpuVariants.*:Gpu.SmallKernels*:Gpu.LargeKernels*:Gpu.InterleavedAndShiftedLayouts:Gpu.SeparableAtEveryTapCount:Gpu.FiveByFive*' >$out/tests.txt 2>&1
echo "tests exit $? ($(( $(date +%s) - t0 )) s)"; grep -E "PASSED|FAILED|tests ran" $out/tests.txt | head; grep -B3 -A8 "Failure" $out/tests.txt | head -30
