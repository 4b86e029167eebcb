"""The GPU path's plumbing that runs without a GPU: plane addresses from shapes and strides (the
same planes as the NumPy path's views), DLPack capsules read, streams named every way the docs
allow, and GPU arrays refused with the documented exceptions where they cannot be filtered."""

import numpy as np
import pytest

import vfilter
from vfilter import _layout_of, _planes, _stream_handle, _vfilter


def _plane_offsets(shape, strides, layout):
    return _vfilter.plane_spans(tuple(shape), tuple(strides), layout)


@pytest.mark.parametrize("shape,layout", [
    ((7, 9), "hw"), ((7, 9, 3), "hwc"), ((3, 7, 9), "chw"), ((4, 7, 9), "nhw"), ((2, 7, 9, 3), "nhwc"),
    ((2, 3, 7, 9), "nchw")])
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16])
def test_plane_addresses_are_the_views_of_the_numpy_path(shape, layout, dtype):
    a = np.zeros(shape, dtype)
    base = a.__array_interface__["data"][0]
    views = _planes(a, _layout_of(a.shape, layout))
    offsets = _plane_offsets(a.shape, a.strides, layout)
    assert len(offsets) == len(views)
    for (off, pitch, w, h, step), v in zip(offsets, views):
        assert base + off == v.__array_interface__["data"][0]
        assert (pitch, step, w, h) == (v.strides[0], v.strides[1], v.shape[1], v.shape[0])


def test_plane_addresses_of_a_strided_view():
    a = np.zeros((2, 20, 30, 4), np.uint8)[:, ::2, 1::3, :3]  # every other row, every third pixel
    views = _planes(a, "nhwc")
    base = a.__array_interface__["data"][0]
    for (off, pitch, w, h, step), v in zip(_plane_offsets(a.shape, a.strides, "nhwc"), views):
        assert base + off == v.__array_interface__["data"][0] and (pitch, step) == v.strides


def test_dlpack_capsules_are_read():
    a = np.arange(5 * 6, dtype=np.uint16).reshape(5, 6)[:, 1:]
    info = vfilter._vfilter.dlpack_info(a.__dlpack__())
    assert info["device_type"] == 1  # the CPU
    assert info["ptr"] == a.__array_interface__["data"][0]
    assert info["shape"] == (5, 5)
    assert info["strides"] == (6, 1)  # elements, as DLPack counts them
    assert (info["code"], info["bits"], info["lanes"]) == (1, 16, 1)


class Stream:
    def __init__(self, **attrs):
        self.__dict__.update(attrs)


def test_streams_are_named_every_documented_way():
    image = object()
    assert _stream_handle(None, image) == 0
    assert _stream_handle(12345, image) == 12345
    assert _stream_handle(Stream(cuda_stream=7), image) == 7  # torch.cuda.Stream
    assert _stream_handle(Stream(ptr=8), image) == 8  # cupy.cuda.Stream

    class Protocol:
        def __cuda_stream__(self):
            return (0, 9)

    assert _stream_handle(Protocol(), image) == 9
    for bad in ("stream", 1.5, True, Stream(name="x")):
        with pytest.raises(TypeError):
            _stream_handle(bad, image)


class FakeGpuArray:
    """Claims GPU memory (the address is a host array's): what a GPU array looks like to apply."""

    def __init__(self, shape, typestr="|u1", readonly=False, strides=None):
        self.host = np.zeros(shape, np.uint8 if typestr[-1] == "1" else np.uint16)
        self.__cuda_array_interface__ = {
            "shape": shape, "typestr": typestr, "strides": strides, "version": 3,
            "data": (self.host.__array_interface__["data"][0], readonly)}


@pytest.mark.parametrize("call,error", [
    (lambda: vfilter.apply(FakeGpuArray((8, 8), "<f4"), "sobel", out=FakeGpuArray((8, 8))), TypeError),
    (lambda: vfilter.apply(FakeGpuArray((8, 8), "<i2"), "sobel", out=FakeGpuArray((8, 8))), TypeError),
    (lambda: vfilter.apply(FakeGpuArray((8, 8)), "sobel"), TypeError),  # no kind to make the result of
    (lambda: vfilter.apply(FakeGpuArray((8, 8)), "sobel", out=np.zeros((8, 8), np.uint8)), TypeError),
    (lambda: vfilter.apply(FakeGpuArray((8, 8)), "sobel", out=FakeGpuArray((8, 9))), ValueError),
    (lambda: vfilter.apply(FakeGpuArray((8, 8)), "sobel", out=FakeGpuArray((8, 8), readonly=True)), ValueError),
    (lambda: vfilter.apply(FakeGpuArray((8, 8)), "sobel", bits=10, out=FakeGpuArray((8, 8))), ValueError),
    (lambda: vfilter.apply(FakeGpuArray((8, 8)), "sobel", stream="s", out=FakeGpuArray((8, 8))), TypeError),
    (lambda: vfilter.apply(FakeGpuArray((8, 8), strides=(-8, 1)), "sobel", out=FakeGpuArray((8, 8))), ValueError),
    (lambda: vfilter.apply(FakeGpuArray((0, 8)), "sobel", out=FakeGpuArray((0, 8))), ValueError),
    (lambda: vfilter.apply(FakeGpuArray((8, 8)), 3, out=FakeGpuArray((8, 8))), TypeError),
])
def test_bad_gpu_arguments_raise_the_documented_errors(call, error):
    with pytest.raises(error):
        call()


def test_overlapping_out_is_refused():
    a = FakeGpuArray((8, 8))
    with pytest.raises(ValueError, match="overlaps"):
        vfilter.apply(a, "sobel", out=a)


def test_host_memory_posing_as_gpu_memory_is_refused_without_a_crash():
    # Without CUDA in the build: RuntimeError; with CUDA: the address is not GPU memory, ValueError.
    with pytest.raises((RuntimeError, ValueError)) as e:
        vfilter.apply(FakeGpuArray((8, 8)), "sobel", out=FakeGpuArray((8, 8)))
    assert "CUDA" in str(e.value) or "GPU memory" in str(e.value)
