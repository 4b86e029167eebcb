#!/usr/bin/env bash
# `vfilter serve` measured on the GPU machine (docs/benchmarks.md, "Many streams in one process"):
# builds vfilter against the carried static FFmpeg (as scripts/gpu_pipeline_check.sh), then
#   decode   N streams of a 1080p30 noisy H.264 clip (each its own copy) with gaussian=sigma=3.2 to
#            null on NVDEC: one serve process (every frame launches alone), N separate vfilter processes, and N
#            `ffmpeg -hwaccel cuda` decode-only processes; peak GPU memory of each (nvidia-smi every
#            100 ms), and the mean frames a launch; NS="8 16 32" picks the counts
#   latency  --realtime --low-latency, 600 frames: p99 read-to-written of 1 stream against 16
#   encode   8 streams to libx264 veryfast: serve, 8 vfilter processes (twice, alternating),
#            8 `ffmpeg -vf gblur=sigma=3.2` processes
#   tests    the GPU end-to-end tests (GpuServe among them) and the serve tests with the GPU present
#   batch    `vfilter batch` over 16 clips (BFRAMES frames of 1080p30 each, default 300) with 1, 2 and
#            4 shards side by side on the one GPU (as Kubernetes pods sharing it by time-slicing
#            would), libx264 veryfast; the anchor: the same clips through `ffmpeg -vf gblur`, as many
#            at once as there are shards
#   all      everything (about 8 minutes on an H100 with NS="8 16")
# Output to the terminal (redirect it to keep it); scratch files under /tmp/vf-serve.
set -u
# serve with the serve: block's settings given as flags (scripts/serve_with_settings.sh).
vs=$(dirname "$0")/serve_with_settings.sh
mode=${1:-all}
case $mode in decode|latency|encode|tests|batch|all) ;; *) echo "usage: $0 [decode|latency|encode|tests|batch|all]"; exit 2 ;; esac
out=${OUT:-gpu-out}; mkdir -p $out /tmp/vf-serve/raw /tmp/vf-serve/clips
raw=/tmp/vf-serve/raw; clips=/tmp/vf-serve/clips
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
. scripts/use_static_ffmpeg.sh .static-ffmpeg || exit 1
b=$PWD/build-device
cmake -S . -B $b -DCMAKE_BUILD_TYPE=Release -DVF_FFMPEG_STATIC=ON -DVF_WERROR=ON >$raw/build.log 2>&1 &&
  cmake --build $b -j "$(nproc)" --target vfilter vfilter_gpu_e2e_tests vfilter_tests >>$raw/build.log 2>&1 || { grep -E "error" -A3 $raw/build.log | head -40; exit 1; }
el built
FF=ffmpeg
now() { date +%s.%N; }
calc() { awk "BEGIN{printf \"%.1f\", $1}"; }
if [ $mode = all ] || [ $mode = tests ]; then
  timeout 240 $b/vfilter_gpu_e2e_tests --gtest_brief=1 >$raw/e2e.txt 2>&1
  el "gpu e2e exit $?: $(grep -E '^\[  (PASSED|FAILED)' $raw/e2e.txt | tr '\n' ' ')"; grep -B2 -A8 "Failure" $raw/e2e.txt | head -30
  (cd $b && timeout 200 ./vfilter_tests --gtest_brief=1 --gtest_filter='Serve*:HttpServer*' >$raw/serve.txt 2>&1)
  el "serve tests (GPU present) exit $?: $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' $raw/serve.txt | tr '\n' ' ')"; grep -B2 -A8 "Failure" $raw/serve.txt | head -30
fi
[ $mode = tests ] && exit 0
FRAMES=${FRAMES:-900}
# Named by their length: a clip left by an earlier call with another FRAMES must not be reused.
clips=$clips/f$FRAMES; mkdir -p $clips
[ -f $clips/c.mp4 ] || FFMPEG=$FF scripts/make_test_clip.sh $clips/c.mp4 1920x1080 $((FRAMES / 30)) 30 >/dev/null
for k in $(seq 32); do [ -f $clips/c$k.mp4 ] || cp $clips/c.mp4 $clips/c$k.mp4; done
el "clips ($FRAMES frames 1080p30)"
mem_base=$(nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits | head -1)
memlog() { nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 100 >$raw/mem_$1.txt 2>/dev/null & echo $!; }
peak() { awk -v b=$mem_base 'BEGIN{m=0} {if ($1+0>m) m=$1+0} END{print m-b}' $raw/mem_$1.txt; }
config() {  # N filter extra-yaml -> $raw/serveN.yaml
  { echo "defaults: {filter: '$2', output: 'null', device: cuda $3}"; echo "streams:"
    for k in $(seq $1); do echo "  - {name: cam$k, input: $clips/c$k.mp4}"; done; } >$raw/serve$1.yaml
}
G="gaussian=sigma=3.2"
echo "GPU memory in use before: $mem_base MiB"
if [ $mode = all ] || [ $mode = decode ]; then
for N in ${NS:-8 16}; do
  s=$(now); for k in $(seq $N); do $FF -v error -hwaccel cuda -i $clips/c$k.mp4 -an -c:v rawvideo -f null - & done; wait; e=$(now)
  dec=$(calc "$N*$FRAMES/($e-$s)")
  config $N "$G" ""
  pid=$(memlog serve$N); s=$(now); $vs $b/vfilter $raw/serve$N.yaml -q --stats-json $raw/serve$N.json; e=$(now); kill $pid
  srv=$(calc "$N*$FRAMES/($e-$s)")
  pid=$(memlog sep$N); s=$(now); for k in $(seq $N); do $b/vfilter -q --device cuda -i $clips/c$k.mp4 -f "$G" -o null --no-progress & done; wait; e=$(now); kill $pid
  sep=$(calc "$N*$FRAMES/($e-$s)")
  echo "N=$N decode+filter ($G, null, NVDEC): serve $srv fps; NVDEC decode-only (ffmpeg -hwaccel cuda) $dec fps -> $(calc "$srv/$dec")x; separate vfilter processes $sep fps -> $(calc "$srv/$sep")x"
  echo "N=$N GPU memory peak: serve $(peak serve$N) MiB, separate processes $(peak sep$N) MiB -> $(awk "BEGIN{printf \"%.3f\", $(peak serve$N)/$(peak sep$N)}")"
  python3 -c "import json;d=json.load(open('$raw/serve$N.json'));print('  per stream fps:', sorted(round(v['stats']['average_fps']) for v in d.values()), 'frames', sum(v['frames_out'] for v in d.values()), 'bottleneck', d['cam1']['stats']['bottleneck'], 'hwdec', d['cam1']['stats']['hw_decode'], 'gpu streams', d['cam1']['stats']['gpu_streams'])"
  for j in serve; do python3 -c "import json;d=json.load(open('$raw/$j$N.json'));k=[v['stats']['stages'] for v in d.values()];print('  $j: frames a launch, mean over streams %.2f; GPU kernels ms a frame (window wait included), mean %.3f' % (sum(v['stats']['gpu_frames_per_launch'] for v in d.values())/len(d), sum(st['ms_per_frame'] for s in k for st in s if st['name']=='kernels')/len(k)))"; done
done
pid=$(memlog one); $b/vfilter -q --device cuda -i $clips/c1.mp4 -f "$G" -o null --no-progress; kill $pid; echo "one process, one stream: $(peak one) MiB"
el "decode+filter done"
fi
# Latency with --realtime --low-latency, steady state (warm-up frames left out): 1 stream against 16.
if [ $mode = all ] || [ $mode = latency ]; then
for N in 1 16; do
  config $N "$G" ", realtime: true, low-latency: true, frames: 600"
  $vs $b/vfilter $raw/serve$N.yaml -q --stats-json $raw/lat$N.json
  python3 -c "import json;d=json.load(open('$raw/lat$N.json'));p=sorted(v['stats']['latency_ms']['p99'] for v in d.values());q=sorted(v['stats']['latency_ms']['p50'] for v in d.values());print('latency N=$N p99 ms: max %.1f median %.1f; p50 median %.1f; dropped %d; frames a launch %.2f' % (p[-1], p[len(p)//2], q[len(q)//2], sum(v['frames_dropped'] for v in d.values()), sum(v['stats']['gpu_frames_per_launch'] for v in d.values())/len(d)))"
done
el "latency done"
fi
if [ $mode = all ] || [ $mode = encode ]; then
  EF=${EFRAMES:-600}
  clips=/tmp/vf-serve/clips/e$EF; mkdir -p $clips
  [ -f $clips/e.mp4 ] || FFMPEG=$FF scripts/make_test_clip.sh $clips/e.mp4 1920x1080 $((EF / 30)) 30 >/dev/null
  for k in $(seq 8); do [ -f $clips/e$k.mp4 ] || cp $clips/e.mp4 $clips/e$k.mp4; done
  { echo "defaults: {filter: '$G', device: cuda, codec: libx264, preset: veryfast, overwrite: true}"; echo "streams:"
    for k in $(seq 8); do echo "  - {name: cam$k, input: $clips/e$k.mp4, output: $raw/s$k.mp4}"; done; } >$raw/enc.yaml
  for rep in 1 2; do
    s=$(now); $vs $b/vfilter $raw/enc.yaml -q --stats-json $raw/enc.json; e=$(now); srv=$(calc "8*$EF/($e-$s)")
    s=$(now); for k in $(seq 8); do $b/vfilter -q --device cuda -i $clips/e$k.mp4 -f "$G" --codec libx264 --preset veryfast -y -o $raw/p$k.mp4 --no-progress & done; wait; e=$(now)
    sep=$(calc "8*$EF/($e-$s)")
    echo "N=8 libx264 veryfast ($G) run $rep: serve $srv fps; 8 vfilter processes $sep fps -> $(calc "$srv/$sep")x"
  done
  s=$(now); for k in $(seq 8); do $FF -v error -y -i $clips/e$k.mp4 -vf gblur=sigma=3.2 -c:v libx264 -preset veryfast -an $raw/f$k.mp4 & done; wait; e=$(now)
  ffg=$(calc "8*$EF/($e-$s)")
  echo "N=8 8 ffmpeg gblur+libx264 processes $ffg fps -> serve/ffmpeg $(calc "$srv/$ffg")x (last serve run)"
  python3 -c "import json;d=json.load(open('$raw/enc.json'));st=d['cam1']['stats'];print('  bottleneck', st['bottleneck'], st['stages'])" | cut -c1-400
  el "encode done"
fi
if [ $mode = all ] || [ $mode = batch ]; then
  BF=${BFRAMES:-300}
  bclips=/tmp/vf-serve/clips/b$BF; mkdir -p $bclips
  [ -f $bclips/b.mp4 ] || FFMPEG=$FF scripts/make_test_clip.sh $bclips/b.mp4 1920x1080 $((BF / 30)) 30 >/dev/null
  : >$bclips/list.txt
  for k in $(seq 16); do [ -f $bclips/b$k.mp4 ] || cp $bclips/b.mp4 $bclips/b$k.mp4; echo "b$k.mp4" >>$bclips/list.txt; done
  one=""
  for S in 1 2 4; do
    rm -rf $raw/batch; mkdir -p $raw/batch
    s=$(now)
    for k in $(seq 0 $((S - 1))); do
      $b/vfilter batch --list $bclips/list.txt --shard $k/$S --out-dir $raw/batch --filter "$G" --device cuda --codec libx264 \
        --preset veryfast -q --no-progress --stats-json $raw/batch-$S-$k.json &
    done
    wait; e=$(now)
    rate=$(calc "16*$BF/($e-$s)"); [ -n "$one" ] || one=$rate
    done_files=$(ls $raw/batch/*.mp4 2>/dev/null | grep -vc incomplete)
    rm -rf $raw/ffb; mkdir -p $raw/ffb
    s=$(now)
    for k in $(seq 16); do echo $k; done | xargs -P $S -I{} $FF -v error -y -i $bclips/b{}.mp4 -vf gblur=sigma=3.2 -c:v libx264 -preset veryfast -an $raw/ffb/b{}.mp4
    e=$(now); ffr=$(calc "16*$BF/($e-$s)")
    echo "batch S=$S shards on one GPU: $rate fps ($done_files/16 outputs), x$(calc "$rate/$one") of 1 shard, efficiency $(calc "100*$rate/($one*$S)")%; ffmpeg gblur+libx264, $S at a time: $ffr fps -> $(calc "$rate/$ffr")x"
  done
  python3 -c "import json;d=json.load(open('$raw/batch-1-0.json'));f=d['files'][0]['stats'];print('  1 shard, first file: bottleneck', f.get('bottleneck'), 'hwdec', f.get('hw_decode'), 'fps', f.get('average_fps'))" 2>&1 | cut -c1-300
  el "batch done"
fi
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
el done
