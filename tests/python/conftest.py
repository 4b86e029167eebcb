"""What the Python tests share: the vfilter command beside the module (VFILTER_BIN, set by ctest)
and FFmpeg's command, to compare vfilter.apply with the command line on the same samples."""

import os
import shutil
import subprocess
import zlib

import numpy as np
import pytest


def pytest_configure(config):
    config.addinivalue_line("markers", "alone: measures the whole GPU (its free memory): ctest runs these in a test of "
                                       "their own, with no other test beside it (Python.AloneOnTheGpu)")


def vfilter_bin():
    path = os.environ.get("VFILTER_BIN") or shutil.which("vfilter")
    if not path or not os.path.exists(path):
        pytest.fail("VFILTER_BIN is not set to the vfilter command (ctest sets it)")
    return path


def run(args, **kw):
    r = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120, **kw)
    if r.returncode != 0:
        raise AssertionError(f"{' '.join(args)} exited {r.returncode}:\n{r.stdout}")
    return r


def command_line_filter(tmp_path, frames, chain, compat="vfilter"):
    """The vfilter command's output for `frames` (N x H x W, uint8 or 10-bit uint16) as a gray
    video: raw samples into FFV1 (lossless), through `vfilter -f CHAIN --codec ffv1`, and back."""
    n, h, w = frames.shape
    fmt = "gray" if frames.dtype == np.uint8 else "gray10le"
    raw_in, clip, out, raw_out = (tmp_path / x for x in ("in.raw", "in.mkv", "out.mkv", "out.raw"))
    for p in (clip, out, raw_out):
        if p.exists():
            p.unlink()
    frames.astype(frames.dtype.newbyteorder("<"), copy=False).tofile(raw_in)
    run(["ffmpeg", "-nostdin", "-v", "error", "-f", "rawvideo", "-pix_fmt", fmt, "-s", f"{w}x{h}", "-r", "25",
         "-i", str(raw_in), "-c:v", "ffv1", str(clip)])
    args = [vfilter_bin(), "-i", str(clip), "-f", chain, "--codec", "ffv1", "-o", str(out), "-q", "--no-progress",
            "--device", "cpu"]  # apply's NumPy path is the CPU backend: compare like with like
    if compat != "vfilter":
        args += ["--compat", compat]
    run(args)
    run(["ffmpeg", "-nostdin", "-v", "error", "-i", str(out), "-f", "rawvideo", "-pix_fmt", fmt, str(raw_out)])
    got = np.fromfile(raw_out, dtype=np.uint8 if fmt == "gray" else np.dtype("<u2"))
    assert got.size == n * h * w, f"{got.size} samples back, expected {n * h * w}"
    return got.reshape(n, h, w).astype(frames.dtype)


@pytest.fixture
def rng(request):
    # Fresh data per test case, the same in every run (seeded by the case's name).
    return np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))
