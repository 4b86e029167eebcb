"""FFmpeg's timeline editing (enable=) and FFmpeg's edge (border="ffmpeg") from Python: a call
says where its image is in its video (t=, n=, pos=), and a filter whose enable= expression is false
there passes the image unchanged, as the command line does frame by frame; a chain with enable=
called without t or n is refused rather than filtered as though enable= were not there."""

import numpy as np
import pytest

import vfilter
from conftest import command_line_filter


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16])
def test_a_filter_applies_only_where_its_enable_holds(rng, dtype):
    image = rng.integers(0, 256 if dtype == np.uint8 else 1024, (23, 31), dtype=dtype)
    filtered = vfilter.apply(image, "sobel")
    assert filtered.tobytes() != image.tobytes()
    timed = vfilter.compile("sobel=enable='between(t,1,2)'")
    assert timed.timed
    for t, applies in [(0.5, False), (1.0, True), (1.5, True), (2.0, True), (2.5, False)]:
        want = filtered if applies else image
        assert timed(image, t=t).tobytes() == want.tobytes(), f"t={t}"
        assert vfilter.apply(image, "sobel=enable='between(t,1,2)'", t=t).tobytes() == want.tobytes(), f"t={t}"


def test_n_and_pos_are_read_too(rng):
    image = rng.integers(0, 256, (17, 19, 3), dtype=np.uint8)
    filtered = vfilter.apply(image, "gaussian=sigma=1.5")
    by_frame = vfilter.compile("gaussian=sigma=1.5:enable='gte(n,3)'")
    assert by_frame(image, n=2).tobytes() == image.tobytes()
    assert by_frame(image, n=3).tobytes() == filtered.tobytes()
    by_offset = vfilter.compile("gaussian=sigma=1.5:enable='gt(pos,1000)'")
    assert by_offset(image, n=0, pos=999).tobytes() == image.tobytes()
    assert by_offset(image, n=0, pos=1001).tobytes() == filtered.tobytes()
    # pos not given is NaN, as FFmpeg's unknown position, and NaN is not greater than 1000
    assert by_offset(image, n=0).tobytes() == image.tobytes()


def test_only_the_timed_filter_of_a_chain_waits(rng):
    image = rng.integers(0, 256, (29, 21), dtype=np.uint8)
    chain = vfilter.compile("gaussian=sigma=1,sobel=enable='lt(t,1)',box=radius=1")
    assert chain(image, t=0.5).tobytes() == vfilter.apply(image, "gaussian=sigma=1,sobel,box=radius=1").tobytes()
    assert chain(image, t=1.5).tobytes() == vfilter.apply(image, "gaussian=sigma=1,box=radius=1").tobytes()


def test_alpha_is_copied_whatever_enable_says(rng):
    image = rng.integers(0, 256, (13, 15, 4), dtype=np.uint8)
    chain = vfilter.compile("sobel=planes=all:enable='gte(n,1)'")
    off, on = chain(image, alpha=True, n=0), chain(image, alpha=True, n=1)
    assert off.tobytes() == image.tobytes()
    assert on[..., :3].tobytes() == vfilter.apply(image[..., :3], "sobel=planes=all").tobytes()
    assert on[..., 3].tobytes() == image[..., 3].tobytes()


def test_a_timed_chain_without_t_or_n_is_refused(rng):
    image = rng.integers(0, 256, (9, 11), dtype=np.uint8)
    out = np.zeros_like(image)
    with pytest.raises(ValueError, match=r"enable=.*t=.*n="):
        vfilter.compile("sobel=enable='between(t,1,2)'")(image, out)
    assert not out.any()  # nothing was written
    with pytest.raises(ValueError, match="enable="):
        vfilter.apply(image, "sobel=enable='gte(n,1)'", pos=10)
    with pytest.raises(TypeError, match="t must be a number"):
        vfilter.apply(image, "sobel=enable='gte(t,1)'", t="1")
    with pytest.raises(TypeError, match="n must be a whole number"):
        vfilter.apply(image, "sobel=enable='gte(n,1)'", n=1.5)


def test_a_chain_without_enable_takes_t_and_n_and_filters_every_call(rng):
    image = rng.integers(0, 256, (9, 11), dtype=np.uint8)
    chain = vfilter.compile("sobel")
    assert not chain.timed
    assert chain(image, t=7.0, n=175).tobytes() == chain(image).tobytes() == vfilter.apply(image, "sobel").tobytes()


def test_frame_by_frame_equals_the_command_line(tmp_path, rng):
    # the command line's clip runs at 25 frames a second from t=0: frame i is at t = i/25
    frames = rng.integers(0, 256, (6, 19, 27), dtype=np.uint8)
    chain = "sobel=enable='gte(t,0.1)',box=radius=1:enable='between(n,1,3)'"
    expected = command_line_filter(tmp_path, frames, chain)
    compiled = vfilter.compile(chain)
    for i, frame in enumerate(frames):
        assert compiled(frame, t=i / 25, n=i).tobytes() == expected[i].tobytes(), f"frame {i}"
    assert expected[0].tobytes() == frames[0].tobytes()  # frame 0: neither filter applies


def test_border_ffmpeg_is_the_command_lines(tmp_path, rng):
    frames = rng.integers(0, 256, (2, 21, 17), dtype=np.uint8)
    for chain in ("sobel", "convolution=m=1 -2 3 -4 5 -6 7 -8 9:rdiv=1/5:bias=128", "kirsch,prewitt"):
        ffmpeg_edge = ",".join(f + (":" if "=" in f else "=") + "border=ffmpeg" for f in chain.split(","))
        expected = command_line_filter(tmp_path, frames, ffmpeg_edge)
        got = vfilter.apply(frames, chain, border="ffmpeg", layout="nhw")
        assert got.tobytes() == expected.tobytes(), chain
        # FFmpeg's 3x3 edge repeats the last row and column where mirror folds them
        assert got.tobytes() != vfilter.apply(frames, chain, border="mirror", layout="nhw").tobytes(), chain


def test_border_ffmpeg_is_refused_for_a_filter_without_it(rng):
    image = rng.integers(0, 256, (9, 11), dtype=np.uint8)
    with pytest.raises(ValueError, match="border 'ffmpeg': gaussian .*sobel"):
        vfilter.apply(image, "sobel,gaussian=sigma=2", border="ffmpeg")
