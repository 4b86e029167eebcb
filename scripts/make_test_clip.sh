#!/usr/bin/env bash
# Makes a benchmark/test clip with real motion and noise: FFmpeg's testsrc2 pattern (moving
# objects, gradients, text) with temporal noise, H.264 (libx264 veryfast, crf 18) + AAC sine.
#   scripts/make_test_clip.sh OUT.mp4 [WIDTHxHEIGHT] [SECONDS] [FPS]
# PROFILE=camera makes a clip like a camera's instead: light noise, H.264 main profile at 4 Mb/s
# CBR, no B-frames, a keyframe every 2 s (NVDEC decodes it about three times as fast as the noisy
# clip: benchmarks say which they use).
set -euo pipefail
out=${1:?usage: $0 OUT.mp4 [WIDTHxHEIGHT] [SECONDS] [FPS]}
size=${2:-1920x1080}
seconds=${3:-10}
fps=${4:-30}
ffmpeg_bin=${FFMPEG:-ffmpeg}
if [ "${PROFILE:-noisy}" = camera ]; then
  "$ffmpeg_bin" -hide_banner -loglevel error -y \
    -f lavfi -i "testsrc2=size=${size}:rate=${fps}:duration=${seconds},noise=alls=3:allf=t+u" \
    -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=${seconds}" \
    -c:v libx264 -preset veryfast -profile:v main -bf 0 -g $((fps * 2)) -b:v 4M -minrate 4M -maxrate 4M -bufsize 4M \
    -x264-params nal-hrd=cbr -pix_fmt yuv420p -c:a aac -b:a 128k -shortest "$out"
  echo "$out"
  exit 0
fi
"$ffmpeg_bin" -hide_banner -loglevel error -y \
  -f lavfi -i "testsrc2=size=${size}:rate=${fps}:duration=${seconds},noise=alls=12:allf=t+u" \
  -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=${seconds}" \
  -c:v libx264 -preset veryfast -crf 18 -pix_fmt yuv420p -g $((fps * 2)) \
  -c:a aac -b:a 128k -shortest "$out"
echo "$out"
