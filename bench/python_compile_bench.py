"""Host time of one Python call: vfilter.compile(chain)(x) against vfilter.apply(x, chain) and a
NumPy no-op, on a small plane where the call's own overhead is all there is.

    PYTHONPATH=<build>/python python3 bench/python_compile_bench.py [--chain sobel] [--size 16] [--json out.json]

NumPy: a size x size uint8 array filtered on the CPU (one thread, so the pool's hand-off is not
what is timed). CUDA (where PyTorch with a GPU and a CUDA build of vfilter are present): the same
plane as a torch tensor on the GPU; the call only queues work, so host time is what is measured;
the stream is synchronised once after each timed loop. Each figure is the median over 7 runs of
the mean of 2000 calls, in microseconds a call.
"""

import argparse
import json
import statistics
import time

import numpy as np

import vfilter


def us_per_call(fn, calls=2000, runs=7, sync=None):
    for _ in range(200):  # warm: plans made, prepared kernels loaded
        fn()
    if sync:
        sync()
    means = []
    for _ in range(runs):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        if sync:
            sync()
        means.append((time.perf_counter() - start) / calls * 1e6)
    return statistics.median(means)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chain", default="sobel")
    parser.add_argument("--size", type=int, default=16)
    parser.add_argument("--json")
    args = parser.parse_args()
    rows = {}
    image = np.random.default_rng(1).integers(0, 256, (args.size, args.size), dtype=np.uint8)
    out = np.empty_like(image)
    compiled = vfilter.compile(args.chain)
    rows["numpy: compile(chain)(x)"] = us_per_call(lambda: compiled(image, out, threads=1))
    rows["numpy: apply(x, chain)"] = us_per_call(lambda: vfilter.apply(image, args.chain, out, threads=1))
    rows["numpy: np.copyto (no-op anchor)"] = us_per_call(lambda: np.copyto(out, image))
    try:
        import torch
        gpu = torch.cuda.is_available() and vfilter.cuda_available()
    except ImportError:
        gpu = False
    if gpu:
        x = torch.from_numpy(image).cuda()
        y = torch.empty_like(x)
        sync = torch.cuda.synchronize
        rows["cuda: compile(chain)(x)"] = us_per_call(lambda: compiled(x, y), sync=sync)
        rows["cuda: apply(x, chain)"] = us_per_call(lambda: vfilter.apply(x, args.chain, y), sync=sync)
        rows["cuda: torch.add (no-op anchor)"] = us_per_call(lambda: torch.add(x, 0, out=y), sync=sync)
    else:
        print("no GPU with PyTorch (or a vfilter built without CUDA): NumPy rows only")
    width = max(len(k) for k in rows)
    print(f"chain {args.chain!r}, {args.size}x{args.size} uint8, host microseconds a call")
    for name, us in rows.items():
        print(f"  {name:<{width}}  {us:8.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"chain": args.chain, "size": args.size, "us_per_call": rows}, f, indent=2)


if __name__ == "__main__":
    main()
