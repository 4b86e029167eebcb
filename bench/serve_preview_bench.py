"""What serve's previews cost the streams they show (docs/benchmarks.md, "Previews of serve").

    python3 bench/serve_preview_bench.py VFILTER CLIP [--streams 8] [--device cuda] [--json out.json]

CLIP is a 1080p30 H.264 file; each stream reads its own copy (made beside it). Three loads on the
same streams, one serve process each:
  none      nobody watches
  page      what the page does for every stream with its inputs shown: snapshot.jpg of the output
            and of the input at width 480, one after the other, 200 ms apart
  mjpeg     preview.mjpg of every stream at 10 pictures a second, width 480
and two paces:
  unpaced   the whole clips as fast as they decode (the aggregate frame rate: does watching slow it?)
  realtime  their first --frames frames at 30 fps, as cameras (frames dropped, p99 latency)
Reported: frames a second, dropped frames, p99 latency, the serve process's CPU seconds, pictures
sent and their size, the request time of a snapshot, and CPU milliseconds a picture (the CPU time
over `none`'s for the same frames, divided by the pictures sent). Every picture received is checked to be a JPEG.
"""

import argparse
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import tempfile
import threading
import time
import urllib.request


def get(url, timeout=10):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.status, r.read()


class Watchers:
    """One thread per stream, as the page (or an MJPEG viewer) asks for pictures."""

    def __init__(self, base, names, kind):
        self.base, self.kind = base, kind
        self.stop = threading.Event()
        self.pictures, self.bytes, self.bad, self.times = 0, 0, 0, []
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=self.watch, args=(n,), daemon=True) for n in names]
        for t in self.threads:
            t.start()

    def count(self, body, took=None):
        with self.lock:
            if body[:2] == b"\xff\xd8" and body[-2:] == b"\xff\xd9":
                self.pictures += 1
                self.bytes += len(body)
            else:
                self.bad += 1
            if took is not None:
                self.times.append(took)

    def watch(self, name):
        if self.kind == "page":
            while not self.stop.is_set():
                for side in ("output", "input"):
                    t = time.perf_counter()
                    try:
                        status, body = get(f"{self.base}/streams/{name}/snapshot.jpg?side={side}&width=480")
                    except Exception:
                        status, body = 0, b""
                    if status == 200:
                        self.count(body, time.perf_counter() - t)
                time.sleep(0.2)
        else:
            try:
                r = urllib.request.urlopen(f"{self.base}/streams/{name}/preview.mjpg?fps=10&width=480", timeout=10)
            except Exception:
                return
            buf = b""
            while not self.stop.is_set():
                chunk = r.read1(65536) if hasattr(r, "read1") else r.read(4096)
                if not chunk:
                    break
                buf += chunk
                while True:
                    m = re.search(rb"Content-Length: (\d+)\r\n\r\n", buf)
                    if not m or len(buf) < m.end() + int(m.group(1)):
                        break
                    self.count(buf[m.end():m.end() + int(m.group(1))])
                    buf = buf[m.end() + int(m.group(1)):]
            r.close()

    def finish(self):
        self.stop.set()
        for t in self.threads:
            t.join(timeout=15)


def run(vfilter, clips, device, load, realtime, frames):
    work = tempfile.mkdtemp(prefix="vf-preview-")
    names = [f"cam{k}" for k in range(len(clips))]
    stats = os.path.join(work, "stats.json")
    with open(os.path.join(work, "streams.yaml"), "w") as f:
        f.write(f"defaults: {{filter: 'gaussian=sigma=3.2', output: 'null', device: {device}, realtime: {str(realtime).lower()}"
                f"{f', frames: {frames}' if realtime else ''}}}\nstreams:\n")
        for n, c in zip(names, clips):
            f.write(f"  - {{name: {n}, input: {c}}}\n")
        f.write(f"serve: {{stats-json: {stats}}}\n")
    log = open(os.path.join(work, "serve.log"), "w+")
    start = time.perf_counter()
    p = subprocess.Popen([vfilter, "serve", "--config", os.path.join(work, "streams.yaml"), "--api-port", "0"],
                         stdout=log, stderr=subprocess.STDOUT)
    base = None
    while base is None and time.perf_counter() - start < 30:
        log.seek(0)
        m = re.search(r"control API: (http://127\.0\.0\.1:\d+)/streams", log.read())
        base = m.group(1) if m else None
        time.sleep(0.05)
    if base is None:
        p.kill()
        raise SystemExit("serve did not start:\n" + open(os.path.join(work, "serve.log")).read()[-2000:])
    watchers = Watchers(base, names, load) if load != "none" else None
    while True:  # until every stream has ended
        try:
            states = [s["state"] for s in json.loads(get(base + "/streams")[1])]
        except Exception:
            states = []
        if states and all(s in ("stopped", "failed") for s in states):
            break
        time.sleep(0.1)
    wall = time.perf_counter() - start
    if watchers:
        watchers.finish()
    p.send_signal(signal.SIGTERM)
    _, status, usage = os.wait4(p.pid, 0)
    d = json.load(open(stats))
    total = sum(v["frames_out"] for v in d.values())
    result = {
        "load": load, "realtime": realtime, "streams": len(clips), "fps": total / wall, "frames": total,
        "dropped": sum(v["frames_dropped"] for v in d.values()),
        "latency_p99_ms_max": max(v["stats"]["latency_ms"]["p99"] for v in d.values()),
        "cpu_s": usage.ru_utime + usage.ru_stime, "wall_s": wall, "exit": os.waitstatus_to_exitcode(status),
        "failed": [k for k, v in d.items() if v["state"] != "stopped"],
    }
    if watchers:
        result.update(pictures=watchers.pictures, bad_pictures=watchers.bad,
                      kb_per_picture=watchers.bytes / max(1, watchers.pictures) / 1024)
        if watchers.times:
            t = sorted(watchers.times)
            result.update(snapshot_ms_p50=1e3 * statistics.median(t), snapshot_ms_p99=1e3 * t[int(0.99 * (len(t) - 1))])
    shutil.rmtree(work, ignore_errors=True)
    return result


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("vfilter")
    ap.add_argument("clip")
    ap.add_argument("--streams", type=int, default=8)
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--frames", type=int, default=300)
    ap.add_argument("--json")
    a = ap.parse_args()
    clips = []
    for k in range(a.streams):
        c = f"{a.clip}.copy{k}.mp4"
        if not os.path.exists(c):
            shutil.copy(a.clip, c)
        clips.append(c)
    results = []
    for realtime in (False, True):
        base_cpu = None
        for load in ("none", "page", "mjpeg"):
            r = run(a.vfilter, clips, a.device, load, realtime, a.frames)
            if load == "none":
                base_cpu = r["cpu_s"]
                r["cpu_ms_per_picture"] = None
            else:
                r["cpu_ms_per_picture"] = 1e3 * (r["cpu_s"] - base_cpu) / max(1, r["pictures"])
            results.append(r)
            extra = ""
            if load != "none":
                extra = (f"; {r['pictures']} pictures ({r['bad_pictures']} bad), {r['kb_per_picture']:.0f} KiB each, "
                         f"{r['cpu_ms_per_picture']:.1f} CPU ms a picture")
                if "snapshot_ms_p50" in r:
                    extra += f", snapshot request p50 {r['snapshot_ms_p50']:.0f} ms p99 {r['snapshot_ms_p99']:.0f} ms"
            print(f"{'realtime' if realtime else 'unpaced '} {load:6s}: {r['fps']:.0f} fps, dropped {r['dropped']}, "
                  f"p99 latency max {r['latency_p99_ms_max']:.0f} ms, serve CPU {r['cpu_s']:.1f} s over {r['wall_s']:.1f} s"
                  f"{extra}; exit {r['exit']}{' FAILED ' + str(r['failed']) if r['failed'] else ''}", flush=True)
    if a.json:
        json.dump(results, open(a.json, "w"), indent=2)


if __name__ == "__main__":
    main()
