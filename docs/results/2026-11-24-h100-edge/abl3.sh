#!/usr/bin/env bash
# Ablations of the 3x3 strip kernel (timings, then ncu instruction counts).
set -u
nvcc -std=c++17 -O3 -arch=sm_90 -I. -o /tmp/abl3 .device/s11/abl3.cu kernels/fixed_finish.cpp 2>/dev/null || { echo build failed; exit 1; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/abl3.txt
/tmp/abl3 >> $OUT/abl3.txt 2>&1
NCU=1 timeout 300 ncu --clock-control none --cache-control none -k regex:'abl|strip16|copy16' \
  --metrics gpu__time_duration.sum,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,lts__t_sectors_srcunit_tex_op_read.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,launch__registers_per_thread \
  /tmp/abl3 > $OUT/abl3_ncu_raw.txt 2>&1
grep -E "abl<|strip16_kernel|copy16|duration|inst_executed|issue_active|warps_active|lts__t|l1tex|registers" $OUT/abl3_ncu_raw.txt | sed 's/  */ /g' > $OUT/abl3_ncu.txt
cat $OUT/abl3.txt; cat $OUT/abl3_ncu.txt | head -120
