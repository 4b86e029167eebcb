"""The soak's `--heaptrack FILE`: serve's live heap over the run, from heaptrack (Debian's
`heaptrack` package), to tell memory serve still holds from pages the allocator keeps.

serve runs with heaptrack's preload library (same PID, so the soak's own samples still read it);
its raw record goes gzipped to FILE.raw.gz. Afterwards the record is interpreted into FILE
(open it with `heaptrack --analyze FILE`), its heap consumption over time is read from
heaptrack_print's massif output, and the per-minute medians, a least-squares fit after the
warm-up, the peak and what was still allocated at exit are reported. The run is slower under
heaptrack (every allocation is recorded), so its RSS figures are not the soak's verdict.
"""

import os
import re
import shutil
import subprocess
import tempfile

PRELOAD_DIRS = ["/usr/lib/heaptrack", "/usr/lib/x86_64-linux-gnu/heaptrack", "/usr/lib/aarch64-linux-gnu/heaptrack"]


def preload_library():
    for d in PRELOAD_DIRS:
        path = os.path.join(d, "libheaptrack_preload.so")
        if os.path.exists(path):
            return path
    return None


def start(out_file):
    """Returns (environment for serve, the gzip process writing FILE.raw.gz), or raises SystemExit."""
    lib = preload_library()
    if not lib or not shutil.which("heaptrack_print"):
        raise SystemExit("soak: --heaptrack needs heaptrack (apt install heaptrack)")
    fifo = os.path.join(tempfile.mkdtemp(prefix="vfilter-heaptrack-"), "record")
    os.mkfifo(fifo)
    raw = open(out_file + ".raw.gz", "wb")
    # gzip opens the fifo for reading; it blocks until serve opens it for writing, and ends at its exit.
    gzip = subprocess.Popen(["sh", "-c", 'exec gzip -1 < "$0"', fifo], stdout=raw)
    env = dict(os.environ, LD_PRELOAD=lib, DUMP_HEAPTRACK_OUTPUT=fifo)
    return env, gzip


def interpreter(lib):
    return os.path.join(os.path.dirname(lib), "libexec", "heaptrack_interpret")


def heap_over_time(massif_path):
    """(seconds, heap bytes) of every snapshot heaptrack_print's massif output holds."""
    series, t = [], None
    with open(massif_path) as f:
        for line in f:
            if line.startswith("time="):
                t = float(line[5:])
            elif line.startswith("mem_heap_B=") and t is not None:
                series.append((t, int(line[11:])))
    return series


def finish(out_file, gzip, warmup_s, slope_per_hour):
    """Interprets the record into FILE and returns the heap's report (a dict), after serve ended;
    slope_per_hour(samples, key) is the soak's own least-squares fit."""
    try:
        gzip.wait(timeout=120)
    except subprocess.TimeoutExpired:  # serve never opened the record (it did not start)
        gzip.kill()
        gzip.wait()
    raw = out_file + ".raw.gz"
    with open(out_file, "wb") as out:
        unzip = subprocess.Popen(["gzip", "-dc", raw], stdout=subprocess.PIPE)
        interp = subprocess.Popen([interpreter(preload_library())], stdin=unzip.stdout, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL)
        unzip.stdout.close()
        zipper = subprocess.Popen(["gzip", "-1"], stdin=interp.stdout, stdout=out)
        interp.stdout.close()
        zipper.wait()
        interp.wait()
    massif = out_file + ".massif"
    summary = subprocess.run(["heaptrack_print", "-f", out_file, "-p", "0", "-a", "0", "-T", "0", "-l", "0", "-M", massif],
                             capture_output=True, text=True).stdout
    leaked = re.search(r"total memory leaked: (\S+)", summary)
    series = heap_over_time(massif)
    by_minute = {}
    for t, b in series:
        by_minute.setdefault(int(t // 60), []).append(b / 2**20)
    medians = [(m, sorted(v)[len(v) // 2]) for m, v in sorted(by_minute.items())]
    steady = [{"t": t, "heap_mib": b / 2**20} for t, b in series if t >= warmup_s]
    return {
        "file": out_file,
        "minute_median_mib": [[m, round(v, 2)] for m, v in medians],
        "fit_mib_per_hour": round(slope_per_hour(steady, "heap_mib"), 2),
        "peak_mib": round(max((b for _, b in series), default=0) / 2**20, 2),
        "leaked_at_exit": leaked.group(1) if leaked else "?",
    }


def print_report(heap):
    first, last = heap["minute_median_mib"][0][1], heap["minute_median_mib"][-1][1]
    print(f"  heap (heaptrack, {heap['file']}): per-minute median {first} -> {last} MiB, peak {heap['peak_mib']} MiB, "
          f"fit after warm-up {heap['fit_mib_per_hour']:+} MiB/h, still allocated at exit {heap['leaked_at_exit']}")
