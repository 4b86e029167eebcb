"""A filter string is parsed once per call or change from Python: vfilter.run and vfilter.Frames
compile it where their options are read, and the run plans it for its frames without reading the
text again."""

import numpy as np

import vfilter
from vfilter import _vfilter


def parses(action):
    before = _vfilter.filter_parse_count()
    action()
    return _vfilter.filter_parse_count() - before


def test_run_parses_the_chain_once():
    stats = {}

    def go():
        stats.update(vfilter.run(input="pattern://?size=34x26&rate=30", filter="boxblur=w/16:1,sobel", output="null",
                                 frames=3, device="cpu"))

    assert parses(go) == 1
    assert stats["frames_out"] == 3
    assert stats["filters"] == "boxblur=w/16:1,sobel"


def test_frames_parse_the_chain_once():
    got = []

    def go():
        with vfilter.Frames("pattern://?size=34x26&rate=30", filter="gaussian=sigma=2", frames=2, device="cpu") as frames:
            got.extend(frames)

    assert parses(go) == 1
    assert len(got) == 2


def test_compile_parses_once_and_calls_never():
    image = np.random.default_rng(7).integers(0, 256, (17, 23), dtype=np.uint8)
    chain = []
    assert parses(lambda: chain.append(vfilter.compile("gaussian=sigma=1.75,sobel"))) == 1
    assert parses(lambda: [chain[0](image) for _ in range(4)]) == 0
