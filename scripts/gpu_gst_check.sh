#!/usr/bin/env bash
# The GStreamer element on a GPU machine (docs/gstreamer.md, docs/gpu-machine.md): carry
# .gst-runtime (scripts/build_gst_runtime.sh) and the static FFmpeg (lib, include, bin), then
#   scripts/gpu_gst_check.sh
# builds what the element needs with the carried GStreamer, runs the element's tests (its GPU ones
# and, with the GPU present, its CPU-side ones), cudaupload ! vfilter ! cudadownload against the
# CPU element (bytes compared), a live source into a synced sink (the latency the frames in flight
# add, and every buffer rendered on time), and times the element on CUDA memory, on system memory
# (GPU in the element's pinned pool and in pageable buffers, CPU) and the vfilter command on the
# same frames (raw 1080p and 4K clips, so decoding costs nothing), with the element's system-memory
# speed as a share of the command's. Results under $OUT (or gpu-out/).
set -uo pipefail
out=${OUT:-gpu-out}; raw=/tmp/vf-gst; mkdir -p "$out" $raw
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
. .gst-runtime/env.sh
{ date -u; nvidia-smi --query-gpu=index,name,driver_version --format=csv; nproc; } >"$out/machine_gst.txt" 2>&1
TARGETS="vfilter gstvfilter vfilter_gst_tests vfilter_gst_cuda_tests vfilter_gst_bench" \
  STATIC_FFMPEG=${STATIC_FFMPEG:-.static-ffmpeg} scripts/gpu_engine_check.sh build >"$out/build.txt" 2>&1 || { cat "$out/build.txt"; exit 1; }
b=$PWD/build-device
el built
unset GST_PLUGIN_PATH
"$b/vfilter_gst_cuda_tests" >"$out/gst_cuda_tests.txt" 2>&1; tail -3 "$out/gst_cuda_tests.txt"
grep -E "Failure|Which is|FAILED" "$out/gst_cuda_tests.txt" | head -20
PATH=$PWD/${STATIC_FFMPEG:-.static-ffmpeg}/bin:$PATH timeout 500 "$b/vfilter_gst_tests" --gtest_brief=1 >"$out/gst_tests.txt" 2>&1
echo "element tests (GPU present): exit $? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' "$out/gst_tests.txt" | tr '\n' ' ')"
grep -E "Failure|Which is" "$out/gst_tests.txt" | head -20
# From here gst-launch finds the built plugin. (Not for the test programs above: they register the
# element in their own process, which fails where the plugin is loaded first, and their GPU tests
# then skip.)
export GST_PLUGIN_PATH=$b/gst
gst-inspect-1.0 vfilter >"$out/inspect.txt" 2>&1
grep -q "memory:CUDAMemory" "$out/inspect.txt" && echo "CUDA memory caps offered" || echo "no CUDA memory caps (see inspect.txt)"
# A live source at 25 fps into a synced sink that drops what is 20 ms late: with the latency of the
# frames in flight reported, every buffer is rendered; the latency the sink configured is logged.
for device in cuda cpu; do
  GST_DEBUG=basesink:5 gst-launch-1.0 -v videotestsrc is-live=true num-buffers=100 ! video/x-raw,format=I420,width=1920,height=1080,framerate=25/1 \
    ! vfilter device=$device filter=sobel ! fakesink sync=true silent=false max-lateness=20000000 >"$out/live_$device.txt" 2>&1
  echo "live source, vfilter device=$device: $(grep -c 'chain   \*' "$out/live_$device.txt") of 100 buffers rendered;" \
    "$(grep -o 'latency set to [0-9:.]*' "$out/live_$device.txt" | tail -1)"
done
# nvcodec's own upload and download around the element, against the CPU element.
for size in 1920x1080 333x197; do
  w=${size%x*}; h=${size#*x}
  src="videotestsrc num-buffers=30 pattern=snow ! video/x-raw,format=NV12,width=$w,height=$h"
  GST_DEBUG=vfilter:4 gst-launch-1.0 -q $src ! cudaupload ! vfilter filter=sobel ! cudadownload ! filesink location=$raw/gpu.nv12 \
    >"$out/cudaupload_$size.txt" 2>&1
  gst-launch-1.0 -q $src ! vfilter device=cpu filter=sobel ! filesink location=$raw/cpu.nv12 >>"$out/cudaupload_$size.txt" 2>&1
  if cmp -s $raw/gpu.nv12 $raw/cpu.nv12 && [ -s $raw/cpu.nv12 ]; then echo "cudaupload ! vfilter ! cudadownload $size: equal to the CPU element"
  else echo "cudaupload ! vfilter ! cudadownload $size: DIFFERENT or empty ($(stat -c %s $raw/gpu.nv12 $raw/cpu.nv12 2>/dev/null | tr '\n' ' '))"; fi
  grep -i "primary\|host memory\|warn" "$out/cudaupload_$size.txt" | head -3
done
# NVDEC's frames (CUDA memory) straight into the element, against the same decoded frames
# downloaded and filtered by the CPU element.
"${STATIC_FFMPEG:-.static-ffmpeg}/bin/ffmpeg" -v error -y -f lavfi -i testsrc2=size=1280x720:rate=30 -frames:v 60 -c:v libx264 \
  -pix_fmt yuv420p -f h264 $raw/clip.h264
dec="filesrc location=$raw/clip.h264 ! h264parse ! nvh264dec"
GST_DEBUG=vfilter:4 gst-launch-1.0 -q $dec ! vfilter filter=sobel ! cudadownload ! filesink location=$raw/nvdec_gpu.raw >"$out/nvdec.txt" 2>&1
gst-launch-1.0 -q $dec ! cudadownload ! vfilter device=cpu filter=sobel ! filesink location=$raw/nvdec_cpu.raw >>"$out/nvdec.txt" 2>&1
if cmp -s $raw/nvdec_gpu.raw $raw/nvdec_cpu.raw && [ -s $raw/nvdec_cpu.raw ]; then echo "nvh264dec ! vfilter ! cudadownload: equal to the CPU element"
else echo "nvh264dec ! vfilter ! cudadownload: DIFFERENT or empty ($(stat -c %s $raw/nvdec_gpu.raw $raw/nvdec_cpu.raw 2>/dev/null | tr '\n' ' '))"; fi
grep -i "primary\|host memory\|error" "$out/nvdec.txt" | head -3
el compared
for filter in sobel "gaussian=sigma=3"; do "$b/vfilter_gst_bench" 600 "$filter"; done >"$out/gst_bench.csv" 2>"$out/gst_bench.err"
cat "$out/gst_bench.csv"
# The command line on the same frames: raw video in NUT, filtered to null on the GPU.
ffmpeg=${STATIC_FFMPEG:-.static-ffmpeg}/bin/ffmpeg
for size in 1920x1080 3840x2160; do
  n=600; [ $size = 3840x2160 ] && n=300
  "$ffmpeg" -v error -y -f lavfi -i testsrc2=size=$size:rate=30 -frames:v $n -pix_fmt yuv420p -c:v rawvideo $raw/clip_$size.nut
  for filter in sobel "gaussian=sigma=3"; do
    "$b/vfilter" -y -i $raw/clip_$size.nut -f "$filter" -o null --device cuda --no-progress --stats-json $raw/s.json >/dev/null 2>&1
    python3 -c "import json; s=json.load(open('$raw/s.json')); print('cli,$filter,$size,' + str(round(s.get('sustained_fps', 0), 1)) + ',' + s.get('bottleneck', ''))"
  done
done | tee "$out/cli_bench.csv"
# The element on system memory (its pinned pool; pageable buffers) as a share of the command line.
python3 - "$out/gst_bench.csv" "$out/cli_bench.csv" <<'PY' | tee "$out/gst_vs_cli.csv"
import csv, sys
cli = {(r[1], r[2]): float(r[3]) for r in csv.reader(open(sys.argv[2])) if r and r[0] == 'cli'}
print('filter,size,mode,fps,cli_fps,share')
for r in csv.DictReader(open(sys.argv[1])):
    if r['filter'] == 'filter' or not r['mode'].startswith('system-memory-gpu'):
        continue
    c = cli.get((r['filter'], r['size']), 0)
    print(f"{r['filter']},{r['size']},{r['mode']},{r['fps']},{c},{float(r['fps']) / c:.2f}" if c else f"{r['filter']},{r['size']},{r['mode']},{r['fps']},,")
PY
el done
