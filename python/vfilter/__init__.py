"""vfilter from Python: the filters of the vfilter command on NumPy images and on GPU tensors
(PyTorch, CuPy: in place, no copies), and whole runs.

    import numpy as np, vfilter
    edges = vfilter.apply(gray, "sobel")                    # H x W uint8, on the CPU
    sobel = vfilter.compile("sobel"); edges = sobel(gray)    # compiled once, called per frame
    soft = vfilter.apply(rgb, "gaussian=sigma=2")            # H x W x C, every channel
    batch = vfilter.apply(frames_cuda, "sobel")              # a torch/CuPy tensor: on its GPU
    stats = vfilter.run(input="cam.mp4", filter="sobel", output="out.mp4")
    for frame in vfilter.Frames("rtsp://cam/stream", filter="sobel"):
        y = frame["planes"][0]                               # NumPy, with frame["pts"] in seconds
    for frame in vfilter.Frames("cam.mp4", filter="sobel", device="cuda", hwdec="cuda"):
        y = torch.as_tensor(frame["planes"][0], device="cuda")   # GPU memory, no copy

Each channel of an image is filtered as the command line filters a gray frame (with the filter's
first-plane operation), so results equal the command's output on the same samples, bit for bit.
Errors: a bad filter string or argument raises ValueError; an input or output that cannot be read
or written, OSError; anything else from vfilter, RuntimeError. docs/python.md.
"""

from __future__ import annotations

import functools
import numbers
import os
from typing import Any, Dict, List, Optional

import numpy as np

from . import _vfilter

__all__ = ["apply", "compile", "clear_cache", "Chain", "filters", "run", "Frames", "DevicePlane", "cuda_available"]

DevicePlane = _vfilter.DevicePlane

_LAYOUTS = ("hw", "hwc", "chw", "nhw", "nhwc", "nchw")


def _layout_of(shape, layout: Optional[str]) -> str:
    """The layout `layout` names, checked against the shape, or the one the shape implies."""
    return _vfilter.layout_of(tuple(shape), layout)


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


def cuda_available() -> bool:
    """True when this module was built with vfilter's CUDA backend (GPU tensors can be filtered)."""
    return _vfilter.built_with_cuda()


def _has_plain_strides(a: np.ndarray) -> bool:
    return a.ndim >= 2 and all(s > 0 and s % a.itemsize == 0 for s in a.strides)


def apply(image, filter: str, out=None, *, bits: Optional[int] = None, border: Optional[str] = None,
          layout: Optional[str] = None, threads: int = 0, compat: str = "vfilter", stream=None, alpha: bool = False,
          t: Optional[float] = None, n: Optional[int] = None, pos: Optional[int] = None):
    """Filters `image` with a vfilter filter string and returns the result.

    image: a NumPy array (filtered on the CPU) or a GPU tensor: a PyTorch or CuPy tensor, or any
        object with __cuda_array_interface__ or __dlpack__ in GPU memory (filtered on its GPU, in
        place: no copies, on `stream`, and nothing waits for the GPU). Samples are uint8 (8-bit)
        or uint16 holding 10-bit values (0 to 1023, in the low bits, as 10-bit video is stored),
        shaped H x W, H x W x C, C x H x W, or a batch N x H x W, N x H x W x C, N x C x H x W
        (`layout` says which when the shape does not). On the GPU all planes of a call go through
        batched launches (one launch per filter for up to 16 planes).
    filter: a chain as on the command line ("gaussian=sigma=2,sobel"; vfilter --list-filters).
    bits: the samples' depth: 8 for uint8, 10 for uint16 (the depths vfilter filters).
    out: an array of the same shape and dtype to write into (not overlapping `image`), or None
        for a new one.
    border: mirror (default of most filters), replicate or zero, for every filter of the chain;
        ffmpeg: FFmpeg 5.1's edge (border=ffmpeg on the command line), for chains of the filters
        that take it (sobel, prewitt, scharr, roberts, kirsch, convolution).
    threads: CPU threads (0: one per core).
    compat: "vfilter" or "ffmpeg" (FFmpeg's defaults for the filter strings, as --compat ffmpeg).
    stream: GPU tensors only: the CUDA stream to run on (a torch.cuda.Stream, a CuPy stream, an
        object with __cuda_stream__, or a cudaStream_t as an int); None: the tensor library's
        current stream (PyTorch's, CuPy's), else the default stream. The call returns once the
        work is queued; the result is ready in stream order, as any PyTorch or CuPy operation's.
    alpha: the image's last channel is alpha (RGBA: H x W x 4): copied unchanged, the others
        filtered. False: every channel is filtered.
    t, n, pos: where the image is in its video, for FFmpeg's timeline editing (a filter with
        enable='between(t,1,2)' applies only where its expression holds, else passes the image
        unchanged): t its time in seconds, n its frame number from 0, pos its byte offset. A chain
        with enable= needs t or n (ValueError otherwise); what is not given is NaN (n: 0), as
        FFmpeg has it for an unknown value. Chains without enable= ignore them.
    """
    return compile(filter, border=border, compat=compat)(image, out, bits=bits, layout=layout, threads=threads,
                                                         stream=stream, alpha=alpha, t=t, n=n, pos=pos)


def compile(filter: str, *, border: Optional[str] = None, compat: str = "vfilter") -> "Chain":
    """The filter string compiled once into a callable Chain: chain(image, out=None, *, bits=None,
    layout=None, threads=0, stream=None, alpha=False, t=None, n=None, pos=None) filters as
    apply(image, filter, ...) does, without reading
    the string again; plans for each image size and the GPU's prepared kernels are kept inside it.
    Chains of the same string, border and compat are shared (the last few made)."""
    if not isinstance(filter, str):
        raise TypeError("filter must be a string such as 'sobel' or 'gaussian=sigma=2'")
    if compat not in ("vfilter", "ffmpeg"):
        raise ValueError(f"compat '{compat}': use vfilter or ffmpeg")
    if border is not None and not isinstance(border, str):
        raise TypeError("border must be mirror, replicate, zero or ffmpeg")
    return _compiled(filter, border or "", compat == "ffmpeg")


@functools.lru_cache(maxsize=16)
def _compiled(filter: str, border: str, ffmpeg: bool) -> "Chain":
    return Chain(_vfilter.Chain(filter, border, ffmpeg))


def clear_cache() -> None:
    """Forgets the last compiled chains kept for apply() and compile(): once the caller's chains
    and jobs are gone too, the module's GPU memory is given back."""
    _compiled.cache_clear()


class Chain:
    """A compiled filter chain (vfilter.compile): call it on a NumPy array or a GPU tensor."""

    __slots__ = ("_native",)

    def __init__(self, native):
        self._native = native

    @property
    def text(self) -> str:
        """The filter string it was compiled from."""
        return self._native.text

    @property
    def timed(self) -> bool:
        """True when a filter of the chain has enable= (each call then needs t= or n=)."""
        return self._native.timed

    def __repr__(self) -> str:
        return f"vfilter.Chain({self._native.text!r})"

    def __call__(self, image, out=None, *, bits: Optional[int] = None, layout: Optional[str] = None, threads: int = 0,
                 stream=None, alpha: bool = False, t: Optional[float] = None, n: Optional[int] = None,
                 pos: Optional[int] = None):
        when = _moment(t, n, pos)
        if alpha:
            return self._with_alpha(image, out, bits, layout, threads, stream, when)
        native = self._native
        if not isinstance(image, np.ndarray):
            if stream is None and type(image).__module__ == "torch" and getattr(image, "is_cuda", False):
                handle = None  # PyTorch's current stream, read natively with the tensor
            elif _on_gpu(image):
                handle = None if stream is None and _library_of(image) == "torch" else _stream_handle(stream, image)
            else:
                raise TypeError(f"image must be a NumPy array or a GPU tensor (PyTorch, CuPy, any DLPack array on "
                                f"the GPU), not {type(image).__name__}" +
                                ("; for a tensor on the CPU pass tensor.numpy()" if hasattr(image, "__dlpack__") else ""))
            if out is None:
                out = _new_like(image, handle)
            native.apply_gpu(image, out, bits, layout, handle, **when)  # read, checked and queued in one native step
            return out
        if image.dtype not in (np.uint8, np.uint16):
            raise TypeError(f"image dtype {image.dtype}: vfilter filters uint8 and uint16 samples")
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
        native.apply_planes(_planes(src, lay), _planes(result, lay), bits, threads, **when)
        return result

    def _with_alpha(self, image, out, bits, layout, threads, stream, when):
        """The colour channels filtered, the last one (alpha) copied: both through vfilter, so a
        GPU tensor's copy runs on the same stream as its filtering."""
        lay = _layout_of(image.shape, layout)
        axis = lay.find("c")
        if axis < 0 or image.shape[axis] < 2:
            raise ValueError(f"alpha=True: shape {tuple(image.shape)} ({lay}) has no channels to hold colour and alpha")
        if isinstance(image, np.ndarray) and out is not None and not isinstance(out, np.ndarray):
            raise TypeError("out must be a NumPy array")
        if out is None and isinstance(image, np.ndarray):
            out = np.empty_like(image, order="C")
        elif out is None:
            out = _new_like(image, None if stream is None else _stream_handle(stream, image))
        colour = tuple(slice(0, -1) if a == axis else slice(None) for a in range(len(lay)))
        last = tuple(slice(-1, None) if a == axis else slice(None) for a in range(len(lay)))
        self(image[colour], out[colour], bits=bits, layout=lay, threads=threads, stream=stream, **when)
        _compiled("identity", "", False)(image[last], out[last], bits=bits, layout=lay, threads=threads, stream=stream)
        return out


def _moment(t, n, pos) -> Dict[str, Any]:
    """A call's t, n and pos (enable=) checked: numbers, n and pos whole; None where not given."""
    for name, value in (("t", t), ("n", n), ("pos", pos)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, numbers.Real)):
            raise TypeError(f"{name} must be a number, not {type(value).__name__}")
    for name, value in (("n", n), ("pos", pos)):
        if value is not None and not isinstance(value, numbers.Integral):
            raise TypeError(f"{name} must be a whole number (int), not {type(value).__name__}")
    return {"t": None if t is None else float(t), "n": None if n is None else int(n),
            "pos": None if pos is None else float(pos)}


def _on_gpu(obj) -> bool:
    if type(obj).__module__ == "torch":  # a torch tensor's device, without building its array interface
        is_cuda = getattr(obj, "is_cuda", None)
        if is_cuda is not None:
            return bool(is_cuda)
    if hasattr(obj, "__cuda_array_interface__"):
        return True
    if hasattr(obj, "__dlpack_device__"):
        try:
            return obj.__dlpack_device__()[0] in (_DL_CUDA, _DL_CUDA_MANAGED)
        except Exception:
            return False
    return False


_DL_CUDA, _DL_CUDA_MANAGED = 2, 13


def _library_of(obj) -> str:
    return type(obj).__module__.split(".")[0]


def _stream_handle(stream, image) -> int:
    """The cudaStream_t to run on, as a number."""
    if stream is None:
        lib = _library_of(image)
        if lib == "torch":
            return _vfilter.torch_current_stream(image)
        if lib == "cupy":
            import cupy
            return cupy.cuda.get_current_stream().ptr
        return 0  # the default stream
    if isinstance(stream, bool):
        raise TypeError("stream must be a CUDA stream or a cudaStream_t as an int")
    if isinstance(stream, int):
        return stream
    if hasattr(stream, "__cuda_stream__"):
        return int(stream.__cuda_stream__()[1])
    for attr in ("cuda_stream", "ptr", "handle"):
        if hasattr(stream, attr):
            return int(getattr(stream, attr))
    raise TypeError(f"stream: {type(stream).__name__} is not a CUDA stream (a torch.cuda.Stream, a CuPy stream, "
                    "an object with __cuda_stream__, or an int)")


def _new_like(image, stream: Optional[int]):
    """An uninitialised tensor of the image's kind, shape and device, compact, made on `stream`
    (None: the tensor library's current stream on the image's device)."""
    lib = _library_of(image)
    if lib == "torch":
        import torch
        if stream is None:  # empty_like allocates on the image's device, ordered on its current stream
            return torch.empty_like(image, memory_format=torch.contiguous_format)
        with torch.cuda.device(image.device):
            if stream == torch.cuda.current_stream().cuda_stream:
                return torch.empty_like(image, memory_format=torch.contiguous_format)
            with torch.cuda.stream(torch.cuda.ExternalStream(stream)):
                return torch.empty_like(image, memory_format=torch.contiguous_format)
    if lib == "cupy":
        import cupy
        with image.device:
            if stream == cupy.cuda.get_current_stream().ptr:
                return cupy.empty_like(image, order="C")
            with cupy.cuda.ExternalStream(stream):
                return cupy.empty_like(image, order="C")
    raise TypeError(f"vfilter cannot make a {type(image).__name__} for the result: pass out= (a GPU array of the "
                    "image's shape and dtype)")


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
    """The options as stream fields of their own types (str, int, float, bool), read by the command
    line's option table: a number stays a number, True stays true."""
    fields = {"filter": filter, "input": os.fspath(input)}  # "": the built-in test pattern
    for key, value in options.items():
        fields[key.replace("_", "-")] = os.fspath(value) if isinstance(value, os.PathLike) else value
    return fields


class Frames:
    """The filtered frames of any input the command line reads (a file, an RTSP/RTMP/SRT camera,
    a capture device; none: the built-in test pattern), one dict a frame:

        {"planes": [Y, U, V] NumPy arrays (H x W; nv12's chroma as H/2 x W/2 x 2; uint16 above
         8 bits), "format": "yuv420p", "width": W, "height": H, "pts": seconds, "index": n}

    With device="cuda" the frames stay in GPU memory: the planes are DevicePlane objects, which
    torch.as_tensor(plane, device="cuda"), torch.from_dlpack(plane) and cupy.asarray(plane) read
    in place (each frame's memory lives while any of them does). With hwdec="cuda" too, no
    frame passes through host memory at all.

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

