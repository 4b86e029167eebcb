#!/usr/bin/env bash
# Camera-like streams through `vfilter serve` on the GPU machine (docs/benchmarks.md, "Decoders
# on NVDEC and the CPU"): builds vfilter against the carried static FFmpeg (as
# scripts/gpu_serve_bench.sh), makes a clip like a camera's (1080p30 H.264 main profile, 4 Mb/s
# CBR, no B-frames, a key frame every 2 s, 60 s; testsrc2 with moving noise so the bits carry
# picture) and then, with gaussian=sigma=3.2 to null:
#   unpaced   N (NS, default "64 128") streams as fast as they go (the first FRAMES frames of
#             each, default 900): NVDEC only (hwdec: cuda) against decoders placed by load (hwdec:
#             auto, --decoder-placement load), aggregate fps, where the streams decoded, NVDEC, SM
#             and CPU utilisation
#   realtime  1 stream, then RN (default 200) streams at 30 fps (realtime: true), placed by load
#             and NVDEC only: streams that kept 30 fps with nothing dropped, p99 latency
#   gpus      64 streams of the whole clip on GPU 0 against --gpus all (a machine of two GPUs), for
#             each --nvdec-decoder of GDECODERS (default ffmpeg) and serve options GPU_ARGS, hwdec GHWDEC
#             (default auto; with --nvdec-share on, auto lets streams start on the CPU while their
#             shared decoder is made, cuda makes them wait) (GPUS_QUICK=1 stops there);
#             then start-up: 128 streams of 30 frames on GPU 0 against --gpus all; then the 64
#             streams second by second (scripts/serve_ramp.py) with --gpus all and 0
#   defaults  RN (default 200) cameras at 30 fps (realtime: true) with serve's defaults (no option
#             beyond the config file): the steady window twice once every stream's first 10 s are
#             behind it (28 s in: NVDEC's decoders are made one at a time), then the moves serve
#             made and the NVDEC capacity it measured (from its log); WATCHES="on off" runs it
#             with the cameras' watch on, then off (its cost); SERVE_KEYS adds serve: keys to both
#             (e.g. "nvdec-capacity: 140", so that both place the cameras alike)
#   steady    the steady state, measured over 12 s once every stream runs (scripts/serve_window.py):
#             (unpaced on the clip twice over, 120 s, so that no stream ends inside the window)
#             128 streams unpaced NVDEC only, then placed by load with each --nvdec-slots of SLOTS
#             (default "0 32"), for each --nvdec-decoder of DECODERS (default ffmpeg); one stream
#             at 30 fps (realtime: true), then each count of RN (default 200) placed by load, for
#             each of RDECODERS (default ffmpeg): fps, CPU, NVDEC, p99 latency and its parts, per
#             decoder, cores by thread name (ONE=0 leaves the one stream out; ONE_CPU=1 adds one
#             stream decoded on the CPU, the anchor of the CPU-decoded streams)
#   moves     MN (default 150) cameras at 30 fps placed by load through vfilter's NVDEC decoder,
#             the steady window; then MLEAVE (default 60) of the NVDEC streams are removed and,
#             the window again once serve's moves are done: fps, CPU, p99 per decoder, and what each
#             move cost its stream (the log's "first frame came X ms after the key frame")
#   startup   128 streams of 30 frames each, --nvdec-slots 0 and 32: wall time and CPU cores
#   share     vfilter's NVDEC decoder with and without --nvdec-share (decoders shared by streams of
#             one size), on --gpus SHARE_GPUS (default 0; "all" on a machine of two GPUs): 128 streams
#             of 30 frames each, twice each, alternating (wall time); then the 64 whole streams second
#             by second with --nvdec-share on (how many shared decoders were made, and when)
#   turns     --nvdec-share on, on --gpus SHARE_GPUS (default 0): 128 cameras at 30 fps (300 frames
#             each) with hwdec cuda (they wait for their shared decoder) and auto (cameras wait all
#             the same since f760088), second by second from serve's start (serve_ramp.py, every
#             0.25 s: when the last camera had frames), frames dropped and p99; then 64 whole files
#             with hwdec cuda against auto (files whose decoder is not made yet start on the CPU)
#   capacity  NVDEC's capacity as serve measures it from NVML (no --nvdec-capacity): CN (default
#             "32 128") cameras at 30 fps on NVDEC (hwdec cuda), then CF (default 64) files as
#             fast as they go (NVDEC full); every 2 s what GET /streams says of GPU 0's capacity,
#             the streams' fps summed, and nvidia-smi's NVDEC utilisation over the run
#   tests     the GPU end-to-end tests of serve and NVDEC (TESTS, default GpuServe.*:GpuDecode.*)
#   live      the live tests that need no GStreamer or nginx, NVDEC's with both decoders among them
#             (LIVE_TESTS, default Live.FrameCut*:Live.StreamChanging*): a cut TCP camera, a
#             change of size over UDP; needs the container profile's static FFmpeg (network):
#             STATIC_FFMPEG=.static-ffmpeg-net
#   all       tests, unpaced, realtime
# EXTRA=", field: value" adds fields to every stream's entry, SERVE_ARGS options to steady's
# realtime serve runs (--nvdec-capacity 150, say: keys of the serve: block as flags,
# scripts/serve_with_settings.sh); STATIC_FFMPEG the static FFmpeg's
# folder (default .static-ffmpeg). Output to the terminal; scratch under /tmp/vf-cam (the clip is
# kept between calls).
set -u
# serve with the serve: block's settings given as flags (scripts/serve_with_settings.sh).
vs=$(dirname "$0")/serve_with_settings.sh
mode=${1:-all}
case $mode in defaults|unpaced|realtime|steady|moves|startup|share|turns|capacity|gpus|tests|live|all) ;; *) echo "usage: $0 [defaults|unpaced|realtime|steady|moves|startup|share|turns|capacity|gpus|tests|live|all]"; exit 2 ;; esac
raw=/tmp/vf-cam/raw; clips=/tmp/vf-cam/clips; mkdir -p $raw $clips
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
. scripts/use_static_ffmpeg.sh "${STATIC_FFMPEG:-.static-ffmpeg}" || exit 1
b=$PWD/build-device
cmake -S . -B $b -DCMAKE_BUILD_TYPE=Release -DVF_FFMPEG_STATIC=ON -DVF_WERROR=ON >$raw/build.log 2>&1 &&
  cmake --build $b -j "$(nproc)" --target vfilter vfilter_gpu_e2e_tests $([ $mode = live ] && echo vfilter_live_tests) >>$raw/build.log 2>&1 ||
  { grep -E "error" -A3 $raw/build.log | head -40; exit 1; }
el "built; $(nproc) cores, $(nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c | tr -s ' ')"
if [ $mode = all ] || [ $mode = tests ]; then
  timeout ${E2E_TIMEOUT:-300} $b/vfilter_gpu_e2e_tests --gtest_brief=1 --gtest_filter="${TESTS:-GpuServe.*:GpuDecode.*}" >$raw/e2e.txt 2>&1
  el "${TESTS:-GpuServe.*:GpuDecode.*} exit $?: $(grep -E '^\[  (PASSED|FAILED)' $raw/e2e.txt | tr '\n' ' ')"; grep -B2 -A8 "Failure" $raw/e2e.txt | head -40
fi
[ $mode = tests ] && exit 0
if [ $mode = live ]; then
  timeout 400 $b/vfilter_live_tests --gtest_brief=1 --gtest_filter="${LIVE_TESTS:-Live.FrameCut*:Live.StreamChanging*}" >$raw/live.txt 2>&1
  el "${LIVE_TESTS:-Live.FrameCut*:Live.StreamChanging*} exit $?: $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' $raw/live.txt | tr '\n' ' ')"
  grep -B2 -A12 "Failure" $raw/live.txt | head -80
  exit 0
fi
clip=$clips/cam.mp4
if [ ! -f $clip ]; then
  ffmpeg -v error -f lavfi -i "testsrc2=size=1920x1080:rate=30" -vf "noise=alls=10:allf=t" -t 60 -an -pix_fmt yuv420p \
    -c:v libx264 -preset veryfast -profile:v main -bf 0 -g 60 -keyint_min 60 -sc_threshold 0 \
    -b:v 4M -minrate 4M -maxrate 4M -bufsize 4M -x264-params nal-hrd=cbr -movflags +faststart $clip.tmp.mp4 && mv $clip.tmp.mp4 $clip
fi
el "clip: $(ffprobe -v error -show_entries format=bit_rate,duration -show_entries stream=profile,has_b_frames,nb_frames -of compact=p=0:nk=0 $clip | tr '\n' ' ')"
for k in $(seq 256); do [ -e $clips/c$k.mp4 ] || ln $clip $clips/c$k.mp4; done  # one name per stream, one page cache
if [ $mode = defaults ]; then
  n=${RN:-200}
  # WATCHES="on off": the same run with the cameras' watch (docs/serve.md) on, then off (its cost).
  for watch in ${WATCHES:-on}; do
    { echo "defaults: {filter: 'gaussian=sigma=3.2', output: 'null', realtime: true}"; echo "streams:"
      for k in $(seq $n); do echo "  - {name: cam$k, input: $clips/c$k.mp4}"; done
      echo "serve: {watch: $([ $watch = off ] && echo false || echo true)${SERVE_KEYS:+, $SERVE_KEYS}}"; } >$raw/defaults.yaml
    $b/vfilter serve --config $raw/defaults.yaml --api-port 18299 >$raw/defaults.log 2>&1 & pid=$!
    sleep 28
    for w in 1 2; do echo "$n cameras, serve's defaults, watch $watch, window $w: $(timeout 60 python3 scripts/serve_window.py $pid 18299 12 2>&1)"; done
    if [ $watch = on ]; then  # what the watch saw: pictures measured, events by kind
      curl -s http://127.0.0.1:18299/streams | python3 -c 'import json,sys; d=json.load(sys.stdin); w=[s.get("watch",{}) for s in d]; print("watched:", sum(1 for x in w if x), "pictures measured:", sum(x.get("measured",0) for x in w), "one:", json.dumps(w[0])[:300])'
      curl -s "http://127.0.0.1:18299/events?limit=1000" | python3 -c 'import json,sys,collections; e=json.load(sys.stdin)["events"]; print("events:", dict(collections.Counter((x["kind"], x["change"]) for x in e)))'
    fi
    kill -INT $pid; ( sleep 15; kill -9 $pid 2>/dev/null ) & killer=$!; wait $pid; kill $killer 2>/dev/null
    echo "moves: $(grep -c 'moves to' $raw/defaults.log); $(grep 'NVDEC capacity' $raw/defaults.log | sed 's/.*info: //' | tr '\n' ' ')"
  done
  exit 0
fi
now() { date +%s.%N; }
calc() { awk "BEGIN{printf \"%.1f\", $1}"; }
config() {  # file N hwdec extra [clip prefix: c, the 60 s clip; l, the 120 s one]
  { echo "defaults: {filter: 'gaussian=sigma=3.2', output: 'null', device: cuda, hwdec: $3 $4 ${EXTRA:-}}"; echo "streams:"
    for k in $(seq $2); do echo "  - {name: cam$k, input: $clips/${5:-c}$k.mp4}"; done; } >$1
}
# NVDEC and SM utilisation sampled every 500 ms, CPU from /proc/stat: "dec% sm% cpu%" over a run.
util_start() { nvidia-smi --query-gpu=utilization.decoder,utilization.gpu --format=csv,noheader,nounits -lms 500 >$raw/util.txt 2>/dev/null & upid=$!; cpu0=$(head -1 /proc/stat); }
util_end() {
  kill $upid 2>/dev/null; wait $upid 2>/dev/null
  local cpu1; cpu1=$(head -1 /proc/stat)
  local cpu; cpu=$(python3 -c "a='$cpu0'.split()[1:];b='$cpu1'.split()[1:];d=[int(y)-int(x) for x,y in zip(a,b)];print('%.0f' % (100*(1-(d[3]+d[4])/sum(d))))")
  awk -F', ' -v cpu=$cpu '{if ($1+0>0 || $2+0>0) {d+=$1; s+=$2; n++}} END{if (n) printf "NVDEC %.0f%% SM %.0f%% CPU %s%%", d/n, s/n, cpu; else printf "CPU %s%%", cpu}' $raw/util.txt
}
decoders() { python3 -c "import json,collections;d=json.load(open('$1'));c=collections.Counter((v.get('stats') or {}).get('hw_decode') for v in d.values());print('NVDEC %d, CPU %d, failed %d' % (c['cuda'], c['none'], c[None]))"; }
run() {  # name yaml extra-args -> sets rate (aggregate fps over the wall clock)
  local s e; util_start; s=$(now); $vs $b/vfilter $2 -q --stats-json $raw/$1.json $3; e=$(now); u=$(util_end)
  frames=$(python3 -c "import json;d=json.load(open('$raw/$1.json'));print(sum(v['frames_out'] for v in d.values()))")
  rate=$(calc "$frames/($e-$s)"); wall=$(calc "$e-$s")
}
F=${FRAMES:-900}
if [ $mode = all ] || [ $mode = unpaced ]; then
  for N in ${NS:-64 128}; do
    config $raw/nv$N.yaml $N cuda ", frames: $F"; config $raw/hy$N.yaml $N auto ", frames: $F"
    run nv$N $raw/nv$N.yaml ""; nv=$rate; echo "N=$N NVDEC only: $nv fps ($frames frames, $wall s; $u; $(decoders $raw/nv$N.json))"
    run hy$N $raw/hy$N.yaml "--decoder-placement load"; hy=$rate; echo "N=$N placed by load: $hy fps ($frames frames, $wall s; $u; $(decoders $raw/hy$N.json)) -> $(calc "$hy/$nv")x NVDEC only"
  done
  el "unpaced done"
fi
if [ $mode = all ] || [ $mode = realtime ]; then
  RF=${RFRAMES:-900}
  summary() { python3 - "$raw/$1.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); v = list(d.values())
kept = [s for s in v if s['frames_dropped'] == 0 and s['stats']['average_fps'] >= 29.5]
p99 = sorted(s['stats']['latency_ms']['p99'] for s in v)
fps = sorted(s['stats']['average_fps'] for s in v)
dec = sum(1 for s in v if s['stats']['hw_decode'] == 'cuda')
print('%d streams: %d kept 30 fps with nothing dropped; fps min %.1f median %.1f; dropped %d; p99 latency ms median %.1f max %.1f; NVDEC %d, CPU %d'
      % (len(v), len(kept), fps[0], fps[len(fps) // 2], sum(s['frames_dropped'] for s in v), p99[len(p99) // 2], p99[-1], dec, len(v) - dec))
PY
  }
  config $raw/rt1.yaml 1 auto ", realtime: true, frames: $RF"
  run rt1 $raw/rt1.yaml ""; echo "realtime 1 stream: $(summary rt1)"
  RN=${RN:-200}
  config $raw/rthy.yaml $RN auto ", realtime: true, frames: $RF"
  run rthy $raw/rthy.yaml "--decoder-placement load"; echo "realtime placed by load: $(summary rthy); $u"
  config $raw/rtnv.yaml $RN cuda ", realtime: true, frames: $RF"
  run rtnv $raw/rtnv.yaml ""; echo "realtime NVDEC only: $(summary rtnv); $u"
  el "realtime done"
fi
if [ $mode = gpus ]; then
  for d in ${GDECODERS:-ffmpeg}; do  # --nvdec-decoder
    config $raw/g64.yaml 64 ${GHWDEC:-auto} ", nvdec-decoder: $d"
    run g1 $raw/g64.yaml "--gpus 0 ${GPU_ARGS:-}"; one=$rate; echo "64 streams, 1800 frames each, nvdec-decoder $d ${GPU_ARGS:-}, GPU 0: $one fps ($wall s; $u; $(decoders $raw/g1.json))"
    run g2 $raw/g64.yaml "--gpus all ${GPU_ARGS:-}"; two=$rate; echo "64 streams, nvdec-decoder $d ${GPU_ARGS:-}, --gpus all: $two fps ($wall s; $u; $(decoders $raw/g2.json)) -> $(calc "$two/$one")x"
  done
  [ "${GPUS_QUICK:-0}" != 0 ] && exit 0
  config $raw/g64.yaml 64 auto ""
  config $raw/gst.yaml 128 cuda ", frames: 30"  # start-up: the driver creates one GPU's NVDEC decoders one at a time
  run gs1 $raw/gst.yaml "--gpus 0"; echo "start-up, 128 streams of 30 frames, GPU 0: $wall s"
  run gs2 $raw/gst.yaml "--gpus all"; echo "start-up, 128 streams of 30 frames, --gpus all: $wall s"
  for g in all 0; do  # the same 64 streams second by second: start-up, steady state, tail
    echo "64 streams, --gpus $g, second by second:"
    $vs $b/vfilter $raw/g64.yaml -q --api-port 18390 --gpus $g & pid=$!
    python3 scripts/serve_ramp.py 18390 1800 60; kill -INT $pid; ( sleep 15; kill -9 $pid 2>/dev/null ) & k=$!; wait $pid; kill $k
  done
  el "gpus done"
fi
cpu_now() { head -1 /proc/stat; }
cores_between() { python3 -c "import os;a='$1'.split()[1:];b='$2'.split()[1:];d=[int(y)-int(x) for x,y in zip(a,b)];print('%.1f' % (os.cpu_count()*(1-(d[3]+d[4])/sum(d))))"; }
if [ $mode = startup ]; then
  config $raw/st.yaml 128 cuda ", frames: 30"
  for g in 0 32; do
    c0=$(cpu_now); s=$(now); $vs $b/vfilter $raw/st.yaml -q --nvdec-slots $g; e=$(now); c1=$(cpu_now)
    echo "128 streams of 30 frames, --nvdec-slots $g: $(calc "$e-$s") s, $(cores_between "$c0" "$c1") cores busy"
  done
  el "startup done"
fi
if [ $mode = share ]; then
  g=${SHARE_GPUS:-0}
  config $raw/sh.yaml 128 cuda ", frames: 30, nvdec-decoder: vfilter"
  for args in "" "--nvdec-share on" "" "--nvdec-share on"; do
    s=$(now); timeout 60 $vs $b/vfilter $raw/sh.yaml -q --gpus $g $args; e=$(now)
    echo "128 streams of 30 frames, --gpus $g, vfilter's decoder ${args:-(a decoder each)}: $(calc "$e-$s") s"
  done
  config $raw/sh64.yaml 64 auto ", nvdec-decoder: vfilter"
  echo "64 streams, --gpus $g --nvdec-share on, second by second:"
  $vs $b/vfilter $raw/sh64.yaml -q --api-port 18395 --gpus $g --nvdec-share on & pid=$!
  timeout 70 python3 scripts/serve_ramp.py 18395 1800 60; kill -INT $pid; ( sleep 15; kill -9 $pid 2>/dev/null ) & k=$!; wait $pid; kill $k
  el "share done"
fi
if [ $mode = turns ]; then
  g=${SHARE_GPUS:-0}
  for hw in cuda auto; do
    config $raw/tc.yaml 128 $hw ", nvdec-decoder: vfilter, realtime: true, frames: 300"
    echo "128 cameras at 30 fps, --gpus $g --nvdec-share on, hwdec $hw, every 0.25 s:"
    $vs $b/vfilter $raw/tc.yaml -q --api-port 18396 --gpus $g --nvdec-share on --stats-json $raw/tc-$hw.json & pid=$!
    timeout 25 python3 scripts/serve_ramp.py 18396 300 20 0.25 | awk 'NR<=24 || /last frame/'
    kill -INT $pid; ( sleep 8; kill -9 $pid 2>/dev/null ) & k=$!; wait $pid; kill $k 2>/dev/null
    python3 - $raw/tc-$hw.json <<'PY'
import json, sys
v = [x['stats'] for x in json.load(open(sys.argv[1])).values() if x.get('stats')]
p99 = sorted(s['latency_ms']['p99'] for s in v)
print('%d cameras: %d frames out, %d dropped (in %d cameras), p99 median %.1f ms, worst %.1f; ended on NVDEC %d' % (len(v), sum(s['frames_out'] for s in v),
      sum(s['frames_dropped'] for s in v), sum(1 for s in v if s['frames_dropped']), p99[len(p99) // 2], p99[-1], sum(1 for s in v if s['hw_decode'] == 'cuda')))
PY
  done
  for hw in cuda auto; do
    config $raw/tf.yaml 64 $hw ", nvdec-decoder: vfilter"
    run tf-$hw $raw/tf.yaml "--gpus $g --nvdec-share on"; echo "64 files, --gpus $g --nvdec-share on, hwdec $hw: $rate fps ($wall s; $u; $(decoders $raw/tf-$hw.json))"
  done
  el "turns done"
fi
if [ $mode = capacity ]; then
  watch_capacity() {  # port seconds: GPU 0's NVDEC capacity every 2 s, as GET /streams gives it
    python3 - "$@" <<'PY'
import json, sys, time, urllib.request
port, seconds = sys.argv[1], float(sys.argv[2])
start = time.time()
while time.time() - start < seconds:
    time.sleep(2)
    try:
        fleet = json.load(urllib.request.urlopen(f'http://127.0.0.1:{port}/streams?scope=fleet', timeout=10))
    except Exception as e:
        print('  %4.0f s: %s' % (time.time() - start, e)); continue
    streams = fleet.get('streams', [])
    left = fleet.get('capacity_left') or (fleet.get('shards') or [{}])[0].get('capacity_left') or {}
    c = (left.get('nvdec_capacity') or {}).get('0', {})
    print('  %4.0f s: %3d streams running, %6.0f fps; capacity %s (%s), NVML busy %s; %s' % (time.time() - start,
          sum(1 for s in streams if s.get('state') == 'running'), sum(s.get('fps', 0) for s in streams),
          c.get('streams'), c.get('from'), c.get('busy'), c.get('how', '')))
    if streams and all(s.get('state') in ('stopped', 'failed') for s in streams): break
PY
  }
  for N in ${CN:-32 128}; do
    config $raw/cap$N.yaml $N cuda ", realtime: true, frames: 900"
    echo "$N cameras at 30 fps on NVDEC (hwdec cuda), no --nvdec-capacity:"
    util_start
    $vs $b/vfilter $raw/cap$N.yaml --api-port 18397 2>$raw/cap$N.log & pid=$!
    watch_capacity 18397 26
    kill -INT $pid; ( sleep 15; kill -9 $pid 2>/dev/null ) & k=$!; wait $pid; kill $k 2>/dev/null
    echo "  nvidia-smi over the run: $(util_end); the log: $(grep -o 'GPU 0: NVDEC capacity[^"]*' $raw/cap$N.log | head -1) ... $(grep -c 'GPU 0: NVDEC capacity' $raw/cap$N.log) lines"
  done
  CF=${CF:-64}
  config $raw/capf.yaml $CF cuda ", frames: 900"
  echo "$CF files as fast as they go on NVDEC:"
  util_start
  $vs $b/vfilter $raw/capf.yaml --api-port 18398 2>$raw/capf.log & pid=$!
  watch_capacity 18398 40
  kill -INT $pid; ( sleep 15; kill -9 $pid 2>/dev/null ) & k=$!; wait $pid; kill $k 2>/dev/null
  echo "  nvidia-smi over the run: $(util_end); the log: $(grep -o 'GPU 0: NVDEC capacity[^"]*' $raw/capf.log | tail -2 | tr '\n' ' ')"
  el "capacity done"
fi
long_clip() {  # the clip twice over (its bitstream copied twice, so the same frames): 120 s
  long=$clips/cam120.mp4
  if [ ! -f $long ]; then
    ffmpeg -v error -y -i $clip -c copy -bsf:v h264_mp4toannexb -f h264 $raw/cam.h264 && cat $raw/cam.h264 $raw/cam.h264 >$raw/cam2.h264 &&
      ffmpeg -v error -y -framerate 30 -i $raw/cam2.h264 -c copy -movflags +faststart $long.tmp.mp4 && mv $long.tmp.mp4 $long
    rm -f $raw/cam.h264 $raw/cam2.h264
  fi
  [ -f $long ] || { echo "could not make the 120 s clip"; exit 1; }
  for k in $(seq 256); do [ -e $clips/l$k.mp4 ] || ln $long $clips/l$k.mp4; done
}
if [ $mode = moves ]; then
  long_clip
  N=${MN:-150}; port=18350
  config $raw/mv.yaml $N auto ", realtime: true, frames: 3600, nvdec-decoder: vfilter" l
  for m in on; do  # moves: serve's own choice, no option
    port=$((port + 1))
    $vs $b/vfilter $raw/mv.yaml --api-port $port --decoder-placement load 2>$raw/mv-$m.log & pid=$!
    sleep 26; echo "$N cameras, before: $(timeout 60 python3 scripts/serve_window.py $pid $port 10 2>&1)"
    python3 - $port ${MLEAVE:-60} <<'PY'
import json, sys, urllib.request
port, leave = sys.argv[1], int(sys.argv[2])
streams = json.load(urllib.request.urlopen(f'http://127.0.0.1:{port}/streams', timeout=30))
nv = [s['name'] for s in streams if s.get('decoding', {}).get('decoder') == 'nvdec'][:leave]
for name in nv: urllib.request.urlopen(urllib.request.Request(f'http://127.0.0.1:{port}/streams/{name}', method='DELETE'), timeout=60).read()
streams = json.load(urllib.request.urlopen(f'http://127.0.0.1:{port}/streams', timeout=30))
moving = sum(1 for s in streams if s.get('decoding', {}).get('moving'))
print('removed %d NVDEC streams; %d streams asked to move' % (len(nv), moving))
PY
    sleep 14; echo "after the moves: $(timeout 60 python3 scripts/serve_window.py $pid $port 12 2>&1)"
    grep -o "first frame came [0-9]* ms" $raw/mv-$m.log | awk '{print $4}' | sort -n |
      awk '{v[NR]=$1} END{if (NR) printf "moves: %d, the new decoder'"'"'s first frame after the key frame: min %d ms, median %d, max %d\n", NR, v[1], v[int((NR+1)/2)], v[NR]}'
    kill -INT $pid; ( sleep 20; kill -9 $pid 2>/dev/null ) & killer=$!; wait $pid; kill $killer 2>/dev/null
  done
  el "moves done"
fi
if [ $mode = steady ]; then
  port=18300
  window() {  # name yaml args wait: serve with its API, the steady window after `wait` s, then stopped
    port=$((port + 1))
    $vs $b/vfilter $2 -q --api-port $port $3 & local pid=$!
    sleep $4; echo "$1: $(timeout 60 python3 scripts/serve_window.py $pid $port 12 2>&1)"
    kill -INT $pid; ( sleep 20; kill -9 $pid 2>/dev/null ) & local killer=$!
    wait $pid; kill $killer 2>/dev/null
  }
  # Unpaced, an NVDEC stream runs 1800 frames in about 30 s, inside the window: the 120 s clip
  # keeps every stream running through it.
  long_clip
  for d in ${DECODERS:-ffmpeg}; do  # --nvdec-decoder: what drives NVDEC
    config $raw/sn.yaml 128 cuda ", frames: 3600, nvdec-decoder: $d" l; config $raw/sa.yaml 128 auto ", frames: 3600, nvdec-decoder: $d" l
    window "128 streams unpaced, NVDEC only, nvdec-decoder $d" $raw/sn.yaml "" 20
    for g in ${SLOTS:-0 32}; do window "128 streams unpaced, placed by load, --nvdec-slots $g, nvdec-decoder $d" $raw/sa.yaml "--decoder-placement load --nvdec-slots $g" 20; done
  done
  for d in ${RDECODERS:-ffmpeg}; do
    if [ "${ONE:-1}" != 0 ]; then
      config $raw/s1.yaml 1 auto ", realtime: true, frames: 900, nvdec-decoder: $d"
      window "1 stream at 30 fps, nvdec-decoder $d" $raw/s1.yaml "--decoder-placement load ${SERVE_ARGS:-}" 8
    fi
    if [ "${ONE_CPU:-0}" != 0 ]; then  # the anchor of the CPU-decoded streams
      config $raw/s1c.yaml 1 none ", realtime: true, frames: 900"
      window "1 stream at 30 fps, decoded on the CPU" $raw/s1c.yaml "${SERVE_ARGS:-}" 8
    fi
    for n in ${RN:-200}; do
      config $raw/sr.yaml $n auto ", realtime: true, frames: 1200, nvdec-decoder: $d"
      window "$n streams at 30 fps placed by load, nvdec-decoder $d ${SERVE_ARGS:-}" $raw/sr.yaml "--decoder-placement load ${SERVE_ARGS:-}" 26
    done
  done
  el "steady done"
fi
