#!/usr/bin/env bash
# Final check of the DP4A paths: kernels-only build, the whole GPU kernel suite, compute-sanitizer
# on the small-filter tests, the full kernel benchmark and the cuDNN anchor in the same run.
set -u
out=${OUT:-/tmp/out}; mkdir -p $out
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; } | tee $out/machine.txt
t0=$(date +%s)
cmake -S . -B /tmp/bk -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF -DVF_WERROR=ON >$out/cmake.log 2>&1
cmake --build /tmp/bk -j16 --target vfilter_gpu_tests vfilter_gpu_bench >$out/build.log 2>&1 || { grep -E "error|warning" $out/build.log | head -30; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s"
/tmp/bk/vfilter_gpu_tests --gtest_brief=1 >$out/gpu_tests.txt 2>&1; echo "gpu tests exit $?"; grep -E "FAILED|PASSED|SKIPPED|Failure" $out/gpu_tests.txt | head -20
for tool in memcheck racecheck synccheck; do
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 99 /tmp/bk/vfilter_gpu_tests --gtest_brief=1 \
    --gtest_filter='Gpu.SmallKernelsExactOnBothPaths:Gpu.FiveByFiveOnLargePlanesExactOnTheBytePath' >"$out/sanitizer_$tool.txt" 2>&1
  echo "$tool exit $? : $(grep -E 'ERROR SUMMARY|PASSED' "$out/sanitizer_$tool.txt" | tr '\n' ' ')"
done
/tmp/bk/vfilter_gpu_bench --json $out/gpu_bench.json >$out/gpu_bench.txt 2>&1; echo "bench exit $?"
grep -E "device:| (auto|npp|copy) +[0-9]|1D|direct|fft" $out/gpu_bench.txt | head -80
PYTHONUNBUFFERED=1 timeout 200 python3 bench/cudnn_anchor.py >$out/cudnn_anchor.txt 2>&1; echo "cudnn exit $?"
tail -25 $out/cudnn_anchor.txt
