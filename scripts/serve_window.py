#!/usr/bin/env python3
# serve_window.py PID PORT SECONDS: the steady state of a running `vfilter serve` (its API on
# 127.0.0.1:PORT) over SECONDS, once every stream runs, so that start-up and the streams'
# uneven ends stay out of the figure: frames out a second (from /metrics, per stream), streams
# that kept 30 fps with nothing dropped, the process's CPU cores and CPU time a frame, NVDEC's and
# the GPU's utilisation (nvidia-smi; 0 where there is none); the streams' p99 latency over serve's last 10 s
# and since the start and, with decoders placed by load, the figures per decoder (from GET
# /streams); and where the cores went, by thread name (vf-decode, vf-filter, vf-batch, ...).
# Used by scripts/gpu_camera_bench.sh.
import collections, json, os, re, subprocess, sys, time, urllib.request
pid, port, dur = sys.argv[1], sys.argv[2], float(sys.argv[3])
hz = os.sysconf('SC_CLK_TCK')
def scrape():
    t = urllib.request.urlopen(f'http://127.0.0.1:{port}/metrics', timeout=10).read().decode()
    out = collections.defaultdict(float); drop = collections.defaultdict(float)
    for m in re.finditer(r'^vfilter_frames_out_total\{([^}]*)\} (\S+)', t, re.M): out[m.group(1)] = float(m.group(2))
    for m in re.finditer(r'^vfilter_frames_dropped_total\{([^}]*)\} (\S+)', t, re.M): drop[m.group(1)] = float(m.group(2))
    return out, drop
def cpu():
    f = open(f'/proc/{pid}/stat').read(); f = f[f.rindex(')') + 2:].split(); return (int(f[11]) + int(f[12])) / hz
def threads():  # CPU seconds by thread name, over the process's threads now
    by = collections.defaultdict(float)
    for t in os.listdir(f'/proc/{pid}/task'):
        try: f = open(f'/proc/{pid}/task/{t}/stat').read()
        except OSError: continue
        name = re.sub(r'[0-9]+$', '', f[f.index('(') + 1:f.rindex(')')])
        f = f[f.rindex(')') + 2:].split(); by[name] += (int(f[11]) + int(f[12])) / hz
    return by
def dec():  # NVDEC's utilisation and the GPU's (the share of time a kernel ran), first GPU
    try:
        v = subprocess.run(['nvidia-smi', '--query-gpu=utilization.decoder,utilization.gpu', '--format=csv,noheader,nounits'], capture_output=True, text=True).stdout.split('\n')[0].split(',')
        return float(v[0]), float(v[1])
    except (OSError, ValueError, IndexError): return 0.0, 0.0
(o0, d0), c0, h0, t0 = scrape(), cpu(), threads(), time.time(); d = []
while time.time() - t0 < dur: time.sleep(0.5); d.append(dec())
(o1, d1), c1, h1, t1 = scrape(), cpu(), threads(), time.time()
w = t1 - t0
rates = [(o1[k] - o0.get(k, 0)) / w for k in o1]
fps = sum(rates); cores = (c1 - c0) / w
kept = sum(1 for k in o1 if (o1[k] - o0.get(k, 0)) / w >= 29.5 and d1.get(k, 0) == d0.get(k, 0))
rates.sort()
print('steady window %.0f s: %.0f fps, CPU %.2f cores = %.3f ms a frame, NVDEC %.0f%%, GPU %.0f%%; %d streams, %d kept 30 fps with nothing dropped, stream fps min %.1f median %.1f, dropped %d'
      % (w, fps, cores, 1000 * cores / max(fps, 1), sum(x[0] for x in d) / len(d), sum(x[1] for x in d) / len(d), len(rates), kept,
         rates[0] if rates else 0, rates[len(rates) // 2] if rates else 0, sum(d1.values()) - sum(d0.values())))
def streams_now():
    try: d = json.loads(urllib.request.urlopen(f'http://127.0.0.1:{port}/streams', timeout=10).read().decode())
    except (OSError, ValueError): return {}
    if isinstance(d, dict): d = d.get('streams', [])
    return {x.get('name'): x for x in d if isinstance(x, dict)}
streams = streams_now()
def spread(v):
    v = sorted(v); return 'median %.1f ms, max %.1f ms' % (v[len(v) // 2], v[-1]) if v else '-'
if streams:
    print('  p99 latency (each stream, read to written), last 10 s: %s; since the start: %s' % (
        spread(x.get('latency_recent_p99_ms', 0) for x in streams.values()), spread(x.get('latency_p99_ms', 0) for x in streams.values())))
    parts = [x.get('latency_recent_p99_ms_parts') for x in streams.values() if x.get('latency_recent_p99_ms_parts')]
    if parts:
        print('  its parts, last 10 s: ' + '; '.join('%s %s' % (k, spread(p[k] for p in parts)) for k in ('decode', 'queue', 'filter', 'write')))
by = collections.defaultdict(list)
for k in o1:
    m = re.search(r'stream="([^"]*)"', k)
    x = streams.get(m.group(1) if m else None, {})
    by[(x.get('decoding') or {}).get('decoder', '?')].append(((o1[k] - o0.get(k, 0)) / w, d1.get(k, 0) - d0.get(k, 0), x.get('latency_recent_p99_ms', 0)))
if len(by) > 1 or '?' not in by:
    for dec_name, v in sorted(by.items()):
        r = sorted(x[0] for x in v)
        print('  %s: %d streams, %.0f fps, %d kept 30 fps with nothing dropped, fps min %.1f median %.1f, dropped %d; p99 latency, last 10 s: %s' % (
            dec_name, len(v), sum(r), sum(1 for x in v if x[0] >= 29.5 and x[1] == 0), r[0], r[len(r) // 2], sum(x[1] for x in v), spread(x[2] for x in v)))
h = sorted(((h1[k] - h0.get(k, 0)) / w, k) for k in h1)
print('  cores by thread name: ' + ', '.join('%s %.2f' % (k, c) for c, k in reversed(h) if c >= 0.05))
# Streams that starved: no frame inside the window, and how many they had before it (0: the stream
# had not started by the window's start, as when its NVDEC decoder was created late).
starved = sorted((o0.get(k, 0), k) for k in o1 if o1[k] == o0.get(k, 0))
if starved:
    names = [re.search(r'stream="([^"]*)"', k).group(1) if 'stream="' in k else k for _, k in starved]
    print('  no frame in the window: %d streams (%s), %d of them none before it either' % (
        len(starved), ', '.join('%s on %s, %d frames before' % (n, (streams.get(n, {}).get('decoding') or {}).get('decoder', '?'), b)
                                for (b, _), n in list(zip(starved, names))[:8]), sum(1 for b, _ in starved if b == 0)))
