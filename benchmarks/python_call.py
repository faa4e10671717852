#!/usr/bin/env python3
"""Where a Python call's host time goes, and the 1080p grey k = 3 cells
where that time is most of the call (an H200 and CuPy).

    python3 benchmarks/python_call.py
    python3 benchmarks/python_call.py --cpu    (NumPy on the CPU backend)

1. Steps: a 640x480 grey median k = 3 on a CuPy array (out=, a context,
   a non-blocking stream): the whole call (and on PyTorch tensors), the
   extension's one step it takes, and the Python path's steps (what a call it declines goes
   through) each timed alone (the median over rounds of 200 calls,
   microseconds).
2. 1920x1080 grey, k = 3: jetfilter's median (auto, and each GPU
   variant), its Gaussian, and CV-CUDA's, ms a call (200 calls between
   synchronisations, the median of 5 rounds, the cells alternated).
With --cpu: NumPy arrays (8x8 and 640x480 grey, median k = 3, out=) on
a one-thread CPU context and on the default context (every core), the
one step and the Python path, against the same run() from C.
"""
import statistics
import sys
import time

import numpy as np

import jetfilter as jf
from jetfilter import _arrays, _context, _ops
from jetfilter import _jetfilter as c


def timed(f, n=200, rounds=24, after=lambda: None):
    """Microseconds a call: the median over rounds of n calls."""
    res = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(n):
            f()
        res.append((time.perf_counter() - t0) / n * 1e6)
        after()
    return statistics.median(res)


def cpu_steps():
    one = jf.Context(backend="cpu", threads=1)
    every = jf.default_context()
    op = [o for o in c.ops() if o["name"] == "median"][0]
    plan = _ops.plan("median", (("ksize", 3),), (3,))
    print("# %s; default context: %d threads" % (one, every.info()["threads"]))
    for h, w in ((8, 8), (480, 640)):
        x = np.random.default_rng(1).integers(0, 256, (h, w), dtype=np.uint8)
        out = np.empty_like(x)
        src, dst = _arrays.describe(x).spec, _arrays.describe(out, True).spec
        rows = [("the call, one thread", lambda: jf.median(x, ksize=3, out=out, context=one)),
                ("the call, default context", lambda: jf.median(x, ksize=3, out=out)),
                ("the extension's one step, fast()", lambda: c.fast(plan, x, out, one)),
                ("Python path: the call, one thread",
                 lambda: _ops.run_filter(op, x, out, one, None, (("ksize", 3),), (3,)))]
        for name, f in rows:
            print("%dx%d %-44s %7.2f us" % (w, h, name, timed(f, 2000, 15)))
        print("%dx%d %-44s %7.2f us" % (w, h, "the same run() from C, one thread",
                                        statistics.median(c.c_call_loop(one, plan, src, dst, 2000)
                                                          for _ in range(15))))


def steps():
    import cupy as cp
    import torch
    x = cp.asarray(np.random.default_rng(1).integers(0, 256, (480, 640), dtype=np.uint8))
    out = cp.empty_like(x)
    ctx = jf.Context(backend="cuda")
    stream = cp.cuda.Stream(non_blocking=True)

    def t(f):
        return timed(f, after=stream.synchronize)

    with stream:
        ctx.set_stream(stream)
        plan = _ops.plan("median", (("ksize", 3),), (3,))
        op = [o for o in c.ops() if o["name"] == "median"][0]
        tx = torch.as_tensor(cp.asnumpy(x), device="cuda")
        tout = torch.empty_like(tx)
        img, _ = _ops._prepare(x, ctx, None)
        dst = _arrays.describe(out, True, "out")
        rows = [("the call", lambda: jf.median(x, ksize=3, out=out, context=ctx)),
                ("the call, default context", lambda: jf.median(x, ksize=3, out=out)),
                ("the call, no out= (CuPy makes it)", lambda: jf.median(x, ksize=3, context=ctx)),
                ("the call, PyTorch tensors", lambda: jf.median(tx, ksize=3, out=tout, context=ctx)),
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
    import cupy as cp
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
    if "--cpu" in sys.argv[1:]:
        cpu_steps()
    else:
        steps()
        cells()
