#!/usr/bin/env python3
"""Failover of a fleet of `vfilter serve` shards through etcd (docs/kubernetes.md, "Failover").

Starts a real etcd on loopback and SHARDS serve processes (--store, --peers), CAMERAS live
cameras (built-in pattern:// inputs at 25 fps, 320x180, numbered by the wall clock: clock=wall, so
that every shard reads the same frame at the same moment) recorded unfiltered (identity) in
SEGMENT-second segments (libx264) into one shared folder. Then KILLS times: a shard chosen in turn is killed with SIGKILL;
for each of its cameras, the seconds from the kill until a survivor writes a new segment of it
with frames in it ("recording again"); the shard is started again and the seconds until each of
its cameras is recorded by it again (hand-back). Prints one line a kill and a JSON summary (p50,
p95, worst) with --json FILE. Every segment written is decoded with ffmpeg at the end, and each
camera's frame numbers read back in order: every frame missing (a gap) or written twice between
two segments is counted, so the take-overs' gaps and the hand-backs' (none expected) are measured.

    python3 bench/failover.py --vfilter build/vfilter [--shards 3] [--cameras 12] [--kills 5]
"""
import argparse
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import tempfile
import time
import urllib.request

TOKEN = "failover-bench-token-0123456789"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(port, path):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers={"Authorization": f"Bearer {TOKEN}"})
    try:
        with urllib.request.urlopen(req, timeout=2) as r:
            return json.load(r)
    except Exception:
        return None


def wait(pred, seconds, step=0.05):
    start = time.monotonic()
    while time.monotonic() - start < seconds:
        if pred():
            return time.monotonic() - start
        time.sleep(step)
    return None


def shard_plan(vfilter, config, shards):
    out = subprocess.run([vfilter, "serve", "--config", config, "shard-plan", str(shards)], capture_output=True, text=True, check=True)
    return {line.split()[0]: int(line.split()[1]) for line in out.stdout.splitlines() if line.strip()}


def segments_since(folder, name, t_wall):
    """Segments of camera `name` created after t_wall with data in them."""
    found = []
    for f in os.listdir(folder):
        if f.startswith(name + "-") and not f.endswith(".partial"):
            p = os.path.join(folder, f)
            try:
                st = os.stat(p)
            except FileNotFoundError:  # renamed while listed (a segment finalised)
                continue
            if st.st_mtime >= t_wall and st.st_size > 4096:
                found.append(p)
    return found


def frame_numbers(path):
    """The frame numbers a segment's frames show (pattern clock=wall: 20 blocks, white for 1)."""
    w, h = 320, 180
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "gray", "-"],
                         capture_output=True).stdout
    block, y = w // 20, max(8, h // 10) // 2
    return [sum(1 << i for i in range(20) if raw[k * w * h + y * w + i * block + block // 2] > 128) for k in range(len(raw) // (w * h))]


def junctions(rec, cameras):
    """Over every camera's segments in time order: the gaps (seconds missing, > 0) and the frames written twice."""
    gaps, doubled = [], 0
    for k in range(cameras):
        numbers = []
        for f in sorted(f for f in os.listdir(rec) if f.startswith(f"cam{k}-") and f.endswith(".mp4")):
            numbers += frame_numbers(os.path.join(rec, f))
        for prev, cur in zip(numbers, numbers[1:]):
            step = (cur - prev) % (1 << 20)
            if step == 1:
                continue
            if step == 0 or step > (1 << 19):
                doubled += 1
            else:
                gaps.append((step - 1) / 25)
    return gaps, doubled


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--vfilter", default="build/vfilter")
    ap.add_argument("--shards", type=int, default=3)
    ap.add_argument("--cameras", type=int, default=12)
    ap.add_argument("--kills", type=int, default=5)
    ap.add_argument("--lease", type=int, default=5)
    ap.add_argument("--segment", type=int, default=2)
    ap.add_argument("--json")
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="vf-failover-")
    rec = os.path.join(work, "rec")
    os.makedirs(rec)
    etcd_port, peer_port = free_port(), free_port()
    etcd = subprocess.Popen(["etcd", "--name", "b", "--data-dir", os.path.join(work, "etcd"), "--listen-client-urls",
                             f"http://127.0.0.1:{etcd_port}", "--advertise-client-urls", f"http://127.0.0.1:{etcd_port}",
                             "--listen-peer-urls", f"http://127.0.0.1:{peer_port}", "--initial-advertise-peer-urls",
                             f"http://127.0.0.1:{peer_port}", "--initial-cluster", f"b=http://127.0.0.1:{peer_port}",
                             "--log-level", "warn"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    config = os.path.join(work, "cams.yaml")
    with open(config, "w") as f:
        f.write(f"defaults: {{filter: identity, codec: libx264, preset: ultrafast, segment: {a.segment}}}\nstreams:\n")
        for k in range(a.cameras):
            f.write(f"  - {{name: cam{k}, input: 'pattern://?size=320x180&rate=25&motion=ball&clock=wall', "
                    f"output: '{rec}/cam{k}-%Y%m%d-%H%M%S.mp4'}}\n")
        f.write(f"serve: {{store-lease: {a.lease}, recordings-root: '{rec}'}}\n")
    plan = shard_plan(a.vfilter, config, a.shards)
    ports = [free_port() for _ in range(a.shards)]
    peers = ",".join(f"http://127.0.0.1:{p}" for p in ports)
    procs = [None] * a.shards

    def start(k):
        log = open(os.path.join(work, f"serve-{k}.log"), "a")
        procs[k] = subprocess.Popen([a.vfilter, "serve", "--config", config, "--shard", f"{k}/{a.shards}", "--api-port", str(ports[k]),
                                     "--api-token", TOKEN, "--store", f"http://127.0.0.1:{etcd_port}", "--peers", peers],
                                    stdout=log, stderr=log)

    def running_on(k):
        got = get(ports[k], "/streams")
        return {s["name"] for s in got if s.get("frames_out", 0) > 0} if got else set()

    takeovers, handbacks = [], []
    try:
        time.sleep(1)
        for k in range(a.shards):
            start(k)
        home = lambda: all(plan[c] == k for k in range(a.shards) for c in running_on(k)) and \
            sum(len(running_on(k)) for k in range(a.shards)) == a.cameras
        if wait(home, 30) is None:
            raise SystemExit("the cameras never ran each on its shard")
        for i in range(a.kills):
            k = i % a.shards
            mine = [c for c, s in plan.items() if s == k]
            time.sleep(a.segment + 1)
            procs[k].send_signal(signal.SIGKILL)
            procs[k].wait()
            t_kill, t_wall = time.monotonic(), time.time()
            left = set(mine)
            while left and time.monotonic() - t_kill < 60:
                for c in list(left):
                    if segments_since(rec, c, t_wall):
                        takeovers.append(time.monotonic() - t_kill)
                        left.discard(c)
                time.sleep(0.05)
            start(k)
            t_back = time.monotonic()
            back = wait(lambda: set(mine) <= running_on(k), 30)
            handbacks.append(back if back is not None else float("inf"))
            print(f"kill {i + 1}: shard {k}, {len(mine)} cameras: recording again after "
                  f"{', '.join(f'{x:.2f}' for x in takeovers[-len(mine):])} s; back on shard {k} after "
                  f"{'never (30 s)' if back is None else f'{back:.2f} s'}", flush=True)
            wait(home, 30)
    finally:
        for p in procs:
            if p and p.poll() is None:
                p.send_signal(signal.SIGINT)
        for p in procs:
            if p:
                try:
                    p.wait(20)
                except subprocess.TimeoutExpired:
                    p.kill()
        etcd.kill()
    bad = [f for f in sorted(os.listdir(rec)) if f.endswith(".mp4") and subprocess.run(
        ["ffmpeg", "-v", "error", "-i", os.path.join(rec, f), "-f", "null", "-"], capture_output=True, text=True).stderr.strip()]
    gaps, doubled = junctions(rec, a.cameras)
    # inclusive: the default (exclusive) reaches past the slowest take-over with few samples
    q = statistics.quantiles(takeovers, n=20, method="inclusive") if len(takeovers) > 1 else takeovers * 19
    summary = {"lease_s": a.lease, "shards": a.shards, "cameras": a.cameras, "kills": a.kills, "takeover_s": {
        "p50": statistics.median(takeovers), "p95": q[18], "worst": max(takeovers), "n": len(takeovers)},
        "handback_s": {"p50": statistics.median(handbacks), "worst": max(handbacks)},
        "segments": len([f for f in os.listdir(rec) if f.endswith(".mp4")]), "segments_not_decoding": bad,
        "gaps": {"count": len(gaps), "expected": len(takeovers), "seconds": sorted(round(g, 2) for g in gaps)},
        "frames_written_twice": doubled}
    print(json.dumps(summary, indent=1))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(summary, f, indent=1)
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
