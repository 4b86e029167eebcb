#!/usr/bin/env bash
# Tenth pass, first call: the separable kernel with the integer row pass: its test, the tests of
# the paths it touches (separable, forced variants, both tensor-core paths), and the Gaussian and
# box rows of the benchmark (twice).
set -u
out=${OUT:-/tmp/out}; mkdir -p $out
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $out/machine.txt; date -u >> $out/machine.txt
cmake -S . -B /tmp/bk -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF -DVF_WERROR=ON >/tmp/cmake.log 2>&1
cmake --build /tmp/bk -j16 --target vfilter_gpu_tests vfilter_gpu_bench >/tmp/build.log 2>&1
[ -x /tmp/bk/vfilter_gpu_tests ] || { grep -E "error|warning" /tmp/build.log | head -30; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s"
timeout 200 /tmp/bk/vfilter_gpu_tests --gtest_brief=1 --gtest_filter='Gpu.Separable*:GpuVariants.*:Gpu.IntegerTensorPath*:Gpu.TensorPath*' >$out/tests.txt 2>&1
echo "tests exit $? ($(( $(date +%s) - t0 )) s)"
grep -E "PASSED|FAILED|tests ran" $out/tests.txt | head; grep -B3 -A8 "Failure" $out/tests.txt | head -40
for r in 1 2; do /tmp/bk/vfilter_gpu_bench --only gaussian --only box --only copy --json $out/bench_$r.json >$out/bench_$r.txt 2>&1; done
for r in 1 2; do grep -E "device:|gaussian|box|copy " $out/bench_$r.txt | grep -E "device|separable|auto |npp |copy "; done
echo "done in $(( $(date +%s) - t0 )) s"
