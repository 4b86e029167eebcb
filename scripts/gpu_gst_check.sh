#!/usr/bin/env bash
# The GStreamer element on a GPU machine (docs/gstreamer.md, docs/gpu-machine.md): carry
# .gst-runtime (scripts/build_gst_runtime.sh) and the static FFmpeg (lib, include, bin), then
#   scripts/gpu_gst_check.sh
# builds everything with the carried GStreamer, runs the element's GPU tests, cudaupload ! vfilter
# ! cudadownload against the CPU element (bytes compared), and times the element on CUDA memory,
# on system memory (GPU and CPU) and the vfilter command on the same frames (raw 1080p and 4K
# clips, so decoding costs nothing). Results under $OUT (or gpu-out/).
set -uo pipefail
out=${OUT:-gpu-out}; raw=/tmp/vf-gst; mkdir -p "$out" $raw
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
. .gst-runtime/env.sh
{ date -u; nvidia-smi --query-gpu=index,name,driver_version --format=csv; nproc; } >"$out/machine_gst.txt" 2>&1
STATIC_FFMPEG=${STATIC_FFMPEG:-.static-ffmpeg} scripts/gpu_engine_check.sh build >"$out/build.txt" 2>&1 || { cat "$out/build.txt"; exit 1; }
b=$PWD/build-device
el built
export GST_PLUGIN_PATH=$b/gst
gst-inspect-1.0 vfilter >"$out/inspect.txt" 2>&1
grep -q "memory:CUDAMemory" "$out/inspect.txt" && echo "CUDA memory caps offered" || echo "no CUDA memory caps (see inspect.txt)"
"$b/vfilter_gst_cuda_tests" >"$out/gst_cuda_tests.txt" 2>&1; tail -3 "$out/gst_cuda_tests.txt"
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
el done
