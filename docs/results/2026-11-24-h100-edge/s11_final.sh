#!/usr/bin/env bash
# Eleventh pass, final figures: the whole benchmark (NPP in the same run), bench/cudnn_anchor.py,
# the shared anchors script, then memcheck and racecheck on the strip tests.
set -u
out=${OUT:-/tmp/out}; mkdir -p $out; res=/tmp/res; mkdir -p $res
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $res/machine.txt; date -u >> $res/machine.txt
cmake -S . -B /tmp/bk -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF -DVF_WERROR=ON >/tmp/cmake.log 2>&1
cmake --build /tmp/bk -j16 --target vfilter_gpu_tests vfilter_gpu_bench >/tmp/build.log 2>&1
[ -x /tmp/bk/vfilter_gpu_bench ] || { grep -E "error|warning" /tmp/build.log | head -30; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s"
/tmp/bk/vfilter_gpu_bench --json $res/final_gpu_bench.json >$res/final_gpu_bench.txt 2>&1
echo "bench ($(( $(date +%s) - t0 )) s)"; grep -E "device:| (auto|npp) +[0-9]|1D" $res/final_gpu_bench.txt
timeout 150 python3 bench/cudnn_anchor.py >$res/final_cudnn_anchor.txt 2>&1; echo "cudnn exit $? ($(( $(date +%s) - t0 )) s)"; tail -22 $res/final_cudnn_anchor.txt
timeout 120 python3 .device/s11/anchors.py >$res/final_anchors.txt 2>&1; echo "anchors exit $? ($(( $(date +%s) - t0 )) s)"; grep -iE "conv1d|fft" $res/final_anchors.txt | head
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 99 /tmp/bk/vfilter_gpu_tests --gtest_brief=1 --gtest_filter='Gpu.SixteenWide*:Gpu.SmallKernels*' >/tmp/memcheck.txt 2>&1
echo "memcheck exit $?: $(grep -E 'ERROR SUMMARY|PASSED|FAILED' /tmp/memcheck.txt | tr '\n' ' ')" >$res/final_sanitizers.txt
timeout 100 compute-sanitizer --tool racecheck --error-exitcode 99 /tmp/bk/vfilter_gpu_tests --gtest_brief=1 --gtest_filter='Gpu.SixteenWide*:Gpu.SmallKernels*' >/tmp/racecheck.txt 2>&1
echo "racecheck exit $?: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY|PASSED|FAILED' /tmp/racecheck.txt | tr '\n' ' ')" >>$res/final_sanitizers.txt
cat $res/final_sanitizers.txt
cd $res && tar czf $out/final.tgz *
echo "done in $(( $(date +%s) - t0 )) s"
