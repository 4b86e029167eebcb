"""RGB images in Python: an H x W x 3 uint8 array in RGB order is filtered per colour plane, equal
to each plane filtered alone and to the vfilter command on the same picture as rgb24; alpha=True
passes an RGBA image's alpha through unchanged (NumPy, and torch tensors on a GPU)."""

import numpy as np
import pytest

import vfilter
from conftest import run, vfilter_bin

CHAINS = ["sobel", "gaussian=sigma=1.3", "unsharp=5:5:1.5", "avgblur=sizeX=2"]


def command_line_rgb(tmp_path, rgb, chain):
    """The vfilter command's output for one H x W x 3 RGB picture, as rgb24 raw video in and out."""
    h, w, _ = rgb.shape
    raw_in, clip, out, raw_out = (tmp_path / x for x in ("in.raw", "in.nut", "out.nut", "out.raw"))
    for p in (clip, out, raw_out):
        if p.exists():
            p.unlink()
    np.ascontiguousarray(rgb).tofile(raw_in)
    run(["ffmpeg", "-nostdin", "-v", "error", "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", f"{w}x{h}", "-r", "25",
         "-i", str(raw_in), "-c:v", "rawvideo", str(clip)])
    run([vfilter_bin(), "-i", str(clip), "-f", chain, "--codec", "rawvideo", "-o", str(out), "-q", "--no-progress",
         "--device", "cpu"])
    run(["ffmpeg", "-nostdin", "-v", "error", "-i", str(out), "-f", "rawvideo", "-pix_fmt", "rgb24", str(raw_out)])
    return np.fromfile(raw_out, dtype=np.uint8).reshape(h, w, 3)


@pytest.mark.parametrize("chain", CHAINS)
def test_rgb_array_equals_each_plane_filtered_and_the_command_line(tmp_path, rng, chain):
    rgb = rng.integers(0, 256, size=(37, 53, 3), dtype=np.uint8)  # odd sizes
    got = vfilter.apply(rgb, chain)
    for c in range(3):
        np.testing.assert_array_equal(got[:, :, c], vfilter.apply(np.ascontiguousarray(rgb[:, :, c]), chain),
                                      err_msg=f"{chain} channel {c}")
    np.testing.assert_array_equal(got, command_line_rgb(tmp_path, rgb, chain), err_msg=chain)
    assert not np.array_equal(got, rgb)


@pytest.mark.parametrize("shape,layout", [((37, 53, 4), None), ((4, 37, 53), None), ((2, 37, 53, 4), None),
                                          ((2, 4, 37, 53), "nchw")])
def test_alpha_passes_through_and_colour_is_filtered(rng, shape, layout):
    image = rng.integers(0, 256, size=shape, dtype=np.uint8)
    got = vfilter.apply(image, "sobel", layout=layout, alpha=True)
    axis = 0 if len(shape) == 3 and shape[0] == 4 else (1 if layout == "nchw" else len(shape) - 1)
    colour, alpha = np.split(image, [shape[axis] - 1], axis=axis)
    got_colour, got_alpha = np.split(got, [shape[axis] - 1], axis=axis)
    np.testing.assert_array_equal(got_alpha, alpha)
    np.testing.assert_array_equal(got_colour, vfilter.apply(np.ascontiguousarray(colour), "sobel", layout=layout))
    every = vfilter.apply(image, "sobel", layout=layout)  # alpha=False: the fourth channel is filtered too
    assert not np.array_equal(np.split(every, [shape[axis] - 1], axis=axis)[1], alpha)


def test_alpha_into_out_and_refusals(rng):
    image = rng.integers(0, 256, size=(19, 23, 4), dtype=np.uint8)
    out = np.full_like(image, 7)
    assert vfilter.apply(image, "gaussian=sigma=2", out=out, alpha=True) is out
    np.testing.assert_array_equal(out[:, :, 3], image[:, :, 3])
    with pytest.raises(ValueError, match="alpha=True"):
        vfilter.apply(image[:, :, 0], "sobel", alpha=True)
    with pytest.raises(TypeError, match="out must be a NumPy array"):
        vfilter.apply(image, "sobel", out=[0], alpha=True)


def test_rgba_torch_tensor_on_the_gpu_keeps_alpha(rng):
    torch = pytest.importorskip("torch")
    if not (vfilter.cuda_available() and torch.cuda.is_available()):
        pytest.skip("GPU test skipped: no CUDA build of vfilter or no GPU")
    image = rng.integers(0, 256, size=(37, 53, 4), dtype=np.uint8)
    got = vfilter.apply(torch.from_numpy(image).cuda(), "sobel", alpha=True).cpu().numpy()
    np.testing.assert_array_equal(got, vfilter.apply(image, "sobel", alpha=True))
    rgb = np.ascontiguousarray(image[:, :, :3])
    np.testing.assert_array_equal(vfilter.apply(torch.from_numpy(rgb).cuda(), "sobel").cpu().numpy(), vfilter.apply(rgb, "sobel"))
