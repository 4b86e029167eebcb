"""vfilter on GPU tensors (the GPU machine: PyTorch and CuPy with a GPU; skipped elsewhere, with the
reason): apply on torch and CuPy tensors equals the NumPy path exactly, in place (no copies), on
the caller's stream with nothing waiting for the GPU; Frames on the GPU yields planes in device
memory, equal to the CPU run's, that torch and CuPy read where they lie."""

import os
import time

import numpy as np
import pytest

import vfilter
from test_apply import CHAINS

torch = pytest.importorskip("torch", reason="PyTorch is not installed (the GPU machine has it)")
if not torch.cuda.is_available():
    pytest.skip("no GPU: the GPU tests run on the GPU machine", allow_module_level=True)
if not vfilter.cuda_available():
    pytest.skip("this vfilter module was built without CUDA", allow_module_level=True)


def numpy_result(image, chain, layout=None):
    return vfilter.apply(image, chain, layout=layout)


def assert_filtered_equal(got, want, chain):
    """Equal, sample for sample; for Gaussian taps (not whole numbers) the GPU's sums may round the
    other way on a few samples: within 1 on at most 1 in 1000, the rule of the GPU pipeline's own
    tests (tests/e2e/gpu_pipeline_test.cpp) and of docs/architecture.md."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype
    if not any(name in chain for name in ("gaussian", "gblur")):
        np.testing.assert_array_equal(got, want, err_msg=chain)
        return
    diff = np.abs(got.astype(np.int32) - want.astype(np.int32))
    assert diff.max() <= 1, f"{chain}: off by {diff.max()}"
    assert np.count_nonzero(diff) <= max(1, diff.size // 1000), f"{chain}: {np.count_nonzero(diff)} of {diff.size} differ"


def poisoned_like(t):
    return torch.full_like(t, 0xA5 if t.dtype == torch.uint8 else 0x3A5)


def random(rng, shape, dtype):
    return rng.integers(0, 256 if dtype == np.uint8 else 1024, size=shape, dtype=dtype)


TORCH = {np.uint8: torch.uint8, np.uint16: torch.uint16}


@pytest.mark.parametrize("chain", CHAINS)
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16])
def test_torch_equals_numpy_every_filter(rng, chain, dtype):
    image = random(rng, (37, 53), dtype)  # odd sizes
    t = torch.from_numpy(image).cuda()
    out = poisoned_like(t)
    got = vfilter.apply(t, chain, out=out)
    assert got is out
    assert_filtered_equal(out.cpu().numpy(), numpy_result(image, chain), chain)


@pytest.mark.parametrize("shape,layout", [
    ((3, 41, 67), "nhw"), ((2, 29, 31, 3), "nhwc"), ((2, 3, 29, 31), "nchw"), ((19, 23, 4), "hwc"),
    ((3, 19, 23), "chw"), ((17, 1, 33, 35), "nchw")])  # 17 planes: more than one batched launch
# (A chain after a Gaussian would carry its rare 1-off roundings on, amplified: chains here are exact.)
@pytest.mark.parametrize("chain", ["sobel", "gaussian=sigma=3", "convolution=m=1 2 1 2 4 2 1 2 1:rdiv=1/16",
                                   "box=radius=2,sharpen,emboss"])
def test_batches_and_layouts_equal_numpy(rng, shape, layout, chain):
    image = random(rng, shape, np.uint8)
    t = torch.from_numpy(image).cuda()
    got = vfilter.apply(t, chain, layout=layout)
    assert got.device == t.device and got.dtype == t.dtype and got.shape == t.shape
    assert_filtered_equal(got.cpu().numpy(), numpy_result(image, chain, layout), chain)


def test_strided_tensor_views_are_read_in_place(rng):
    image = random(rng, (2, 40, 60, 4), np.uint8)
    t = torch.from_numpy(image).cuda()[:, ::2, 1::2, :3]  # a view: no copy made by anyone
    got = vfilter.apply(t, "sobel", layout="nhwc")
    np.testing.assert_array_equal(got.cpu().numpy(), numpy_result(image[:, ::2, 1::2, :3], "sobel", "nhwc"))


def test_the_input_is_not_written_and_out_is_used_in_place(rng):
    image = random(rng, (31, 33), np.uint8)
    t = torch.from_numpy(image).cuda()
    out = poisoned_like(t)
    ptr = out.data_ptr()
    vfilter.apply(t, "gaussian=sigma=2,sobel", out=out)
    assert out.data_ptr() == ptr
    np.testing.assert_array_equal(t.cpu().numpy(), image)


def test_busy_stream_is_honoured_and_nothing_waits(rng):
    """The call is queued on the caller's stream behind a kernel that is still running: it returns
    at once, and it reads what that stream wrote after the kernel (another stream would read the
    old samples), so the result is the new samples' filtered."""
    old = random(rng, (1080, 1920), np.uint8)
    new = random(rng, (1080, 1920), np.uint8)
    t = torch.from_numpy(old).cuda()
    staged = torch.from_numpy(new).cuda()
    out = poisoned_like(t)
    vfilter.apply(t, "sobel", out=out)  # first use of the filter: its tables are made and cached
    torch.cuda.synchronize()
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        torch.cuda._sleep(2_000_000_000)  # about a second of a busy GPU on this stream
        t.copy_(staged)
        began = time.monotonic()
        vfilter.apply(t, "sobel", out=out)  # the current stream: s
        queued = time.monotonic() - began
    assert queued < 0.2, f"apply waited {queued:.3f} s for the busy stream"
    assert not s.query(), "the stream finished before the check: make the sleep longer"
    s.synchronize()
    np.testing.assert_array_equal(out.cpu().numpy(), numpy_result(new, "sobel"))
    # The same with the stream passed as an argument, as a torch stream and as a number.
    old_on_gpu = torch.from_numpy(old).cuda()
    torch.cuda.synchronize()
    for stream in (s, s.cuda_stream):
        with torch.cuda.stream(s):
            torch.cuda._sleep(2_000_000_000)
            t.copy_(old_on_gpu)
        out2 = vfilter.apply(t, "sobel", stream=stream)
        assert not s.query()
        s.synchronize()
        np.testing.assert_array_equal(out2.cpu().numpy(), numpy_result(old, "sobel"))


def test_dlpack_only_objects(rng):
    image = random(rng, (25, 27), np.uint8)
    t = torch.from_numpy(image).cuda()

    class OnlyDlpack:  # what a library without __cuda_array_interface__ hands over
        def __init__(self, t):
            self.t = t

        def __dlpack__(self, stream=None, **kw):
            return self.t.__dlpack__(stream=stream)

        def __dlpack_device__(self):
            return self.t.__dlpack_device__()

    out = torch.zeros_like(t)
    vfilter.apply(OnlyDlpack(t), "sobel", out=OnlyDlpack(out))
    np.testing.assert_array_equal(out.cpu().numpy(), numpy_result(image, "sobel"))


def test_bad_gpu_arguments(rng):
    t = torch.zeros((8, 8), dtype=torch.uint8, device="cuda")
    with pytest.raises(TypeError):
        vfilter.apply(t.float(), "sobel")
    with pytest.raises(ValueError):
        vfilter.apply(t, "nosuchfilter")
    with pytest.raises(ValueError):
        vfilter.apply(t, "sobel", out=t)
    with pytest.raises(TypeError):
        vfilter.apply(t, "sobel", out=np.zeros((8, 8), np.uint8))
    with pytest.raises(ValueError):
        vfilter.apply(torch.zeros(8, dtype=torch.uint8, device="cuda").expand(8, 8), "sobel")  # a row stride of 0


def test_cupy_equals_numpy(rng):
    cupy = pytest.importorskip("cupy")
    for dtype in (np.uint8, np.uint16):
        image = random(rng, (3, 37, 53), dtype)
        c = cupy.asarray(image)
        for chain in ("sobel", "gaussian=sigma=2", "gaussian=sigma=1,sobel"):
            got = vfilter.apply(c, chain)
            assert isinstance(got, cupy.ndarray)
            assert_filtered_equal(cupy.asnumpy(got), numpy_result(image, chain), chain)
    # CuPy's stream too: queued behind work on it.
    s = cupy.cuda.Stream(non_blocking=True)
    image = random(rng, (64, 64), np.uint8)
    c = cupy.asarray(image)
    with s:
        got = vfilter.apply(c, "sobel")
    s.synchronize()
    np.testing.assert_array_equal(cupy.asnumpy(got), numpy_result(image, "sobel"))


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    """An H.264 clip of the built-in test pattern, made by vfilter itself (NVDEC decodes it)."""
    path = tmp_path_factory.mktemp("clip") / "pattern.mp4"
    vfilter.run(input="", filter="identity", output=str(path), codec="libx264", frames=24, device="cpu")
    return str(path)


def planes_of(frames, to_numpy):
    return [[to_numpy(p) for p in f["planes"]] for f in frames]


@pytest.mark.parametrize("chain", ["sobel", "gaussian=sigma=2", "identity"])
def test_frames_on_the_gpu_equal_the_cpu_run(clip, chain):
    on_cpu = planes_of(vfilter.Frames(clip, filter=chain, device="cpu", hwdec="none"), lambda p: p)
    on_gpu = []
    for f in vfilter.Frames(clip, filter=chain, device="cuda", hwdec="cuda"):
        assert all(isinstance(p, vfilter.DevicePlane) for p in f["planes"])
        on_gpu.append([torch.as_tensor(p, device="cuda").cpu().numpy() for p in f["planes"]])
    assert len(on_gpu) == len(on_cpu) == 24
    for a, b in zip(on_gpu, on_cpu):
        # NVDEC gives nv12, the software decoder yuv420p: the same samples, chroma interleaved.
        assert_filtered_equal(a[0], b[0], chain)
        chroma = a[1] if len(a) == 2 else np.stack([a[1], a[2]], axis=-1)
        expect = b[1] if len(b) == 2 else np.stack([b[1], b[2]], axis=-1)
        assert_filtered_equal(chroma, expect, chain)


def test_frames_feed_torch_and_cupy_without_a_copy(clip):
    weights = torch.ones((1, 1, 3, 3), device="cuda") / 9
    seen = 0
    for f in vfilter.Frames(clip, filter="sobel", device="cuda", hwdec="cuda"):
        y = f["planes"][0]
        t = torch.as_tensor(y, device="cuda")
        assert t.data_ptr() == y.ptr, "torch copied the plane"
        assert torch.from_dlpack(y).data_ptr() == y.ptr
        smooth = torch.nn.functional.conv2d(t[None, None].float(), weights, padding=1)  # a model's first layer
        assert smooth.shape[-2:] == t.shape
        try:
            import cupy
            assert cupy.asarray(y).data.ptr == y.ptr
        except ImportError:
            pass
        seen += 1
    assert seen == 24


def test_device_planes_outlive_their_loop(clip):
    """A tensor made from a plane keeps the frame's memory: its samples stay as they were while
    later frames come and go."""
    kept = []
    for i, f in enumerate(vfilter.Frames(clip, filter="sobel", device="cuda", hwdec="cuda")):
        t = torch.as_tensor(f["planes"][0], device="cuda")
        if i < 3:
            kept.append((t, t.cpu().numpy().copy()))
    for t, samples in kept:
        np.testing.assert_array_equal(t.cpu().numpy(), samples)
