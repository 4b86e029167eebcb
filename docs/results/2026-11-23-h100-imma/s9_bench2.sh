#!/usr/bin/env bash
# Ninth pass: the whole benchmark once more, now printing which path auto runs for each convolution.
set -u
out=${OUT:-/tmp/out}; mkdir -p $out
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $out/machine.txt; date -u >> $out/machine.txt
cmake -S . -B /tmp/bk -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF -DVF_WERROR=ON >/tmp/cmake.log 2>&1
cmake --build /tmp/bk -j16 --target vfilter_gpu_bench >/tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head; exit 1; }
/tmp/bk/vfilter_gpu_bench --json $out/final2_gpu_bench.json >$out/final2_gpu_bench.txt 2>&1
grep -E "device:|auto runs| (auto|npp|fft|tensor) +[0-9]|1D" $out/final2_gpu_bench.txt | grep -E "dense|device|1D|auto runs"
