#!/usr/bin/env python3
# serve_ramp.py PORT FRAMES TIMEOUT [INTERVAL]: a running `vfilter serve` (its API on 127.0.0.1:PORT) from its
# start: every INTERVAL seconds (default 1) until every stream has FRAMES frames out (or TIMEOUT s), the aggregate
# fps, streams with output, streams finished, NVDEC decoders shared (--nvdec-share), streams decoding on the CPU; then the time to the last frame. Shows start-up (NVDEC
# decoders created one at a time), the steady state and the tail. Used by scripts/gpu_camera_bench.sh.
import re, sys, time, urllib.request
port, frames, tmo = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]); step = float(sys.argv[4]) if len(sys.argv) > 4 else 1.0; t0 = time.time(); last = None
while time.time() - t0 < tmo:
    try: t = urllib.request.urlopen(f'http://127.0.0.1:{port}/metrics', timeout=5).read().decode()
    except OSError: time.sleep(0.2); continue
    v = [float(m.group(1)) for m in re.finditer(r'^vfilter_frames_out_total\{[^}]*\} (\S+)', t, re.M)]
    now = time.time(); tot = sum(v); done = sum(1 for x in v if x >= frames)
    shared = sum(float(m.group(1)) for m in re.finditer(r'^vfilter_nvdec_shared_decoders\{[^}]*\} (\S+)', t, re.M))
    on_cpu = len(re.findall(r'^vfilter_stream_decoder\{[^}]*decoder="cpu"[^}]*\} 1', t, re.M))
    if last: print('%5.1f s  fps %6.0f  with frames %3d  finished %3d%s' % (now - t0, (tot - last[1]) / (now - last[0]), sum(1 for x in v if x > 0), done,
                                                                           ('  shared NVDEC decoders %d' % shared if shared else '') + ('  on the CPU %d' % on_cpu if on_cpu else '')), flush=True)
    last = (now, tot)
    if v and done == len(v): print('last frame at %.1f s after serve started' % (now - t0)); break
    time.sleep(step)
