from os import PathLike
from typing import Any, Dict, List, Literal, Optional, Tuple, TypeVar, Union

import numpy as np
import numpy.typing as npt

Layout = Literal["hw", "hwc", "chw", "nhw", "nhwc", "nchw"]
Samples = Union[npt.NDArray[np.uint8], npt.NDArray[np.uint16]]
# A GPU array: a torch.Tensor or cupy.ndarray on the GPU, or any object with
# __cuda_array_interface__ or __dlpack__ in GPU memory. The result has the input's kind.
GpuArray = Any
Image = TypeVar("Image")

def apply(
    image: Image,
    filter: str,
    out: Optional[Image] = ...,
    *,
    bits: Optional[int] = ...,
    border: Optional[Literal["mirror", "replicate", "zero", "ffmpeg"]] = ...,
    layout: Optional[Layout] = ...,
    threads: int = ...,
    compat: Literal["vfilter", "ffmpeg"] = ...,
    stream: Optional[Any] = ...,
    alpha: bool = ...,
    t: Optional[float] = ...,
    n: Optional[int] = ...,
    pos: Optional[int] = ...,
) -> Image: ...
def clear_cache() -> None: ...
def compile(
    filter: str,
    *,
    border: Optional[Literal["mirror", "replicate", "zero", "ffmpeg"]] = ...,
    compat: Literal["vfilter", "ffmpeg"] = ...,
) -> "Chain": ...

class Chain:
    """A filter chain compiled once (vfilter.compile); calling it filters as apply does."""
    @property
    def text(self) -> str: ...
    @property
    def timed(self) -> bool: ...
    def __call__(
        self,
        image: Image,
        out: Optional[Image] = ...,
        *,
        bits: Optional[int] = ...,
        layout: Optional[Layout] = ...,
        threads: int = ...,
        stream: Optional[Any] = ...,
        alpha: bool = ...,
        t: Optional[float] = ...,
        n: Optional[int] = ...,
        pos: Optional[int] = ...,
    ) -> Image: ...

def cuda_available() -> bool: ...

class DevicePlane:
    """One plane of a frame in GPU memory (Frames(device="cuda")), read in place by
    torch.as_tensor(plane, device="cuda"), torch.from_dlpack(plane) and cupy.asarray(plane)."""
    @property
    def shape(self) -> Tuple[int, ...]: ...
    @property
    def dtype(self) -> str: ...
    @property
    def device(self) -> int: ...
    @property
    def ptr(self) -> int: ...
    @property
    def __cuda_array_interface__(self) -> Dict[str, Any]: ...
    def __dlpack__(self, stream: Optional[int] = ..., **kwargs: Any) -> Any: ...
    def __dlpack_device__(self) -> Tuple[int, int]: ...

def filters() -> List[Dict[str, Any]]: ...
def run(
    input: Union[str, PathLike[str]] = ...,
    filter: str = ...,
    output: Union[str, PathLike[str]] = ...,
    **options: Any,
) -> Dict[str, Any]: ...

class Frames:
    def __init__(self, input: Union[str, PathLike[str]] = ..., filter: str = ..., **options: Any) -> None: ...
    def __iter__(self) -> "Frames": ...
    def __next__(self) -> Dict[str, Any]: ...
    def stats(self) -> Optional[Dict[str, Any]]: ...
    def close(self) -> None: ...
    def __enter__(self) -> "Frames": ...
    def __exit__(self, *exc: Any) -> bool: ...
