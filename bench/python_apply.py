"""vfilter.apply on a batch of GPU tensors against what a PyTorch or CuPy user would call instead.

    python3 bench/python_apply.py [--batch 16] [--json out.json]

Needs the vfilter module on PYTHONPATH (<build>/python), PyTorch with CUDA; CuPy and kornia are
measured where installed. Input: a batch of 1080p uint8 planes (N x 1080 x 1920) on the GPU.
Times are GPU times (CUDA events around each call, median of 30 after 5 warm-up calls); every
competitor gets its most favourable form: float32 or float16 input prepared beforehand (vfilter
reads and writes the uint8 samples), cuDNN's autotuning on, TF32 off (as the anchors script),
dense and separable forms of the Gaussian. The Python overhead of a call is the host time of
vfilter.apply on a 16 x 16 plane (median of 2000), beside torch.add's on the same tensor.
"""

import argparse
import json
import statistics
import time

import torch
import torch.nn.functional as F

import vfilter

torch.backends.cudnn.benchmark = True
torch.backends.cudnn.allow_tf32 = False
torch.backends.cuda.matmul.allow_tf32 = False


def gpu_ms(fn, iters=30, warm=5):
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(iters):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    return statistics.median(times)


def gaussian_taps(sigma, size):
    x = torch.arange(size, dtype=torch.float64) - size // 2
    g = torch.exp(-x * x / (2 * sigma * sigma))
    return (g / g.sum()).float()


# A 5x5 kernel with no separable form (a Laplacian of Gaussian), for vfilter and the others alike.
LOG5 = [0, 0, -1, 0, 0, 0, -1, -2, -1, 0, -1, -2, 16, -2, -1, 0, -1, -2, -1, 0, 0, 0, -1, 0, 0]
WORK = {
    "sobel 3x3": "sobel",
    "gaussian 27x27": "gaussian=sigma=3.2",
    "dense 5x5": "convolution=m=" + " ".join(map(str, LOG5)) + ":bias=128",
}


def competitors(name, n, h, w):
    """{library: callable} for the workload, on prepared inputs."""
    out = {}
    for dtype, tag in ((torch.float32, "fp32"), (torch.float16, "fp16")):
        x = torch.rand((n, 1, h, w), device="cuda", dtype=dtype) * 255
        if name == "sobel 3x3":
            k = torch.tensor([[[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]], [[-1, -2, -1], [0, 0, 0], [1, 2, 1]]],
                             device="cuda", dtype=dtype)[:, None]
            out[f"torch conv2d {tag} (cuDNN) + magnitude"] = (
                lambda x=x, k=k: torch.linalg.vector_norm(F.conv2d(x, k, padding=1), dim=1))
        elif name == "gaussian 27x27":
            g = gaussian_taps(3.2, 27).to("cuda", dtype)
            dense = (g[:, None] * g[None, :])[None, None]
            out[f"torch conv2d {tag} (cuDNN) dense"] = lambda x=x, k=dense: F.conv2d(x, k, padding=13)
            out[f"torch conv2d {tag} (cuDNN) separable"] = (
                lambda x=x, r=g.view(1, 1, 1, 27), c=g.view(1, 1, 27, 1): F.conv2d(F.conv2d(x, r, padding=(0, 13)), c,
                                                                                  padding=(13, 0)))
        else:
            k = torch.tensor(LOG5, device="cuda", dtype=dtype).view(1, 1, 5, 5)
            out[f"torch conv2d {tag} (cuDNN)"] = lambda x=x, k=k: F.conv2d(x, k, padding=2)
    try:
        import cupy
        import cupyx.scipy.ndimage as nd
        xs = cupy.random.randint(0, 256, size=(n, h, w)).astype(cupy.uint8)
        xf = xs.astype(cupy.float32)
        if name == "sobel 3x3":
            out["cupyx.scipy.ndimage sobel fp32 + hypot"] = lambda: cupy.hypot(nd.sobel(xf, axis=1), nd.sobel(xf, axis=2))
        elif name == "gaussian 27x27":
            out["cupyx.scipy.ndimage gaussian_filter uint8"] = lambda: nd.gaussian_filter(xs, (0, 3.2, 3.2), truncate=4.0)
        else:
            k = cupy.asarray(LOG5, dtype=cupy.float32).reshape(1, 5, 5)
            out["cupyx.scipy.ndimage convolve fp32"] = lambda: nd.convolve(xf, k)
    except ImportError:
        pass
    try:
        import kornia.filters as kf
        x = torch.rand((n, 1, h, w), device="cuda") * 255
        if name == "sobel 3x3":
            out["kornia sobel fp32"] = lambda: kf.sobel(x, normalized=False)
        elif name == "gaussian 27x27":
            out["kornia gaussian_blur2d fp32"] = lambda: kf.gaussian_blur2d(x, (27, 27), (3.2, 3.2))
        else:
            k = torch.tensor(LOG5, device="cuda", dtype=torch.float32).view(1, 5, 5)
            out["kornia filter2d fp32"] = lambda: kf.filter2d(x, k)
    except ImportError:
        pass
    return out


def overhead_us():
    t = torch.zeros((16, 16), dtype=torch.uint8, device="cuda")
    out = torch.empty_like(t)

    def host_us(fn, iters=2000):
        for _ in range(50):
            fn()
        torch.cuda.synchronize()
        times = []
        for _ in range(iters):
            a = time.perf_counter()
            fn()
            times.append((time.perf_counter() - a) * 1e6)
        torch.cuda.synchronize()
        return statistics.median(times)

    return {"vfilter.apply sobel 16x16, out=": host_us(lambda: vfilter.apply(t, "sobel", out=out)),
            "vfilter.apply sobel 16x16": host_us(lambda: vfilter.apply(t, "sobel")),
            "torch.add 16x16, out=": host_us(lambda: torch.add(t, t, out=out))}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--json")
    a = ap.parse_args()
    n, h, w = a.batch, 1080, 1920
    print(f"# {torch.cuda.get_device_name()}, torch {torch.__version__}, batch {n} x {h} x {w} uint8")
    frames = torch.randint(0, 256, (n, h, w), dtype=torch.uint8, device="cuda")
    result = torch.empty_like(frames)
    rows = []
    for name, chain in WORK.items():
        ms = gpu_ms(lambda: vfilter.apply(frames, chain, out=result, layout="nhw"))
        ms_alloc = gpu_ms(lambda: vfilter.apply(frames, chain, layout="nhw"))
        others = {lib: gpu_ms(fn) for lib, fn in competitors(name, n, h, w).items()}
        best = min(others, key=others.get)
        rows.append({"work": name, "vfilter_ms": ms, "vfilter_new_output_ms": ms_alloc, "others_ms": others,
                     "fastest_other": best, "ratio": others[best] / ms})
        print(f"{name:16s} vfilter {ms:8.3f} ms (new output {ms_alloc:.3f})  fastest other: {best} "
              f"{others[best]:.3f} ms  -> {others[best] / ms:.2f}x")
        for lib, t in sorted(others.items(), key=lambda kv: kv[1]):
            print(f"    {lib:44s} {t:8.3f} ms")
    over = overhead_us()
    for k, v in over.items():
        print(f"overhead: {k:36s} {v:7.1f} us per call (host)")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(), "batch": n, "rows": rows, "overhead_us": over}, f, indent=1)


if __name__ == "__main__":
    main()
