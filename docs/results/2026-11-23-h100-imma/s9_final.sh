#!/usr/bin/env bash
# Ninth pass, final figures: the whole benchmark (NPP in the same run), cuDNN and the shared
# anchors, then memcheck and racecheck on the integer tensor path's test.
set -u
out=${OUT:-/tmp/out}; mkdir -p $out
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $out/machine.txt; date -u >> $out/machine.txt
cmake -S . -B /tmp/bk -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF -DVF_WERROR=ON >/tmp/cmake.log 2>&1
cmake --build /tmp/bk -j16 --target vfilter_gpu_tests vfilter_gpu_bench >/tmp/build.log 2>&1
[ -x /tmp/bk/vfilter_gpu_tests ] || { grep -E "error|warning" /tmp/build.log | head -30; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s"
/tmp/bk/vfilter_gpu_bench --json $out/final_gpu_bench.json >$out/final_gpu_bench.txt 2>&1
echo "bench ($(( $(date +%s) - t0 )) s)"; grep -E "device:| (auto|npp|tensor|tensor-f16) +[0-9]|1D" $out/final_gpu_bench.txt | head -80
PYTHONUNBUFFERED=1 timeout 130 python3 bench/cudnn_anchor.py >$out/final_cudnn_anchor.txt 2>&1; tail -22 $out/final_cudnn_anchor.txt
PYTHONUNBUFFERED=1 timeout 120 python3 .device/anchors.py >$out/final_anchors.txt 2>&1; echo "anchors.py exit $?"; tail -15 $out/final_anchors.txt
echo "anchors done ($(( $(date +%s) - t0 )) s)"
( timeout 330 compute-sanitizer --tool memcheck --error-exitcode 99 /tmp/bk/vfilter_gpu_tests --gtest_brief=1 --gtest_filter='Gpu.IntegerTensor*' >/tmp/memcheck.txt 2>&1
  echo "memcheck exit $?: $(grep -E 'ERROR SUMMARY|PASSED|FAILED' /tmp/memcheck.txt | tr '\n' ' ')" >>$out/final_sanitizers.txt; tail -5 /tmp/memcheck.txt >> $out/final_sanitizers.txt ) &
( timeout 330 compute-sanitizer --tool racecheck --error-exitcode 99 /tmp/bk/vfilter_gpu_tests --gtest_brief=1 --gtest_filter='Gpu.IntegerTensor*' >/tmp/racecheck.txt 2>&1
  echo "racecheck exit $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED' /tmp/racecheck.txt | tr '\n' ' ')" >>$out/final_sanitizers.txt; tail -5 /tmp/racecheck.txt >> $out/final_sanitizers.txt ) &
wait; cat $out/final_sanitizers.txt
echo "done in $(( $(date +%s) - t0 )) s"
