"""cuDNN (through PyTorch) timed the way bench/gpu_bench.cu times vfilter and NPP: a 256 MB
memset before each timed call evicts the L2 and keeps the GPU busy while the call is
enqueued, so the events measure GPU time. Float32 planes, zero padding, TF32 off.
Usage on the GPU machine: python3 bench/cudnn_anchor.py"""
import statistics
import torch
import torch.nn.functional as F

torch.backends.cudnn.benchmark = True
torch.backends.cudnn.allow_tf32 = False
dev = torch.device("cuda")
flush = torch.empty(256 << 20, dtype=torch.uint8, device=dev)


def gpu_ms(fn, iters=50, warm=5):
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    ts = []
    for i in range(iters):
        flush.fill_(i & 0xFF)
        s = torch.cuda.Event(enable_timing=True)
        e = torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        e.synchronize()
        ts.append(s.elapsed_time(e))
    return statistics.median(ts)


for (h, w, tag) in [(1080, 1920, "1920x1080"), (2160, 3840, "3840x2160"), (2048, 2048, "2048x2048")]:
    img = torch.rand(1, 1, h, w, device=dev)
    sizes = [64] if tag == "2048x2048" else [3, 5, 7, 13, 27, 63]
    for k in sizes:
        wt = torch.rand(1, 1, k, k, device=dev)
        pad = k // 2 if k % 2 else "same"
        print(f"{tag:10s} dense {k}x{k:<3d} cuDNN fp32 {gpu_ms(lambda: F.conv2d(img, wt, padding=pad)):.4f} ms", flush=True)
