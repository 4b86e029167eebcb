"""vfilter.compile: a chain compiled once and called on image after image of several sizes gives
the bytes of a chain compiled anew for each (apply's bytes, which tests/python/test_apply.py holds
to the command line's), parses nothing more, and refuses what apply refuses."""

import numpy as np
import pytest

import vfilter
from vfilter import _vfilter

CHAINS = ["sobel", "gaussian=sigma=1.5,sobel=planes=all", "boxblur=min(w\\,h)/8:1", "convolution=m=1 2 1 2 4 2 1 2 1",
          "avgblur=sizeX=2:round=down", "unsharp=5:3:1.5"]


def fresh(chain):
    """The chain compiled anew, with no plans kept from earlier calls (apply shares compiled chains)."""
    return vfilter.Chain(_vfilter.Chain(chain, "", False))


@pytest.mark.parametrize("chain", CHAINS)
@pytest.mark.parametrize("shape,dtype", [((17, 23), np.uint8), ((9, 31, 3), np.uint8), ((2, 13, 11), np.uint16)])
def test_compiled_equals_apply(chain, shape, dtype):
    rng = np.random.default_rng(abs(hash((chain, shape))) % (1 << 32))
    top = 256 if dtype == np.uint8 else 1024
    compiled = vfilter.compile(chain)
    layout = "nhw" if len(shape) == 3 and shape[2] > 4 else None
    for _ in range(3):  # fresh data each call, the same compiled chain
        image = rng.integers(0, top, shape, dtype=dtype)
        got = compiled(image, layout=layout)
        want = fresh(chain)(image, layout=layout)
        assert got.dtype == image.dtype and got.shape == image.shape
        assert got.tobytes() == want.tobytes()


def test_border_and_compat_are_part_of_the_compiled_chain():
    image = np.random.default_rng(3).integers(0, 256, (15, 19), dtype=np.uint8)
    for border in ("mirror", "replicate", "zero"):
        assert vfilter.compile("box=radius=2", border=border)(image).tobytes() == \
            vfilter.apply(image, "box=radius=2", border=border).tobytes()
    assert vfilter.compile("sobel", compat="ffmpeg")(image).tobytes() == vfilter.apply(image, "sobel", compat="ffmpeg").tobytes()


def test_calls_parse_nothing():
    compiled = vfilter.compile("gaussian=sigma=2.25,emboss")
    rng = np.random.default_rng(5)
    before = _vfilter.filter_parse_count()
    for size in [(7, 9), (33, 17), (7, 9)]:
        out = np.empty(size, np.uint8)
        assert compiled(rng.integers(0, 256, size, dtype=np.uint8), out) is out
    assert _vfilter.filter_parse_count() == before
    assert compiled.text == "gaussian=sigma=2.25,emboss"


def test_apply_parses_a_new_string_once():
    image = np.zeros((5, 6), np.uint8)
    chain = "gaussian=sigma=1.125,sobel"  # a string no other test applies
    before = _vfilter.filter_parse_count()
    vfilter.apply(image, chain)
    vfilter.apply(image, chain)
    assert _vfilter.filter_parse_count() - before == 1


def test_compile_refuses_with_the_command_lines_reason():
    with pytest.raises(ValueError, match="unknown filter 'blur'"):
        vfilter.compile("blur")
    with pytest.raises(ValueError, match="sigma"):
        vfilter.compile("gaussian=sigma=-1")
    with pytest.raises(ValueError, match="border 'wrap'"):
        vfilter.compile("sobel", border="wrap")
    with pytest.raises(ValueError, match="compat"):
        vfilter.compile("sobel", compat="opencv")
    with pytest.raises(TypeError):
        vfilter.compile(None)
    compiled = vfilter.compile("sobel")
    with pytest.raises(TypeError, match="uint8 and uint16"):
        compiled(np.zeros((4, 4), np.float32))
    with pytest.raises(ValueError, match="must be 0 to 2"):
        vfilter.compile("boxblur=w")(np.zeros((4, 4), np.uint8))


def test_clear_cache_forgets_the_compiled_chains():
    first = vfilter.compile("sobel")
    assert vfilter.compile("sobel") is first  # the last compiled chains are shared
    vfilter.clear_cache()
    assert vfilter.compile("sobel") is not first
