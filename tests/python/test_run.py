"""vfilter.run: the whole pipeline from Python, its stats, and its errors."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import vfilter
from conftest import run as run_command


def clip(tmp_path, frames=30, size="160x120"):
    path = tmp_path / f"in-{frames}-{size}.mp4"
    if path.exists():
        return path
    run_command(["ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", f"testsrc2=size={size}:rate=30",
                 "-frames:v", str(frames), "-c:v", "libx264", "-pix_fmt", "yuv420p", str(path)])
    return path


def test_run_returns_the_stats(tmp_path):
    src = clip(tmp_path)
    out = tmp_path / "out.mkv"
    stats = vfilter.run(input=src, filter="sobel", output=out, codec="ffv1", device="cpu")
    assert stats["frames_out"] == 30
    assert stats["filters"] == "sobel"
    assert out.exists()


def test_run_errors_are_exceptions(tmp_path):
    with pytest.raises(OSError):
        vfilter.run(input=tmp_path / "missing.mp4", output=tmp_path / "o.mp4")
    with pytest.raises(ValueError):
        vfilter.run(input=clip(tmp_path), filter="nosuchfilter", output=tmp_path / "o.mp4")
    with pytest.raises(ValueError):
        vfilter.run(input=clip(tmp_path), output=tmp_path / "o.mp4", no_such_option=1)
    src = clip(tmp_path)
    with pytest.raises(OSError):  # the output exists: never overwritten unless asked
        vfilter.run(input=src, output=src)


def test_options_of_the_process_are_refused_naming_where_they_are_set(tmp_path):
    stats = tmp_path / "s.json"
    with pytest.raises(ValueError, match="field 'stats-json' belongs to the process.*vfilter.run returns it"):
        vfilter.run(output="null", frames=3, stats_json=stats)
    assert not stats.exists()
    with pytest.raises(ValueError, match="field 'metrics-port' belongs to the process"):
        vfilter.run(output="null", frames=3, metrics_port=0)
    with pytest.raises(ValueError, match="field 'quiet' belongs to the process"):
        vfilter.Frames(frames=3, quiet=True)
    assert vfilter.run(output="null", frames=3)["frames_out"] == 3


def test_ctrl_c_finishes_the_output(tmp_path):
    src = clip(tmp_path, frames=300)
    out = tmp_path / "out.mp4"
    script = textwrap.dedent(f"""
        import vfilter
        try:
            vfilter.run(input={str(src)!r}, filter="sobel", output={str(out)!r}, realtime=True, device="cpu")
        except KeyboardInterrupt:
            print("interrupted", flush=True)
    """)
    p = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         env=dict(os.environ))
    deadline = time.time() + 60
    partial = str(out) + ".partial"
    while not os.path.exists(partial) and time.time() < deadline:
        time.sleep(0.05)
    time.sleep(1.5)
    p.send_signal(signal.SIGINT)
    text, _ = p.communicate(timeout=60)
    assert p.returncode == 0, text
    assert "interrupted" in text
    assert out.exists() and not os.path.exists(partial)
    r = run_command(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                     "stream=nb_read_frames", "-of", "csv=p=0", str(out)])
    assert 10 < int(r.stdout.strip()) < 300
