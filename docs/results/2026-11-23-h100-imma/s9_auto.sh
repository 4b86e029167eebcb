#!/usr/bin/env bash
# Ninth pass: which path auto runs for the dense 63x63 and 27x27 rows, three runs of the benchmark.
set -u
out=${OUT:-/tmp/out}; mkdir -p $out
cmake -S . -B /tmp/bk -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF -DVF_WERROR=ON >/tmp/cmake.log 2>&1
cmake --build /tmp/bk -j16 --target vfilter_gpu_bench >/tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head; exit 1; }
for r in 1 2 3; do /tmp/bk/vfilter_gpu_bench --only "dense 63x63" --only "dense 27x27" --only "dense 13x13" >$out/auto_run$r.txt 2>&1
  grep -E "auto runs| (fft|tensor|auto) +[0-9]" $out/auto_run$r.txt; done
