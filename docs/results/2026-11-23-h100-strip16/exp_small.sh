#!/usr/bin/env bash
set -u
nvcc -std=c++17 -O3 -arch=sm_90 -I. -fmad=false -Xptxas -v -o /tmp/exp_small .device/exp_small.cu kernels/fixed_finish.cpp 2>$OUT/ptxas.txt || { cat $OUT/ptxas.txt | tail; exit 1; }
/tmp/exp_small | tee $OUT/exp_small.txt
NCU=1 ncu --clock-control none --cache-control none -k regex:'strip16' \
  --metrics gpu__time_duration.sum,sm__inst_executed.sum,sm__instruction_throughput.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,smsp__issue_active.avg.pct_of_peak_sustained_active \
  /tmp/exp_small > $OUT/ncu.txt 2>&1
python3 - <<'PY'
import re,os
txt=open(os.environ['OUT']+'/ncu.txt').read()
for blk in re.split(r'\n  (?=\S+.*\(\d+, \d+, \d+\)x)', txt)[1:]:
    head=blk.splitlines()[0][:60]
    vals={m.group(1):m.group(3) for m in re.finditer(r'\n\s+(\S+)\s+(\S+)?\s+([\d.,]+)\s*$', blk, re.M)}
    print(head, {k.split('.')[0].split('__')[-1]+'.'+k.split('.')[-1][:12]:v for k,v in vals.items()})
PY

