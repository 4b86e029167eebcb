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
    from vfilter import _GpuArray
    base = torch.zeros((3, 40, 50), dtype=torch.uint8, device="cuda")
    for t in (base, base[1], base[:, 3:31:2, 5:45], base.permute(1, 2, 0)):
        direct = _GpuArray(t, 0, "image")
        general = _GpuArray.__new__(_GpuArray)
        general_fields = type("Plain", (), {"__cuda_array_interface__": t.__cuda_array_interface__})()
        general.__init__(general_fields, 0, "image")
        assert (direct.ptr, direct.shape, direct.strides, direct.itemsize, direct.dtype) == \
            (general.ptr, general.shape, general.strides, general.itemsize, general.dtype)
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        assert vfilter._stream_handle(None, base) == stream.cuda_stream
    assert vfilter._stream_handle(None, base) == torch.cuda.current_stream().cuda_stream


def _free_gpu_bytes():
    torch.cuda.synchronize()
    return torch.cuda.mem_get_info()[0]


def _drop_every_chain():
    vfilter.clear_cache()
    import gc
    gc.collect()


def test_dropping_every_chain_gives_its_gpu_memory_back():
    """The module's GPU runtime (device context, prepared chains with their spectra and tables)
    lives while a chain holds it: once every chain is dropped, GPU memory is back within 2 MiB."""
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
