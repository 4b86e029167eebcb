"""vfilter.compile on GPU tensors (the GPU machine; skipped elsewhere, with the reason): a compiled
chain called on fresh torch tensors of odd sizes gives apply's bytes, and parses nothing."""

import numpy as np
import pytest

import vfilter
from vfilter import _vfilter

torch = pytest.importorskip("torch", reason="PyTorch is not installed (the GPU machine has it)")
if not torch.cuda.is_available():
    pytest.skip("no GPU: the GPU tests run on the GPU machine", allow_module_level=True)
if not vfilter.cuda_available():
    pytest.skip("this vfilter module was built without CUDA", allow_module_level=True)

CHAINS = ["sobel", "box=radius=2,emboss", "convolution=m=1 2 1 2 4 2 1 2 1", "boxblur=min(w\\,h)/8:1", "gaussian=sigma=2"]


@pytest.mark.parametrize("chain", CHAINS)
@pytest.mark.parametrize("shape,dtype", [((16, 16), torch.uint8), ((37, 53), torch.uint8), ((3, 29, 41), torch.int16)])
def test_compiled_equals_apply_on_the_gpu(chain, shape, dtype):
    if dtype == torch.int16:
        dtype = torch.uint16 if hasattr(torch, "uint16") else None
        if dtype is None:
            pytest.skip("this PyTorch has no uint16 tensors")
    compiled = vfilter.compile(chain)
    gen = torch.Generator(device="cuda").manual_seed(hash((chain, shape)) % (1 << 31))
    top = 256 if dtype == torch.uint8 else 1024
    layout = "nhw" if len(shape) == 3 else None
    fresh = [vfilter.Chain(_vfilter.Chain(chain, "", False)) for _ in range(3)]  # nothing kept from before
    for reference in fresh:
        image = torch.randint(0, top, shape, generator=gen, device="cuda", dtype=torch.int32).to(dtype)
        before = _vfilter.filter_parse_count()
        got = compiled(image, layout=layout)
        assert _vfilter.filter_parse_count() == before, "a compiled chain's call parsed its string again"
        want = reference(image, layout=layout)
        torch.cuda.synchronize()
        assert torch.equal(got, want), chain


def test_torch_tensors_read_directly_say_what_their_array_interface_says():
    base = torch.zeros((3, 40, 50), dtype=torch.uint8, device="cuda")
    for t in (base, base[1], base[:, 3:31:2, 5:45], base.permute(1, 2, 0)):
        direct = _vfilter.gpu_array_fields(t, 0)
        general = _vfilter.gpu_array_fields(type("Plain", (), {"__cuda_array_interface__": t.__cuda_array_interface__})(), 0)
        assert direct == general
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        assert vfilter._stream_handle(None, base) == stream.cuda_stream
        image = torch.randint(0, 256, (37, 53), device="cuda", dtype=torch.int32).to(torch.uint8)
        out = vfilter.compile("sobel")(image)  # made and filtered on the current stream
        stream.synchronize()
        np.testing.assert_array_equal(out.cpu().numpy(), vfilter.apply(image.cpu().numpy(), "sobel"))
    assert vfilter._stream_handle(None, base) == torch.cuda.current_stream().cuda_stream


def _free_gpu_bytes():
    torch.cuda.synchronize()
    return torch.cuda.mem_get_info()[0]


def _drop_every_chain():
    vfilter.clear_cache()
    import gc
    gc.collect()


@pytest.mark.alone
def test_dropping_every_chain_gives_its_gpu_memory_back():
    """The module's GPU runtime (device context, prepared chains with their spectra and tables)
    lives while a chain holds it: once every chain is dropped, GPU memory is back within 2 MiB.
    The GPU's free memory is every process's: measured with no other test running."""
    image = torch.randint(0, 256, (4, 1080, 1920), device="cuda", dtype=torch.uint8)
    out = torch.empty_like(image)
    dense = "convolution=m=" + " ".join(str((i * 7) % 11 - 5) for i in range(21 * 21)) + ":bias=128"

    def use_and_drop():
        for chain in (dense, "gaussian=sigma=6", "sobel"):
            vfilter.compile(chain)(image, out=out, layout="nhw")
        held = _free_gpu_bytes()
        _drop_every_chain()
        return held

    use_and_drop()  # the kernels' code and the CUDA context, loaded once for the process
    before = _free_gpu_bytes()
    held = use_and_drop()
    after = _free_gpu_bytes()
    print(f"GPU memory while the chains lived: {(before - held) / 2**20:+.1f} MiB; after: {(before - after) / 2**20:+.1f} MiB")
    assert before - after <= 2 * 2**20, f"{(before - after) / 2**20:.1f} MiB not given back"


def test_a_chain_dropped_with_its_work_still_queued_filters_right():
    """A compiled chain dropped (or pushed out of the cache) while its work still waits on a busy
    stream must not hand its tables and constant memory to the chains prepared next before that
    work has run: the output equals a run made alone."""
    def dense(k):
        return "convolution=m=" + " ".join(str((i * k) % 9 - 4) for i in range(49)) + ":rdiv=1/16:bias=128"
    image = torch.randint(0, 256, (4, 1080, 1920), device="cuda", dtype=torch.int32).to(torch.uint8)
    out = torch.zeros_like(image)
    side = torch.cuda.Stream()
    import gc
    with torch.cuda.stream(side):
        torch.cuda._sleep(100_000_000)  # the stream busy: what follows is queued behind it
        first = vfilter.Chain(_vfilter.Chain(dense(7), "", False))
        first(image, out=out, layout="nhw")
        del first
        gc.collect()
        for k in (2, 3, 5):  # chains of other taps, prepared while the first one's work waits
            vfilter.Chain(_vfilter.Chain(dense(k), "", False))(image, layout="nhw")
    torch.cuda.synchronize()
    want = vfilter.Chain(_vfilter.Chain(dense(7), "", False))(image, layout="nhw")
    torch.cuda.synchronize()
    assert torch.equal(out, want)


def test_enable_and_border_ffmpeg_on_the_gpu_equal_the_numpy_path():
    # each set of enable= filters applying is its own GPU chain: all of them, some, none
    image = torch.randint(0, 256, (37, 53), device="cuda", dtype=torch.int32).to(torch.uint8)
    host = image.cpu().numpy()
    chain = vfilter.compile("gaussian=sigma=1:enable='gte(n,1)',sobel=enable='lt(t,1)'")
    for t, n in [(0.5, 0), (0.5, 1), (1.5, 1), (1.5, 0), (0.5, 1)]:
        got = chain(image, t=t, n=n)
        torch.cuda.synchronize()
        assert np.array_equal(got.cpu().numpy(), chain(host, t=t, n=n)), (t, n)
    with pytest.raises(ValueError, match="enable="):
        chain(image)
    got = vfilter.apply(image, "kirsch,convolution=m=1 -2 3 -4 5 -6 7 -8 9:bias=128", border="ffmpeg")
    torch.cuda.synchronize()
    want = vfilter.apply(host, "kirsch,convolution=m=1 -2 3 -4 5 -6 7 -8 9:bias=128", border="ffmpeg")
    assert np.array_equal(got.cpu().numpy(), want)
