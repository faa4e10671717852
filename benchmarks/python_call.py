#!/usr/bin/env python3
"""Where a Python call's host time goes, and the 1080p grey k = 3 cells
where that time is most of the call (an H200 and CuPy).

    python3 benchmarks/python_call.py

1. Steps: a 640x480 grey median k = 3 on a CuPy array (out=, a context,
   a non-blocking stream): the whole call, the extension's one step it
   takes, and the Python path's steps (what a call it declines goes
   through) each timed alone (the median over rounds of 200 calls,
   microseconds).
2. 1920x1080 grey, k = 3: jetfilter's median (auto, and each GPU
   variant), its Gaussian, and CV-CUDA's, ms a call (200 calls between
   synchronisations, the median of 5 rounds, the cells alternated).
"""
import statistics
import time

import numpy as np
import cupy as cp

import jetfilter as jf
from jetfilter import _arrays, _context, _ops
from jetfilter import _jetfilter as c


def steps():
    x = cp.asarray(np.random.default_rng(1).integers(0, 256, (480, 640), dtype=np.uint8))
    out = cp.empty_like(x)
    ctx = jf.Context(backend="cuda")
    stream = cp.cuda.Stream(non_blocking=True)

    def t(f, n=200, rounds=24):
        res = []
        for _ in range(rounds):
            t0 = time.perf_counter()
            for _ in range(n):
                f()
            res.append((time.perf_counter() - t0) / n * 1e6)
            stream.synchronize()
        return statistics.median(res)

    with stream:
        ctx.set_stream(stream)
        plan = _ops.plan("median", (("ksize", 3),), (3,))
        op = [o for o in c.ops() if o["name"] == "median"][0]
        img, _ = _ops._prepare(x, ctx, None)
        dst = _arrays.describe(out, True, "out")
        rows = [("the call", lambda: jf.median(x, ksize=3, out=out, context=ctx)),
                ("the call, default context", lambda: jf.median(x, ksize=3, out=out)),
                ("the extension's one step, fast()", lambda: c.fast(plan, x, out, ctx)),
                ("Python path: the call", lambda: _ops.run_filter(op, x, out, ctx, None, (("ksize", 3),), (3,))),
                ("Python path: the plan (cached)", lambda: _ops.plan("median", (("ksize", 3),), (3,))),
                ("Python path: the image described, context checked", lambda: _ops._prepare(x, ctx, None)),
                ("Python path: out= described", lambda: _arrays.describe(out, True, "out")),
                ("Python path: the stream bound", lambda: _context.bind_stream(ctx, img, None)),
                ("Python path: the extension's run()", lambda: c.run(ctx, plan, img.spec, dst.spec))]
        for name, f in rows:
            print("%-52s %6.2f us" % (name, t(f)))
        print("%-52s %6.2f us" % ("the same run() from C", c.c_call_loop(ctx, plan, img.spec, dst.spec, 200)))


def cells():
    import torch
    import cvcuda
    from python_bench import per_call
    h, w = 1080, 1920
    img = np.random.default_rng(1).integers(0, 256, (h, w), dtype=np.uint8)
    x, out = cp.asarray(img), cp.empty((h, w), cp.uint8)
    t = torch.as_tensor(img, device="cuda").reshape(1, h, w, 1)
    cin, cout = cvcuda.as_tensor(t, "NHWC"), cvcuda.as_tensor(torch.empty_like(t), "NHWC")
    cell = {"median auto": lambda: jf.median(x, ksize=3, out=out),
            "median global": lambda: jf.median(x, ksize=3, out=out, variant="global"),
            "median fast": lambda: jf.median(x, ksize=3, out=out, variant="fast"),
            "CV-CUDA median": lambda: cvcuda.median_blur_into(cout, cin, (3, 3)),
            "gauss k = 3": lambda: jf.gauss(x, ksize=3, sigma=0.8, out=out),
            "CV-CUDA gauss k = 3": lambda: cvcuda.gaussian_into(cout, cin, (3, 3), (0.8, 0.8),
                                                               cvcuda.Border.REPLICATE)}
    res = {k: [] for k in cell}
    for _ in range(5):
        for k, f in cell.items():
            res[k].append(per_call(f, 200))
    for k in cell:
        print("%-20s %.4f ms (rounds %s)" % (k, statistics.median(res[k]),
                                            " ".join("%.4f" % v for v in res[k])))


if __name__ == "__main__":
    steps()
    cells()
