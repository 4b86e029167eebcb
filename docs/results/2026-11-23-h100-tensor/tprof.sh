#!/usr/bin/env bash
# Where the tensor kernel's time goes: ncu at 4K (7x7 and 27x27) and its SASS.
set -u
out=${OUT:-/tmp/out}; mkdir -p $out
cmake -S . -B /tmp/bk -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF -DVF_WERROR=ON >$out/cmake.log 2>&1
cmake --build /tmp/bk -j16 --target vfilter_gpu_bench >$out/build.log 2>&1 || { grep -E "error" $out/build.log | head; exit 1; }
B=/tmp/bk/vfilter_gpu_bench
sec="--section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section InstructionStats --section SourceCounters"
prof() {
  local name=$1 k=$2; shift 2
  timeout 120 ncu --clock-control none --cache-control none $sec -k "regex:$k" --launch-skip 3 --launch-count 1 \
    $B --iterations 6 "$@" >$out/ncu_$name.txt 2>&1
  echo "== $name: $(grep -E '^ +Duration|Registers Per|Achieved Occupancy|Issue Slots Busy|Memory Throughput|No Eligible|Block Limit|Waves Per SM|Dynamic Shared|Bank' $out/ncu_$name.txt | tr -s ' ' | tr '\n' ';')"
}
prof t7 tensor_kernel --only "dense 7x7" --size 3840x2160
prof t27 tensor_kernel --only "dense 27" --size 3840x2160
o=$(find /tmp/bk -name "conv_tensor.cu.o" | head -1)
cuobjdump -sass "$o" > $out/tensor.sass 2>/dev/null
awk '/Function : .*tensor_kernelIh/{f=1} /Function : .*tensor_kernelIt/{f=0} f' $out/tensor.sass > $out/t8.sass
echo "SASS u8: $(wc -l < $out/t8.sass) lines; HMMA $(grep -c HMMA $out/t8.sass) LDSM $(grep -c LDSM $out/t8.sass) LDS $(grep -c 'LDS\b\|LDS\.' $out/t8.sass) LDL $(grep -c LDL $out/t8.sass) STL $(grep -c STL $out/t8.sass) BAR $(grep -c BAR $out/t8.sass)"
grep -A3 -B3 "Warp Cycles Per Issued\|Stall" $out/ncu_t27.txt | head -40
