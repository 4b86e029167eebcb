"""vfilter.apply on NumPy arrays: equal to the command line on the same samples, every filter;
shapes, batches, out=, and the errors the docs promise."""

import numpy as np
import pytest

import vfilter
from conftest import command_line_filter

# One string per filter of the table (test_every_filter_is_covered keeps it so), and chains.
CHAINS = [
    "sobel", "prewitt", "scharr", "roberts", "kirsch", "laplacian", "gaussian=sigma=2", "gblur=sigma=1.5",
    "avgblur=sizeX=2", "unsharp", "boxblur=2", "box=radius=3", "sharpen", "emboss",
    "convolution=m=1 2 1 2 4 2 1 2 1:rdiv=1/16", "identity",
    "gaussian=sigma=1,sobel", "sobel=scale=2:delta=10:border=zero", "box=radius=2,sharpen,emboss",
]


def test_every_filter_is_covered():
    names = {f["name"] for f in vfilter.filters()}
    covered = {c.split("=")[0].split(",")[0] for c in CHAINS}
    assert names <= covered, f"filters without a case here: {sorted(names - covered)}"


def test_filter_table_has_options_with_ranges_and_help():
    sobel = next(f for f in vfilter.filters() if f["name"] == "sobel")
    scale = next(o for o in sobel["options"] if o["name"] == "scale")
    assert scale["type"] == "number" and scale["max"] == 65535 and scale["help"]
    border = next(o for o in sobel["options"] if o["name"] == "border")
    assert border["choices"] == ["mirror", "replicate", "zero", "ffmpeg"]


# Every chain on 8-bit samples; on 10-bit, a gradient, a separable blur, a dense kernel and a chain.
CASES = [(c, np.uint8) for c in CHAINS] + [(c, np.uint16) for c in (
    "sobel", "kirsch", "gaussian=sigma=2", "unsharp", "convolution=m=1 2 1 2 4 2 1 2 1:rdiv=1/16", "box=radius=2,sharpen,emboss")]


@pytest.mark.parametrize("chain,dtype", CASES)
def test_equals_the_command_line(tmp_path, rng, chain, dtype):
    peak = 255 if dtype == np.uint8 else 1023
    frames = rng.integers(0, peak + 1, size=(3, 37, 53), dtype=dtype)  # odd sizes
    expected = command_line_filter(tmp_path, frames, chain)
    for i in range(frames.shape[0]):
        out = np.full_like(frames[i], 77)  # poisoned: every sample must be written
        got = vfilter.apply(frames[i], chain, out=out)
        assert got is out
        np.testing.assert_array_equal(got, expected[i], err_msg=f"{chain} frame {i}")


def test_ffmpeg_defaults_equal_the_command_with_compat_ffmpeg(tmp_path, rng):
    frames = rng.integers(0, 256, size=(2, 31, 45), dtype=np.uint8)
    expected = command_line_filter(tmp_path, frames, "sobel=1", compat="ffmpeg")
    for i in range(2):
        np.testing.assert_array_equal(vfilter.apply(frames[i], "sobel=1", compat="ffmpeg"), expected[i])


@pytest.mark.parametrize("shape,layout", [((29, 41, 3), None), ((3, 29, 41), None), ((5, 29, 41), "nhw"),
                                          ((2, 29, 41, 3), None), ((2, 3, 29, 41), None), ((29, 41, 4), "hwc")])
def test_every_plane_equals_it_filtered_alone(rng, shape, layout):
    image = rng.integers(0, 256, size=shape, dtype=np.uint8)
    got = vfilter.apply(image, "gaussian=sigma=1.5,sobel", layout=layout)
    assert got.shape == image.shape and got.dtype == image.dtype
    if layout:
        lay = layout
    elif len(shape) == 3:
        lay = "hwc" if shape[2] <= 4 else "chw"
    else:
        lay = "nhwc" if shape[3] <= 4 else "nchw"
    moved = np.moveaxis(image, [lay.index("h"), lay.index("w")], [-2, -1]).reshape(-1, shape[lay.index("h")], shape[lay.index("w")])
    moved_got = np.moveaxis(got, [lay.index("h"), lay.index("w")], [-2, -1]).reshape(moved.shape)
    for k in range(moved.shape[0]):
        np.testing.assert_array_equal(moved_got[k], vfilter.apply(np.ascontiguousarray(moved[k]), "gaussian=sigma=1.5,sobel"))


def test_views_with_strides_and_reversed_axes(rng):
    big = rng.integers(0, 256, size=(60, 80), dtype=np.uint8)
    view = big[3:50:2, 5:70:3]         # strided, not contiguous
    flipped = big[::-1, :]               # a negative stride: copied first
    np.testing.assert_array_equal(vfilter.apply(view, "sobel"), vfilter.apply(np.ascontiguousarray(view), "sobel"))
    np.testing.assert_array_equal(vfilter.apply(flipped, "sobel"), vfilter.apply(np.ascontiguousarray(flipped), "sobel"))


def test_the_input_is_never_written(rng):
    image = rng.integers(0, 256, size=(20, 30), dtype=np.uint8)
    before = image.copy()
    vfilter.apply(image, "gaussian=sigma=3,sobel")
    np.testing.assert_array_equal(image, before)


@pytest.mark.parametrize("call,error", [
    (lambda a: vfilter.apply(a, "nosuchfilter"), ValueError),
    (lambda a: vfilter.apply(a, "gaussian=sigma=-1"), ValueError),
    (lambda a: vfilter.apply(a, "sobel=scale"), ValueError),
    (lambda a: vfilter.apply(a.astype(np.float32), "sobel"), TypeError),
    (lambda a: vfilter.apply(a.astype(np.int16), "sobel"), TypeError),
    (lambda a: vfilter.apply([[1, 2], [3, 4]], "sobel"), TypeError),
    (lambda a: vfilter.apply(a, 3), TypeError),
    (lambda a: vfilter.apply(a, "sobel", out=np.empty((3, 3), np.uint8)), ValueError),
    (lambda a: vfilter.apply(a, "sobel", out=a), ValueError),
    (lambda a: vfilter.apply(a, "sobel", bits=10), ValueError),
    (lambda a: vfilter.apply(a.astype(np.uint16) * 8, "sobel"), ValueError),  # above 1023
    (lambda a: vfilter.apply(a, "sobel", border="wrap"), ValueError),
    (lambda a: vfilter.apply(a, "sobel", layout="xyz"), ValueError),
    (lambda a: vfilter.apply(a[:, :, None][:, :, [0] * 9], "sobel"), ValueError),  # 9 channels: which axis?
    (lambda a: vfilter.apply(a[None, None, None], "sobel"), ValueError),
    (lambda a: vfilter.apply(a, "sobel", compat="opencv"), ValueError),
])
def test_bad_arguments_raise_the_documented_errors(rng, call, error):
    image = rng.integers(0, 256, size=(17, 19), dtype=np.uint8)
    with pytest.raises(error):
        call(image)


def test_read_only_output_is_refused(rng):
    image = rng.integers(0, 256, size=(17, 19), dtype=np.uint8)
    out = np.empty_like(image)
    out.flags.writeable = False
    with pytest.raises(ValueError):
        vfilter.apply(image, "sobel", out=out)
