"""GPU memory of `vfilter serve` while its streams' filters are edited (docs/benchmarks.md, "Filter
changes"): STREAMS GPU streams read CLIP at its own pace (realtime, output null), then CHANGES
`PUT /streams/NAME/filter` requests over SECONDS seconds, each a filter not seen before (random
15x15 whole-number matrices, Gaussians of sigma 0.8 to 9, boxes of radius 1 to 40, in turn, to the
streams in turn; every chain one filter, as the issue that asked for this measured). The serve
process's GPU memory (nvidia-smi, per process) is read before the
changes, every 0.5 s during them, and 3 s after the last.

    python3 bench/serve_filter_churn.py VFILTER CLIP [--streams 4] [--changes 240] [--seconds 36] [--gpus 0] [--json out.json]

--gpus goes to vfilter serve (default: all). CUDA loads a kernel's code the first time it runs
(lazy loading): run with CUDA_MODULE_LOADING=EAGER to see allocations alone.

CLIP: a 1080p30 H.264 file at least SECONDS + 15 s long; each stream reads its own copy.
"""

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import tempfile
import time
import urllib.request


def request(method, url, body=None, timeout=10):
    req = urllib.request.Request(url, data=body.encode() if body is not None else None, method=method,
                                 headers={"Content-Type": "application/json"} if body is not None else {})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return r.status, r.read()


def process_gpu_mib(pid):
    out = subprocess.run(["nvidia-smi", "--query-compute-apps=pid,used_memory", "--format=csv,noheader,nounits"],
                         capture_output=True, text=True).stdout
    return sum(int(m) for p, m in (line.split(",") for line in out.strip().splitlines() if "," in line) if int(p) == pid)


def filters(n, seed=37):
    rng = random.Random(seed)
    out = []
    for i in range(n):
        kind = i % 3
        if kind == 0:
            taps = " ".join(str(rng.randint(-9, 9)) for _ in range(225))
            out.append(f"convolution=m={taps}:rdiv=1/675:bias=128")
        elif kind == 1:
            out.append(f"gaussian=sigma={0.8 + 8.2 * i / n:.4f}")
        else:  # radii 1 to 40, then again with the other border rule: one filter, distinct
            out.append(f"box=radius={1 + (i // 3) % 40}" + (":border=replicate" if i // 3 >= 40 else ""))
    assert len(set(out)) == n, "the filters repeat"
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("vfilter")
    ap.add_argument("clip")
    ap.add_argument("--streams", type=int, default=4)
    ap.add_argument("--changes", type=int, default=240)
    ap.add_argument("--seconds", type=float, default=36)
    ap.add_argument("--gpus", default="all")
    ap.add_argument("--json")
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="vf-churn-")
    names = [f"cam{k}" for k in range(1, a.streams + 1)]
    with open(os.path.join(work, "streams.yaml"), "w") as f:
        f.write("defaults: {filter: 'gaussian=sigma=3.2', output: 'null', device: cuda, realtime: true}\nstreams:\n")
        for n in names:
            shutil.copy(a.clip, os.path.join(work, n + ".mp4"))
            f.write(f"  - {{name: {n}, input: {os.path.join(work, n + '.mp4')}}}\n")
        f.write(f"serve: {{stats-json: {os.path.join(work, 'stats.json')}}}\n")
    log = open(os.path.join(work, "serve.log"), "w+")
    p = subprocess.Popen([a.vfilter, "serve", "--config", os.path.join(work, "streams.yaml"), "--api-port", "0", "--gpus", a.gpus],
                         stdout=log, stderr=subprocess.STDOUT)
    base, start = None, time.perf_counter()
    while base is None and time.perf_counter() - start < 30:
        log.seek(0)
        m = re.search(r"control API: (http://127\.0\.0\.1:\d+)/streams", log.read())
        base = m.group(1) if m else None
        time.sleep(0.05)
    if base is None:
        p.kill()
        raise SystemExit("serve did not start:\n" + open(os.path.join(work, "serve.log")).read()[-2000:])
    time.sleep(4)  # every stream running, its first chain prepared
    before = process_gpu_mib(p.pid)
    samples, answers, refused = [], 0, []
    t0 = time.perf_counter()
    for i, f in enumerate(filters(a.changes)):
        while time.perf_counter() - t0 < i * a.seconds / a.changes:
            time.sleep(0.005)
        try:
            status, _ = request("PUT", f"{base}/streams/{names[i % len(names)]}/filter", f)
            answers += status == 200
        except Exception as e:
            refused.append(str(e))
        if i % max(1, a.changes // int(a.seconds * 2)) == 0:
            samples.append(process_gpu_mib(p.pid))
    time.sleep(3)
    after = process_gpu_mib(p.pid)
    states = [s["state"] for s in json.loads(request("GET", base + "/streams")[1])]
    metrics = request("GET", base + "/metrics")[1].decode()
    prepared = [line for line in metrics.splitlines() if line.startswith("vfilter_gpu_prepared")]
    p.send_signal(2)
    p.wait(60)
    result = {"streams": a.streams, "changes": a.changes, "gpus": a.gpus,
              "module_loading": os.environ.get("CUDA_MODULE_LOADING", "lazy (default)"),
              "answered_200": answers, "refused": refused[:5], "samples_mib": samples,
              "gpu_mib_before": before, "gpu_mib_peak_during": max(samples + [before]), "gpu_mib_after": after,
              "grown_mib": after - before, "states_after": states, "prepared_metrics_after": prepared}
    print(json.dumps(result, indent=1))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(result, f, indent=1)
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
