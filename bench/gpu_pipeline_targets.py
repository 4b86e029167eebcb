#!/usr/bin/env python3
"""The streaming GPU pipeline's targets on one clip (docs/benchmarks.md, the whole pipeline):

  1. sobel and gaussian=sigma=3.2 against identity through the same pipeline (libx264 veryfast)
  2. vfilter against the ffmpeg command line doing the same filter and encode, and against
     ffmpeg's plain transcode
  3. decode -> filter -> null against decode only (identity -> null), with and without NVDEC,
     also for a dense 27x27 filter

Rates are sustained: each command runs on the whole clip and on its first third (--frames /
-frames:v), best of --runs each, and fps = (N - N/3) / (t_whole - t_third). Start-up (CUDA context,
NVDEC and encoder set-up, page-locked pools) cancels out, for vfilter and ffmpeg alike, as it
would over a long stream. The whole-clip rate is reported beside it.

  bench/gpu_pipeline_targets.py CLIP [--runs 2] [--json OUT] [--vfilter build/vfilter] [--ffmpeg ffmpeg]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

DENSE27 = "convolution=m=" + " ".join(str((i * 7) % 11 - 5) for i in range(27 * 27)) + ":bias=128"
X264 = ["-c:v", "libx264", "-preset", "veryfast", "-crf", "23"]


def timed(cmd, runs):
    best = None
    for _ in range(runs):
        t = time.perf_counter()
        r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            sys.exit(f"command failed ({r.returncode}): {' '.join(cmd)[:300]}\n{r.stderr[-2000:]}")
        dt = time.perf_counter() - t
        best = dt if best is None else min(best, dt)
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("clip")
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--json")
    ap.add_argument("--vfilter", default="build/vfilter")
    ap.add_argument("--ffmpeg", default="ffmpeg")
    ap.add_argument("--hwdecs", default="cuda,none", help="vfilter --hwdec values to measure")
    a = ap.parse_args()
    work = tempfile.mkdtemp()
    probe = subprocess.run([a.ffmpeg, "-hide_banner", "-i", a.clip, "-map", "0:v:0", "-c", "copy", "-f", "null", "-"],
                           stderr=subprocess.PIPE, text=True).stderr
    frames = int(probe.split("frame=")[-1].split()[0])
    rows = []
    hwdecs = a.hwdecs.split(",")

    short = frames // 3

    def sustained(cmd, short_cmd):
        t_short = timed(short_cmd, a.runs)
        t_whole = timed(cmd, a.runs)  # last, so vfilter's --stats-json describes a whole run
        return (frames - short) / max(t_whole - t_short, 1e-6), frames / t_whole

    def vf(name, filt, out, extra=()):
        stats = os.path.join(work, "stats.json")
        cmd = [a.vfilter, "-q", "-y", "-i", a.clip, "-f", filt, "--stats-json", stats, *extra]
        cmd += ["-o", "null"] if out == "null" else ["--codec", "libx264", "--preset", "veryfast", "--crf", "23",
                                                    "-o", os.path.join(work, "vf.mp4")]
        rate, whole = sustained(cmd, cmd + ["--frames", str(short)])
        s = json.load(open(stats))
        row = {"tool": "vfilter", "case": name, "fps": rate, "whole_clip_fps": whole, "own_sustained_fps": s["sustained_fps"],
               "bottleneck": s["bottleneck"], "hw_decode": s.get("hw_decode"), "device": s.get("device"),
               "host_copies_per_frame": s.get("host_copies_per_frame"),
               "gpu_ms_per_frame": s.get("gpu_ms_per_frame"),
               "stages": {st["name"]: round(st["ms_per_frame"], 3) for st in s["stages"]}}
        rows.append(row)
        print(f"vfilter {name:34s} {row['fps']:8.1f} fps (whole clip {whole:.1f}, own sustained {row['own_sustained_fps']:.1f}) "
              f"bottleneck {row['bottleneck']}, host copies/frame {row['host_copies_per_frame']}, stages {row['stages']}",
              flush=True)
        return row

    def ff(name, vfilter_arg, out):
        cmd = [a.ffmpeg, "-hide_banner", "-loglevel", "error", "-y", "-i", a.clip]
        if vfilter_arg:
            cmd += ["-vf", vfilter_arg]
        cmd += (["-an", "-f", "null", "-"] if out == "null" else X264 + ["-c:a", "copy", os.path.join(work, "ff.mp4")])
        rate, whole = sustained(cmd, cmd[:-1] + ["-frames:v", str(short), cmd[-1]])
        row = {"tool": "ffmpeg", "case": name, "fps": rate, "whole_clip_fps": whole}
        rows.append(row)
        print(f"ffmpeg  {name:34s} {row['fps']:8.1f} fps (whole clip {whole:.1f})", flush=True)
        return row

    print(f"clip {a.clip}: {frames} frames, best of {a.runs}, {os.cpu_count()} cores", flush=True)
    r = {}
    for hw in hwdecs:
        r["id_" + hw] = vf(f"identity x264 hwdec={hw}", "identity", "x264", ["--hwdec", hw])
        r["sobel_" + hw] = vf(f"sobel x264 hwdec={hw}", "sobel=planes=all:rest=copy", "x264", ["--hwdec", hw])
        r["gauss_" + hw] = vf(f"gaussian 3.2 x264 hwdec={hw}", "gaussian=sigma=3.2", "x264", ["--hwdec", hw])
    r["ff_copy"] = ff("transcode", "", "x264")
    r["ff_sobel"] = ff("sobel x264", "sobel", "x264")
    r["ff_gblur"] = ff("gblur 3.2 x264", "gblur=sigma=3.2", "x264")
    for hw in hwdecs:
        r["dec_" + hw] = vf(f"decode only hwdec={hw}", "identity", "null", ["--hwdec", hw])
        r["nsobel_" + hw] = vf(f"sobel null hwdec={hw}", "sobel=planes=all:rest=copy", "null", ["--hwdec", hw])
        r["ngauss_" + hw] = vf(f"gaussian null hwdec={hw}", "gaussian=sigma=3.2", "null", ["--hwdec", hw])
        r["ndense_" + hw] = vf(f"dense 27x27 null hwdec={hw}", DENSE27, "null", ["--hwdec", hw])

    print("\ntargets (ratios of sustained fps):")
    ratios = {}
    for hw in hwdecs:
        ratios[f"1 sobel/identity hwdec={hw} (>=0.97)"] = r["sobel_" + hw]["fps"] / r["id_" + hw]["fps"]
        ratios[f"1 gaussian/identity hwdec={hw} (>=0.97)"] = r["gauss_" + hw]["fps"] / r["id_" + hw]["fps"]
        ratios[f"2 sobel vs ffmpeg -vf sobel hwdec={hw} (>=1.5)"] = r["sobel_" + hw]["fps"] / r["ff_sobel"]["fps"]
        ratios[f"2 gaussian vs ffmpeg gblur hwdec={hw} (>=1.5)"] = r["gauss_" + hw]["fps"] / r["ff_gblur"]["fps"]
        ratios[f"2 sobel vs ffmpeg transcode hwdec={hw} (>=1.0)"] = r["sobel_" + hw]["fps"] / r["ff_copy"]["fps"]
        for k, n in (("nsobel_", "sobel"), ("ngauss_", "gaussian"), ("ndense_", "dense 27x27")):
            ratios[f"3 {n}->null / decode only hwdec={hw} (>=0.95)"] = r[k + hw]["fps"] / r["dec_" + hw]["fps"]
    for k, v in ratios.items():
        print(f"  {k:55s} {v:6.2f}x")
    if a.json:
        json.dump({"clip": a.clip, "frames": frames, "rows": rows, "ratios": ratios}, open(a.json, "w"), indent=2)


if __name__ == "__main__":
    main()
