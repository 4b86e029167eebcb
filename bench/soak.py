"""A soak of `vfilter serve` as an unattended recorder lives it (docs/benchmarks.md, "Unattended"):
CAMERAS cameras on loopback (GStreamer's RTSP server, or with --camera tcp ffmpeg sending MPEG-TS
over TCP where GStreamer is missing) recorded in SEGMENT-second files for MINUTES minutes,
while every ROUND seconds one camera is killed and comes back 2 s later (in turn), one stream's
filter is changed through the API, and every third round one stream is removed and added again.

Every 5 s it samples serve's resident memory, open file descriptors, threads, the bytes recorded
and, where nvidia-smi answers, its GPU memory. At the end 200 requests hit the API at once,
SIGTERM stops serve, and every segment is checked: it decodes with no error line from
`ffmpeg -v error` and its video timestamps increase strictly. It prints each series' slope per
hour after the warm-up (and writes them with every sample to --json).

    bench/soak.sh [--minutes 2] [--cameras 5] [--size 640x360] [--fps 25] [--segment 4] [--round 8]
                  [--device cpu] [--camera rtsp|tcp] [--ffmpeg ffmpeg] [--vfilter build/vfilter]
                  [--out DIR] [--json FILE] [--check]

--check exits 1 unless: serve answered all 200 requests and exited 0 on SIGTERM, every segment is
clean, and after the warm-up the last third of the run's median RSS is within 20% (plus 16 MiB)
of the first third's, file descriptors within 4 and threads within 8 of it (and GPU memory within
10% plus 64 MiB). Exit 77: GStreamer's RTSP server is missing (--camera rtsp).
"""

import argparse
import concurrent.futures
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
RTSP_SERVER = os.path.join(ROOT, "tests", "live", "rtsp_server.py")
FILTERS = ["sobel", "gaussian=sigma=1.5", "box=radius=2", "unsharp", "gaussian=sigma=0.8"]


def request(method, url, body=None, timeout=30):
    req = urllib.request.Request(url, data=body.encode() if body is not None else None, method=method,
                                 headers={"Content-Type": "application/json"} if body is not None else {})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_line(path, text, seconds):
    until = time.time() + seconds
    while time.time() < until:
        try:
            with open(path, errors="replace") as f:
                m = re.search(text, f.read())
                if m:
                    return m
        except FileNotFoundError:
            pass
        time.sleep(0.1)
    return None


class Camera:
    """A camera on loopback that a supervisor keeps running, except for 2 s after kill() (a camera
    losing power and booting again). 'rtsp': GStreamer's RTSP server (tests/live/rtsp_server.py).
    'tcp': ffmpeg sending a looped clip as MPEG-TS in real time to the one client of a TCP listener
    (for machines without GStreamer, such as the GPU machine); it ends when its client goes, and the
    supervisor starts it again."""

    def __init__(self, kind, port, size, fps, log, clip=None, ffmpeg="ffmpeg"):
        self.kind, self.port, self.size, self.fps, self.log, self.clip, self.ffmpeg = kind, port, size, fps, log, clip, ffmpeg
        self.process = None
        self.down_until = 0.0
        self.lock = threading.Lock()
        self.stopped = threading.Event()
        self.start()
        threading.Thread(target=self.supervise, daemon=True).start()

    def command(self):
        if self.kind == "rtsp":
            return ["/usr/bin/python3", RTSP_SERVER, str(self.port), "--size", self.size, "--fps", str(self.fps)]
        return [self.ffmpeg, "-nostdin", "-v", "error", "-re", "-stream_loop", "-1", "-i", self.clip, "-c", "copy",
                "-f", "mpegts", f"tcp://127.0.0.1:{self.port}?listen=1"]

    def start(self):
        with self.lock:
            self.process = subprocess.Popen(self.command(), stdout=open(self.log, "a"), stderr=subprocess.STDOUT)

    def supervise(self):
        while not self.stopped.wait(0.2):
            with self.lock:
                running = self.process.poll() is None
            if not running and time.time() >= self.down_until:
                self.start()

    def kill(self, down_s=2.0):  # as a camera losing power
        with self.lock:
            self.down_until = time.time() + down_s
            self.process.kill()
            self.process.wait()

    def stop(self):
        self.stopped.set()
        self.kill(0)

    def url(self):
        return f"rtsp://127.0.0.1:{self.port}/cam" if self.kind == "rtsp" else f"tcp://127.0.0.1:{self.port}"


def make_clip(ffmpeg, path, size, fps):
    """Ten seconds of moving test picture in H.264, one key frame a second, as a camera sends."""
    subprocess.run([ffmpeg, "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", f"testsrc2=size={size}:rate={fps}",
                    "-t", "10", "-c:v", "libx264", "-preset", "veryfast", "-g", str(fps), "-pix_fmt", "yuv420p",
                    "-f", "mpegts", path], check=True)


def sample(pid, out_dir, gpu, api):
    s = {"t": time.time()}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                s["rss_mib"] = int(line.split()[1]) / 1024
            elif line.startswith("Threads:"):
                s["threads"] = int(line.split()[1])
    s["fds"] = len(os.listdir(f"/proc/{pid}/fd"))
    s["recorded_mib"] = sum(e.stat().st_size for e in os.scandir(out_dir) if e.is_file()) / 2**20
    if gpu:
        out = subprocess.run(["nvidia-smi", "--query-compute-apps=pid,used_memory", "--format=csv,noheader,nounits"],
                             capture_output=True, text=True).stdout
        s["gpu_mib"] = sum(int(m) for p, m in (l.split(",") for l in out.strip().splitlines() if "," in l) if int(p) == pid)
        if s["gpu_mib"] == 0:  # in a container nvidia-smi may not see our process ids: the whole GPU's use
            out = subprocess.run(["nvidia-smi", "--query-gpu=memory.used", "--format=csv,noheader,nounits"],
                                 capture_output=True, text=True).stdout
            s["gpu_mib"] = sum(int(v) for v in out.split())
        try:  # page-locked host memory for frames: resident, so part of rss_mib
            _, body = request("GET", f"{api}/metrics", timeout=10)
            m = re.search(r'^vfilter_host_pinned_bytes\{held="all"\} (\S+)', body.decode(errors="replace"), re.M)
            if m:
                s["pinned_mib"] = float(m.group(1)) / 2**20
        except OSError:
            pass
    return s


def slope_per_hour(samples, key):
    xs = [s["t"] for s in samples if key in s]
    ys = [s[key] for s in samples if key in s]
    if len(xs) < 3:
        return 0.0
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    den = sum((x - mx) ** 2 for x in xs)
    return 3600 * sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / den if den else 0.0


def check_segment(path):
    """'' when the file decodes clean with strictly increasing video timestamps, else what is wrong."""
    r = subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-i", path, "-map", "0:v:0", "-c:v", "rawvideo", "-f", "null", "-"],
                       capture_output=True, text=True)
    if r.returncode != 0 or r.stderr.strip():
        return (r.stderr.strip() or f"ffmpeg exit {r.returncode}").splitlines()[0]
    r = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=dts", "-of", "csv=p=0", path],
                       capture_output=True, text=True)
    dts = [int(v) for v in r.stdout.split() if v not in ("", "N/A")]
    if not dts:
        return "no video packets"
    for a, b in zip(dts, dts[1:]):
        if b <= a:
            return f"timestamps do not increase: {a} then {b}"
    return ""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--minutes", type=float, default=2)
    ap.add_argument("--cameras", type=int, default=5)
    ap.add_argument("--size", default="640x360")
    ap.add_argument("--fps", type=int, default=25)
    ap.add_argument("--segment", type=float, default=4)
    ap.add_argument("--round", type=float, default=8, help="seconds between rounds of kill, filter change, remove/add")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--vfilter", default=os.path.join(ROOT, "build", "vfilter"))
    ap.add_argument("--out", help="folder for the recordings and logs (default: a new temporary one, removed when clean)")
    ap.add_argument("--json")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--camera", choices=["rtsp", "tcp"], default="rtsp",
                    help="rtsp: GStreamer's RTSP server; tcp: ffmpeg sending MPEG-TS over TCP (no GStreamer needed)")
    ap.add_argument("--ffmpeg", default="ffmpeg", help="the ffmpeg of --camera tcp")
    a = ap.parse_args()

    if a.camera == "rtsp":
        probe = subprocess.run(["/usr/bin/python3", "-c", "import gi; gi.require_version('GstRtspServer', '1.0'); "
                                "from gi.repository import GstRtspServer"], capture_output=True)
        if probe.returncode != 0:
            print("soak: GStreamer's RTSP server is missing (scripts/install_deps.sh --test installs it)")
            return 77
    work = a.out or tempfile.mkdtemp(prefix="vfilter-soak-")
    rec = os.path.join(work, "rec")
    os.makedirs(rec, exist_ok=True)
    gpu = a.device != "cpu" and subprocess.run(["nvidia-smi", "-L"], capture_output=True).returncode == 0

    clip = None
    if a.camera == "tcp":
        clip = os.path.join(work, "camera.ts")
        make_clip(a.ffmpeg, clip, a.size, a.fps)
    cameras = [Camera(a.camera, free_port(), a.size, a.fps, os.path.join(work, f"cam{i}.log"), clip, a.ffmpeg)
               for i in range(a.cameras)]
    for c in cameras:
        if c.kind == "rtsp" and not wait_for_line(c.log, "ready", 30):
            print(f"soak: camera on port {c.port} did not start: {open(c.log).read()}")
            return 1
    entry = lambda i: {"name": f"cam{i}", "input": cameras[i].url(), "output": os.path.join(rec, f"cam{i}-%05d.mp4")}
    config = os.path.join(work, "streams.yaml")
    with open(config, "w") as f:
        f.write(f"defaults: {{filter: sobel, preset: ultrafast, segment: {a.segment}, reconnect-delay: 0.5, timeout: 3, "
                f"device: {a.device}}}\nstreams:\n")
        for i in range(a.cameras):
            f.write("  - " + json.dumps(entry(i)) + "\n")
        f.write("serve: " + json.dumps({"recordings-root": rec}) + "\n")
    log = os.path.join(work, "serve.log")
    serve = subprocess.Popen([a.vfilter, "serve", "--config", config, "--api-port", "0"],
                             stdout=open(log, "w"), stderr=subprocess.STDOUT)
    m = wait_for_line(log, r"127\.0\.0\.1:([0-9]+)/streams", 30)
    if not m:
        print("soak: serve did not start:\n" + open(log).read())
        serve.kill()
        return 1
    api = f"http://127.0.0.1:{m.group(1)}"

    samples, failures, rounds = [], [], 0
    stop = threading.Event()

    def sampler():
        while not stop.is_set():
            try:
                samples.append(sample(serve.pid, rec, gpu, api))
            except (FileNotFoundError, ProcessLookupError):
                return
            stop.wait(5)

    threading.Thread(target=sampler, daemon=True).start()
    start = time.time()
    end = start + 60 * a.minutes
    while time.time() + a.round < end:
        time.sleep(a.round)
        k = rounds
        rounds += 1
        cam = cameras[k % a.cameras]
        cam.kill()  # back 2 s later
        name = f"cam{(k + 1) % a.cameras}"
        status, body = request("PUT", f"{api}/streams/{name}/filter", FILTERS[k % len(FILTERS)])
        if status not in (200, 409):  # 409: the stream is waiting or stopped at that moment
            failures.append(f"PUT {name}/filter: {status} {body[:200]!r}")
        if k % 3 == 2:
            i = (k + 2) % a.cameras
            status, body = request("DELETE", f"{api}/streams/cam{i}")
            if status != 200:
                failures.append(f"DELETE cam{i}: {status} {body[:200]!r}")
            status, body = request("POST", f"{api}/streams", json.dumps(entry(i)))
            if status != 201:
                failures.append(f"POST cam{i}: {status} {body[:200]!r}")
    time.sleep(max(0.0, end - time.time()))

    with concurrent.futures.ThreadPoolExecutor(200) as pool:
        answers = list(pool.map(lambda _: request("GET", f"{api}/streams")[0], range(200)))
    ok_answers = sum(1 for s in answers if s == 200)
    stop.set()
    serve.send_signal(signal.SIGTERM)
    try:
        code = serve.wait(90)
    except subprocess.TimeoutExpired:
        serve.kill()
        code = "did not end within 90 s"
    for c in cameras:
        c.stop()

    segments = sorted(os.path.join(rec, f) for f in os.listdir(rec))
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        verdicts = list(pool.map(check_segment, segments))
    bad = [(p, v) for p, v in zip(segments, verdicts) if v]

    warm = max(30.0, 0.2 * (time.time() - start))
    steady = [s for s in samples if s["t"] - start >= warm]
    third = max(1, len(steady) // 3)
    first, last = steady[:third], steady[-third:]
    keys = ["rss_mib", "fds", "threads", "recorded_mib"] + (["gpu_mib"] if gpu else []) + \
        (["pinned_mib"] if any("pinned_mib" in s for s in samples) else [])
    med = lambda part, key: statistics.median([s[key] for s in part if key in s] or [0])
    report = {
        "minutes": a.minutes, "cameras": a.cameras, "size": a.size, "fps": a.fps, "segment_s": a.segment, "device": a.device,
        "rounds": rounds, "segments": len(segments), "bad_segments": [{"file": os.path.basename(p), "why": v} for p, v in bad],
        "api_200_of_200": ok_answers, "exit_code": code, "api_failures": failures,
        "slope_per_hour": {k: round(slope_per_hour(steady, k), 2) for k in keys},
        "first_third_median": {k: med(first, k) for k in keys}, "last_third_median": {k: med(last, k) for k in keys},
        "samples": [{k: round(v, 3) if isinstance(v, float) else v for k, v in s.items()} for s in samples],
    }
    # RSS is still settling for the first minutes (malloc's arenas fill with reusable holes; serve
    # gives the free pages back once a minute, so it also saws by some 30 MiB): 20% plus 16 MiB.
    # A stream that left 16 MiB behind at each remove and add (as issue 44 once saw) fails it in
    # the CI run's two minutes, which remove and add five; the slopes of a long run say the rest.
    limits = {"rss_mib": lambda f: f * 1.20 + 16, "fds": lambda f: f + 4, "threads": lambda f: f + 8, "gpu_mib": lambda f: f * 1.10 + 64}
    grown = [k for k, lim in limits.items() if k in keys and steady and med(last, k) > lim(med(first, k))]
    report["grew"] = grown

    print(f"soak: {a.cameras} cameras {a.size}@{a.fps}, {a.minutes:g} min, {rounds} rounds, device {a.device}")
    print(f"  {'series':<14}{'first third':>12}{'last third':>12}{'slope / hour':>14}")
    for k in keys:
        print(f"  {k:<14}{report['first_third_median'][k]:>12.1f}{report['last_third_median'][k]:>12.1f}"
              f"{report['slope_per_hour'][k]:>14.1f}")
    print(f"  segments: {len(segments)}, bad: {len(bad)}; API: {ok_answers}/200 answered 200; exit on SIGTERM: {code}")
    for p, v in bad[:20]:
        print(f"  bad segment {os.path.basename(p)}: {v}")
    for f in failures[:20]:
        print(f"  API: {f}")
    if grown:
        print(f"  grew after the warm-up: {', '.join(grown)}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(report, f, indent=1)
    passed = not bad and not failures and ok_answers == 200 and code == 0 and not grown and len(segments) > 0
    if passed and not a.out:
        subprocess.run(["rm", "-rf", work])
    elif not passed:
        print(f"  recordings and logs kept in {work}")
    return 0 if passed or not a.check else 1


if __name__ == "__main__":
    sys.exit(main())
