"""Compares kernel-benchmark runs of two trees (vfilter_gpu_bench --json), row by row.

    python3 bench/compare_gpu_bench.py BASE.json [BASE2.json ...] -- NEW.json [NEW2.json ...]

Each row's time is the fastest of its runs in each tree (runs interleaved base, new, base, new on
one machine); printed: every auto row (auto, auto b2b, auto+launch) with new / base, then how many
of all rows lie within 5%, and the rows beyond it.
"""

import json
import sys


def load(paths):
    best = {}
    for p in paths:
        for r in json.load(open(p))["rows"]:
            key = (r["plane"], r["filter"], r["variant"])
            best[key] = min(best.get(key, float("inf")), r["ms"])
    return best


def main():
    args = sys.argv[1:]
    if "--" not in args:
        raise SystemExit(__doc__)
    cut = args.index("--")
    base, new = load(args[:cut]), load(args[cut + 1:])
    common = sorted(set(base) & set(new))
    print(f"{'plane':10} {'filter':28} {'variant':12} {'base ms':>9} {'new ms':>9} {'new/base':>8}")
    beyond = []
    for key in common:
        ratio = new[key] / base[key] if base[key] > 0 else float("nan")
        if key[2].startswith("auto"):
            print(f"{key[0]:10} {key[1]:28.28} {key[2]:12} {base[key]:9.4f} {new[key]:9.4f} {ratio:8.3f}")
        if not 0.95 <= ratio <= 1.05:
            beyond.append((key, ratio))
    autos = [k for k in common if k[2] == "auto"]
    auto_beyond = [k for k, r in beyond if k[2] == "auto"]
    print(f"\n{len(common) - len(beyond)} of {len(common)} rows within 5%; auto rows: {len(autos) - len(auto_beyond)} of {len(autos)}")
    for key, ratio in beyond:
        print(f"  beyond 5%: {key[0]} {key[1]} {key[2]}: {ratio:.3f}")
    only = sorted(set(base) ^ set(new))
    if only:
        print("rows in one tree only:", only[:10])


if __name__ == "__main__":
    main()
