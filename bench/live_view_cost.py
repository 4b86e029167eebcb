"""What watching serve's cameras as live video costs (docs/benchmarks.md, "Live video in the page").

    python3 bench/live_view_cost.py VFILTER [--streams 8] [--size 1280x720] [--fps 30] [--seconds 20]
                                    [--record] [--json out.json]

One serve process with STREAMS built-in cameras (pattern://, paced like cameras) filtered by
sobel, each recorded to its own H.264 file (--record) or thrown away. Over SECONDS each, the serve
process's CPU time is measured with:
  none         nobody watching
  preview      every stream's output through one GET /live connection at width 480, as the page
               asks for its tiles: one preview encoder (libx264 ultrafast) a stream
  own-packets  the same at the streams' own width (with --record): their recordings' own packets,
               no second encoder
Reported: the cores serve used, their difference to `none`, fragments and bytes received, and the
server-side delay (a fragment's arrival at the client minus its frame's arrival at vfilter, on
loopback: the same clock). Fragments received are checked to follow each stream's init segment.
"""

import argparse
import json
import os
import re
import signal
import struct
import subprocess
import tempfile
import threading
import time
import urllib.request


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Watcher:
    """One /live connection for every stream, read on a thread."""

    def __init__(self, base, names, width):
        self.url = f"{base}/live?streams={','.join(names)}&width={width}"
        self.stop = threading.Event()
        self.fragments, self.bytes, self.inits, self.bad = 0, 0, set(), 0
        self.delays = []
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        r = urllib.request.urlopen(self.url, timeout=10)

        def read(n):
            b = b""
            while len(b) < n:
                c = r.read(n - len(b))
                if not c:
                    raise EOFError
                b += c
            return b

        try:
            while not self.stop.is_set():
                header = json.loads(read(struct.unpack(">I", read(4))[0]))
                body = read(struct.unpack(">I", read(4))[0])
                if header["type"] == "init":
                    self.inits.add(header["tile"])
                elif header["type"] == "fragment":
                    if header["tile"] not in self.inits or body[4:8] != b"moof":
                        self.bad += 1
                    self.fragments += 1
                    self.bytes += len(body)
                    self.delays.append(time.time() * 1000 - header["arrived"])
        except (EOFError, OSError):
            pass
        r.close()

    def end(self):
        self.stop.set()
        self.thread.join(timeout=5)


def percentile(values, p):
    s = sorted(values)
    return s[min(len(s) - 1, int(p * len(s)))] if s else None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("vfilter")
    ap.add_argument("--streams", type=int, default=8)
    ap.add_argument("--size", default="1280x720")
    ap.add_argument("--fps", type=int, default=30)
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--record", action="store_true")
    ap.add_argument("--json")
    a = ap.parse_args()
    width = int(a.size.split("x")[0])
    work = tempfile.mkdtemp(prefix="vf-live-cost-")
    names = [f"cam{i}" for i in range(a.streams)]
    with open(os.path.join(work, "streams.yaml"), "w") as f:
        f.write("defaults: {filter: sobel}\nstreams:\n")
        for i, n in enumerate(names):
            out = os.path.join(work, f"{n}.mkv") if a.record else "null"
            f.write(f"  - {{name: {n}, input: 'pattern://?size={a.size}&rate={a.fps}&seed={i}', output: '{out}'}}\n")
    log = open(os.path.join(work, "serve.log"), "w")
    serve = subprocess.Popen([a.vfilter, "serve", "--config", os.path.join(work, "streams.yaml"), "--api-port", "0"],
                             stdout=log, stderr=subprocess.STDOUT)
    port = None
    for _ in range(300):
        m = re.search(r"control API: http://127\.0\.0\.1:(\d+)", open(os.path.join(work, "serve.log")).read())
        if m:
            port = int(m.group(1))
            break
        time.sleep(0.1)
    if port is None:
        serve.kill()
        raise SystemExit("serve did not start: " + open(os.path.join(work, "serve.log")).read()[-2000:])
    base = f"http://127.0.0.1:{port}"
    time.sleep(5)  # every stream running
    phases = [("none", None), ("preview", 480)] + ([("own-packets", width)] if a.record else [])
    results = []
    for name, w in phases:
        watcher = Watcher(base, names, w) if w else None
        time.sleep(2)  # encoders started, viewers at their keyframes
        c0, t0 = cpu_seconds(serve.pid), time.time()
        f0 = watcher.fragments if watcher else 0
        b0 = watcher.bytes if watcher else 0
        d0 = len(watcher.delays) if watcher else 0
        time.sleep(a.seconds)
        cores = (cpu_seconds(serve.pid) - c0) / (time.time() - t0)
        metrics = urllib.request.urlopen(base + "/metrics").read().decode()
        encoders = sum(int(float(v)) for v in re.findall(r'vfilter_live_encoders\{stream="[^"]+"\} (\S+)', metrics))
        passthrough = sum(int(float(v)) for v in re.findall(r'vfilter_live_passthrough\{stream="[^"]+"\} (\S+)', metrics))
        row = {"phase": name, "width": w, "cores": round(cores, 3), "encoders": encoders, "own_packets": passthrough}
        if watcher:
            delays = watcher.delays[d0:]
            row.update({"fragments_per_s": round((watcher.fragments - f0) / a.seconds, 1),
                        "mbit_per_s": round((watcher.bytes - b0) * 8 / a.seconds / 1e6, 2), "bad": watcher.bad,
                        "delay_p50_ms": round(percentile(delays, 0.5), 1), "delay_p99_ms": round(percentile(delays, 0.99), 1)})
            watcher.end()
        results.append(row)
        print(json.dumps(row), flush=True)
        time.sleep(2)
    none = results[0]["cores"]
    for r in results[1:]:
        r["cores_over_none"] = round(r["cores"] - none, 3)
        print(f"{r['phase']}: {r['cores_over_none']:+.3f} cores for {a.streams} streams watched "
              f"({r['cores_over_none'] / a.streams * 1000:.0f} millicores a stream)")
    serve.send_signal(signal.SIGTERM)
    serve.wait(timeout=60)
    report = {"streams": a.streams, "size": a.size, "fps": a.fps, "seconds": a.seconds, "record": a.record,
              "cpus": os.cpu_count(), "phases": results}
    if a.json:
        with open(a.json, "w") as f:
            json.dump(report, f, indent=2)


if __name__ == "__main__":
    main()
