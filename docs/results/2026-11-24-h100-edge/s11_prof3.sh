#!/usr/bin/env bash
# Where the 3x3 strip's time goes at 1080p: ncu (full set, source counters) for one launch of the
# library kernel; the SASS page comes back for reading here.
set -u
out=${OUT:-/tmp/out}; mkdir -p $out
nvcc -std=c++17 -O3 -arch=sm_90 -lineinfo -I. -o /tmp/abl3 .device/s11/abl3.cu kernels/fixed_finish.cpp 2>/dev/null || exit 1
NCU=1 timeout 200 ncu --set full --import-source no --clock-control none --cache-control none --kernel-name regex:strip16 --launch-count 1 -o /tmp/rep3 /tmp/abl3 >/tmp/ncu3.log 2>&1
echo "ncu exit $?"; tail -3 /tmp/ncu3.log
ncu --import /tmp/rep3.ncu-rep --page source --csv --print-source sass > /tmp/sass3.csv 2>&1; echo "lines $(wc -l < /tmp/sass3.csv)"
ncu --import /tmp/rep3.ncu-rep > /tmp/details3.txt 2>&1
grep -E "Duration|Issue Slots Busy|Registers Per|Achieved Occupancy|Executed Instructions  |Warp Cycles Per Issued" /tmp/details3.txt | sed 's/  */ /g'
cd /tmp && tar czf $out/prof3.tgz sass3.csv details3.txt
