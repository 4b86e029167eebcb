#!/usr/bin/env bash
# One call on the GPU machine: build the kernels (no FFmpeg there), run the GPU tests, run them
# under compute-sanitizer, time the benchmark, and re-measure the anchors (cuDNN via PyTorch).
# Results go to $OUT (or ./gpu-out). Usage on the device: scripts/gpu_check.sh [quick]
set -uo pipefail
out=${OUT:-gpu-out}
mkdir -p "$out"
build=/tmp/vf-gpu-build
{
  date -u; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv; nvcc --version | tail -1
} >"$out/machine.txt" 2>&1
cat "$out/machine.txt"
cmake -S . -B $build -DCMAKE_BUILD_TYPE=Release -DVF_WITH_FFMPEG=OFF -DVF_WERROR=ON >"$out/build.log" 2>&1
if ! cmake --build $build -j "$(nproc)" >>"$out/build.log" 2>&1; then
  echo "build with NPP failed; retrying without NPP" | tee -a "$out/build.log"
  grep -E "error" "$out/build.log" | head -20
  cmake -S . -B $build -DVF_NPP=OFF >>"$out/build.log" 2>&1
  cmake --build $build -j "$(nproc)" >>"$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
fi
echo "== GPU tests"
$build/vfilter_gpu_tests --gtest_brief=1 >"$out/gpu_tests.txt" 2>&1
tail -5 "$out/gpu_tests.txt"
grep -E "FAILED|Failure" -A3 "$out/gpu_tests.txt" | head -40
echo "== compute-sanitizer (memcheck, racecheck, synccheck) on a subset"
subset='Gpu.*:Kernels/GpuVariants.*:AllFilters/GpuMatchesReference.AutoPath/1*:AllFilters/GpuMatchesReference.AutoPath/2[1-4]*:Sizes/Conv1dGpu.*/[0-4]'
for tool in memcheck racecheck synccheck; do
  timeout 300 compute-sanitizer --tool $tool --error-exitcode 99 $build/vfilter_gpu_tests --gtest_brief=1 \
    --gtest_filter="$subset" >"$out/sanitizer_$tool.txt" 2>&1
  echo "$tool exit $? : $(grep -E 'ERROR SUMMARY|tests ran|PASSED' "$out/sanitizer_$tool.txt" | tr '\n' ' ')"
done
[ "${1:-}" = quick ] && exit 0
if [ "${1:-}" = pipeline ]; then
  # The whole program against the static FFmpeg carried in .static-ffmpeg (lib, include, bin;
  # made by scripts/build_static_ffmpeg.sh): every test, the GPU end-to-end ones included.
  . scripts/use_static_ffmpeg.sh .static-ffmpeg || exit 1
  full=/tmp/vf-full
  cmake -S . -B $full -DCMAKE_BUILD_TYPE=Release -DVF_FFMPEG_STATIC=ON -DVF_WERROR=ON >"$out/full_build.log" 2>&1 &&
    cmake --build $full -j "$(nproc)" >>"$out/full_build.log" 2>&1 || { grep -E "error|Error" "$out/full_build.log" | head -30; exit 1; }
  (cd $full && ctest -j 8 --timeout 600 >"$out/full_ctest.log" 2>&1)
  grep -E "tests passed|tests failed|Failed|\*\*\*" "$out/full_ctest.log" | grep -v Skipped | head -30
  echo "== the pipeline on the GPU: built-in 1280x720 source, 300 frames, no encode"
  for f in identity sobel gaussian=sigma=3.2; do
    for d in cpu cuda; do
      $full/vfilter -q -f "$f" --device $d -o null --stats-json "$out/run_${d}_${f%%=*}.json" &&
        python3 -c "import json;d=json.load(open('$out/run_${d}_${f%%=*}.json'));print('$f', '$d', round(d['sustained_fps'],1), 'fps', d['bottleneck'], [(s['name'], round(s['ms_per_frame'],2)) for s in d['stages']])"
    done
  done
  exit 0
fi
# usage: scripts/gpu_check.sh [quick|noanchors|pipeline]
echo "== benchmark"
$build/vfilter_gpu_bench --json "$out/gpu_bench.json" 2>&1 | tee "$out/gpu_bench.txt"
echo "== cuDNN, timed like the benchmark"
PYTHONUNBUFFERED=1 timeout 300 python3 bench/cudnn_anchor.py 2>&1 | tee "$out/cudnn_anchor.txt"
if [ -f .device/anchors.py ] && [ "${1:-}" != noanchors ]; then
  echo "== anchors"
  PYTHONUNBUFFERED=1 timeout 400 python3 .device/anchors.py >"$out/anchors.txt" 2>&1
  grep -E "1080p f32 (3x3|5x5|13x13|27x27|63x63)|4K f32|2048sq|1D|copy" "$out/anchors.txt" | grep -E "fp32|fp16|copy|FFT" | head -40
fi
