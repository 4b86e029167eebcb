"""vfilter from Python: the filters of the vfilter command on NumPy images, and whole runs.

    import numpy as np, vfilter
    edges = vfilter.apply(gray, "sobel")                    # H x W uint8
    soft = vfilter.apply(rgb, "gaussian=sigma=2")            # H x W x C, every channel
    stats = vfilter.run(input="cam.mp4", filter="sobel", output="out.mp4")
    for frame in vfilter.Frames("rtsp://cam/stream", filter="sobel"):
        y = frame["planes"][0]                               # NumPy, with frame["pts"] in seconds

Each channel of an image is filtered as the command line filters a gray frame (with the filter's
first-plane operation), so results equal the command's output on the same samples, bit for bit.
Errors: a bad filter string or argument raises ValueError; an input or output that cannot be read
or written, OSError; anything else from vfilter, RuntimeError. docs/python.md.
"""

from __future__ import annotations

import os
from typing import Any, Dict, List, Optional

import numpy as np

from . import _vfilter

__all__ = ["apply", "filters", "run", "Frames"]

_LAYOUTS = ("hw", "hwc", "chw", "nhw", "nhwc", "nchw")


def _layout_of(shape, layout: Optional[str]) -> str:
    if layout is not None:
        if layout not in _LAYOUTS:
            raise ValueError(f"layout '{layout}': use one of {', '.join(_LAYOUTS)}")
        if len(layout) != len(shape):
            raise ValueError(f"layout '{layout}' needs {len(layout)} dimensions, the image has {len(shape)}")
        return layout
    if len(shape) == 2:
        return "hw"
    if len(shape) == 3:
        # Channels last unless the last axis cannot be channels and the first can.
        if shape[2] <= 4:
            return "hwc"
        if shape[0] <= 4:
            return "chw"
        raise ValueError(f"shape {tuple(shape)}: which axis holds the channels? pass layout='nhw' for a batch")
    if len(shape) == 4:
        if shape[3] <= 4:
            return "nhwc"
        if shape[1] <= 4:
            return "nchw"
        raise ValueError(f"shape {tuple(shape)}: pass layout='nhwc' or 'nchw'")
    raise ValueError(f"an image has 2 to 4 dimensions (H x W, with channels, in a batch), not {len(shape)}")


def _planes(a: np.ndarray, layout: str) -> List[np.ndarray]:
    """Every 2-D plane of `a` as a view (no copy)."""
    if layout == "hw":
        return [a]
    if layout == "hwc":
        return [a[:, :, c] for c in range(a.shape[2])]
    if layout == "chw":
        return [a[c] for c in range(a.shape[0])]
    if layout == "nhw":
        return [a[n] for n in range(a.shape[0])]
    if layout == "nhwc":
        return [a[n, :, :, c] for n in range(a.shape[0]) for c in range(a.shape[3])]
    return [a[n, c] for n in range(a.shape[0]) for c in range(a.shape[1])]


def _has_plain_strides(a: np.ndarray) -> bool:
    return a.ndim >= 2 and all(s > 0 and s % a.itemsize == 0 for s in a.strides)


def apply(image, filter: str, out=None, *, bits: Optional[int] = None, border: Optional[str] = None,
          layout: Optional[str] = None, threads: int = 0, compat: str = "vfilter"):
    """Filters `image` with a vfilter filter string and returns the result.

    image: a NumPy array of uint8 samples (8-bit) or uint16 samples holding 10-bit values
        (0 to 1023, in the low bits, as 10-bit video is stored), shaped H x W, H x W x C,
        C x H x W, or a batch N x H x W, N x H x W x C, N x C x H x W (`layout` says which when
        the shape does not).
    filter: a chain as on the command line ("gaussian=sigma=2,sobel"; vfilter --list-filters).
    bits: the samples' depth: 8 for uint8, 10 for uint16 (the depths vfilter filters).
    out: an array of the same shape and dtype to write into (not overlapping `image`), or None
        for a new one.
    border: mirror (default of most filters), replicate or zero, for every filter of the chain.
    threads: CPU threads (0: one per core).
    compat: "vfilter" or "ffmpeg" (FFmpeg's defaults for the filter strings, as --compat ffmpeg).
    """
    if hasattr(image, "__cuda_array_interface__") or (hasattr(image, "__dlpack__") and not isinstance(image, np.ndarray)):
        raise TypeError("GPU tensors are not supported yet by this vfilter module: pass a NumPy array "
                        "(tensor.cpu().numpy())")
    if not isinstance(image, np.ndarray):
        raise TypeError(f"image must be a NumPy array, not {type(image).__name__}")
    if image.dtype not in (np.uint8, np.uint16):
        raise TypeError(f"image dtype {image.dtype}: vfilter filters uint8 and uint16 samples")
    if not isinstance(filter, str):
        raise TypeError("filter must be a string such as 'sobel' or 'gaussian=sigma=2'")
    if compat not in ("vfilter", "ffmpeg"):
        raise ValueError(f"compat '{compat}': use vfilter or ffmpeg")
    if bits is None:
        bits = 8 if image.dtype == np.uint8 else 10
    if bits != (8 if image.dtype == np.uint8 else 10):
        raise ValueError(f"bits={bits} with {image.dtype} samples: vfilter filters uint8 as 8-bit and uint16 as 10-bit")
    if bits == 10 and image.size and int(image.max()) > 1023:
        raise ValueError("10-bit samples run from 0 to 1023; this image holds larger values")
    lay = _layout_of(image.shape, layout)
    if min(image.shape[lay.index("h")], image.shape[lay.index("w")]) < 1:
        raise ValueError(f"shape {image.shape}: the image is empty")
    src = image if _has_plain_strides(image) else np.ascontiguousarray(image)
    if out is None:
        result = np.empty_like(src, order="C")
    else:
        if not isinstance(out, np.ndarray):
            raise TypeError("out must be a NumPy array")
        if out.shape != image.shape or out.dtype != image.dtype:
            raise ValueError(f"out must have the image's shape {image.shape} and dtype {image.dtype}")
        if np.shares_memory(out, image):
            raise ValueError("out overlaps the image: filtering in place is not supported")
        if not _has_plain_strides(out):
            raise ValueError("out must have positive strides in whole samples")
        result = out
    _vfilter.apply_planes(_planes(src, lay), _planes(result, lay), filter, bits, border or "", threads,
                          compat == "ffmpeg")
    return result


def filters() -> List[Dict[str, Any]]:
    """The filter table: each filter's name, help and options (type, default, range, help)."""
    return _vfilter.filters()


def run(input: str = "", filter: str = "identity", output: str = "null", **options) -> Dict[str, Any]:
    """Runs the whole pipeline, as `vfilter -i INPUT -f FILTER -o OUTPUT --OPTION VALUE ...` would,
    and returns its stats (the --stats-json object). Options are the command line's long options
    with '_' for '-' (codec="libx264", crf=20, device="cpu", overwrite=True). Ctrl-C finishes the
    output, as the first Ctrl-C does on the command line, and raises KeyboardInterrupt."""
    fields = _fields(input, filter, options)
    fields["output"] = os.fspath(output)
    return _vfilter.run(fields)


def _fields(input, filter, options):
    fields = {"filter": filter, "input": os.fspath(input)}  # "": the built-in test pattern
    for key, value in options.items():
        if isinstance(value, bool):
            value = "true" if value else "false"
        fields[key.replace("_", "-")] = os.fspath(value) if isinstance(value, os.PathLike) else str(value)
    return fields


class Frames:
    """The filtered frames of any input the command line reads (a file, an RTSP/RTMP/SRT camera,
    a capture device; none: the built-in test pattern), one dict a frame:

        {"planes": [Y, U, V] NumPy arrays (H x W; nv12's chroma as H/2 x W/2 x 2; uint16 above
         8 bits), "format": "yuv420p", "width": W, "height": H, "pts": seconds, "index": n}

    Options are the command line's (as for run): device="cpu", hwdec="auto", realtime=True,
    frames=100 (the test pattern's length), reconnect_max=..., and so on. Live inputs reconnect
    as on the command line. Leaving the loop early (break, an exception) and close() stop the
    source and its threads; use it as a context manager to close at once. Ctrl-C while waiting
    for a frame closes it and raises KeyboardInterrupt. After the last frame, stats() holds the
    run's stats (None before)."""

    def __init__(self, input: str = "", filter: str = "identity", **options):
        self._reader = _vfilter.FrameReader(_fields(input, filter, options))

    def __iter__(self):
        return self

    def __next__(self) -> Dict[str, Any]:
        if self._reader is None:
            raise StopIteration
        frame = self._reader.next()
        if frame is None:
            raise StopIteration
        return frame

    def stats(self) -> Optional[Dict[str, Any]]:
        return None if self._reader is None else self._reader.stats()

    def close(self) -> None:
        if self._reader is not None:
            self._reader.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

