from os import PathLike
from typing import Any, Dict, List, Literal, Optional, Union

import numpy as np
import numpy.typing as npt

Layout = Literal["hw", "hwc", "chw", "nhw", "nhwc", "nchw"]
Samples = Union[npt.NDArray[np.uint8], npt.NDArray[np.uint16]]

def apply(
    image: Samples,
    filter: str,
    out: Optional[Samples] = ...,
    *,
    bits: Optional[int] = ...,
    border: Optional[Literal["mirror", "replicate", "zero"]] = ...,
    layout: Optional[Layout] = ...,
    threads: int = ...,
    compat: Literal["vfilter", "ffmpeg"] = ...,
) -> Samples: ...
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
