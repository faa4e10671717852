#!/usr/bin/env python3
"""The k = 3 median's GPU variants when calls are queued back to back (a
camera loop, a batch), where `jetfilter bench` times each call alone:
global against fast and what auto takes, 8 and 16 bits and float32, grey
and RGB, 640x480 to 3840x2160; CuPy arrays in, out= given, 200 calls
between synchronisations, the least of two medians of 5 rounds, ms a call.

    python3 benchmarks/median_k3_throughput.py      (a CUDA machine with CuPy)
"""
import os
import sys

import numpy as np
import cupy as cp

import jetfilter as jf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from python_bench import per_call  # noqa: E402


def main():
    rng = np.random.default_rng(1)
    print("size ch depth | global | fast | auto (ms a call)")
    for (w, h) in [(640, 480), (1280, 720), (1600, 900), (1920, 1080), (2560, 1440), (3840, 2160)]:
        for c in (1, 3):
            for dt in (np.uint8, np.uint16, np.float32):
                a = rng.integers(0, 256, (h, w) if c == 1 else (h, w, c)).astype(dt)
                x = cp.asarray(a)
                o = cp.empty_like(x)
                r = {}
                for _ in range(2):
                    for v in ("global", "fast", "auto"):
                        try:
                            t = per_call(lambda: jf.median(x, ksize=3, out=o, variant=v), 200, rounds=5)
                        except jf.Error:  # no such variant at this depth
                            t = float("nan")
                        r.setdefault(v, []).append(t)
                print("%dx%d %d %s | %.4f | %.4f | %.4f" % (w, h, c, np.dtype(dt).name, min(r["global"]),
                                                         min(r["fast"]), min(r["auto"])), flush=True)


if __name__ == "__main__":
    main()
