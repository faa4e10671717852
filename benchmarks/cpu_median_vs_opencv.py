#!/usr/bin/env python3
"""jetfilter's CPU median (or erode, dilate) against OpenCV's medianBlur
(erode, dilate with a k x k square) in one process, on the same arrays,
calls alternated, each call making a new output (as OpenCV's does; with
--out each writes into an output made once, jetfilter's `out=` and
OpenCV's `dst=`), outputs compared (both replicate the border).

    python3 benchmarks/cpu_median_vs_opencv.py [--op median|erode|dilate]
        [--threads N] [--reps R] [--size WxH] [--ks 3,5,...] [--depth 8|16] [--out] [PHOTO]

Prints, per cell, the median wall time and CPU time (this process's, over
all its threads) of each, the calls alternated one by one, and the median
of the pairs' ratios.  The photo is tiled to the size
(grey = (R+G+B)//3); 16 bits: v * 256 plus a seeded low byte.  OpenCV's
medianBlur takes 16-bit images at k = 3 and 5 only, and above k = 5 runs
its 8-bit histogram method.  A new output is new memory from the kernel
where glibc maps it apart (over 32 MiB): its pages are zeroed as each
call first writes them, the same time on both sides.
"""
import argparse
import os
import time

import cv2
import numpy as np

import jetfilter as jf
from opencv_median import tiled  # the same tiling as the other median benchmarks


def clocked(fn):
    """Wall and CPU milliseconds of one call."""
    c0, t0 = time.process_time(), time.perf_counter()
    fn()
    return (time.perf_counter() - t0) * 1e3, (time.process_time() - c0) * 1e3


def timed_pair(ours, theirs, reps):
    """Medians of reps calls of each, alternated call by call (one warm-up
    each), and the median of the calls' ratios: on a shared machine a slow
    spell then slows both sides of a pair."""
    ours()
    theirs()
    a, b, ratios = [], [], []
    for _ in range(reps):
        a.append(clocked(ours))
        b.append(clocked(theirs))
        ratios.append(a[-1][0] / b[-1][0])

    def median(v):
        return sorted(v)[len(v) // 2]
    return (median([w for w, _ in a]), median([c for _, c in a]), median([w for w, _ in b]),
            median([c for _, c in b]), median(ratios))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("photo", nargs="?", default=os.path.join(here, "..", "samples", "images", "retina.jpg"))
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--reps", type=int, default=9)
    ap.add_argument("--size", default="3840x2160")
    ap.add_argument("--ks", default="3,5,7,11,15,31,63")
    ap.add_argument("--depth", type=int, default=8)
    ap.add_argument("--op", choices=("median", "erode", "dilate"), default="median")
    ap.add_argument("--out", action="store_true", help="write into outputs made once")
    a = ap.parse_args()
    w, h = map(int, a.size.split("x"))
    cv2.setNumThreads(a.threads)
    ctx = jf.Context(backend="cpu", threads=a.threads)
    photo = jf.read(a.photo).pixels
    rng = np.random.default_rng(1)
    print("# jetfilter %s and OpenCV %s, %s, %d thread(s), %s tiled to %dx%d, %d-bit, median of %d%s"
          % (jf.__version__, cv2.__version__, a.op, a.threads, os.path.basename(a.photo), w, h, a.depth,
             a.reps, ", outputs made once" if a.out else ""))
    outs = {}

    def out(src, side):
        """The output made once for this shape (None without --out)."""
        if not a.out:
            return None
        key = (src.shape, src.dtype.str, side)
        if key not in outs:
            outs[key] = np.empty_like(src)
        return outs[key]

    def ours(src, k):
        return getattr(jf, a.op)(src, ksize=k, context=ctx, out=out(src, 0))

    def theirs(src, k):
        if a.op == "median":
            return cv2.medianBlur(src, k, dst=out(src, 1))
        square = np.ones((k, k), np.uint8)
        return getattr(cv2, a.op)(src, square, dst=out(src, 1), borderType=cv2.BORDER_REPLICATE)
    print("channels,k,jf_ms,jf_cpu_ms,cv_ms,cv_cpu_ms,jf/cv,equal")
    for ch in (1, 3):
        src = tiled(photo, w, h, ch)
        if a.depth == 16:
            src = np.ascontiguousarray(src.astype(np.uint16) * 256 +
                                       rng.integers(0, 256, src.shape).astype(np.uint16))
        for k in map(int, a.ks.split(",")):
            if a.op == "median" and a.depth == 16 and k > 5:
                continue
            same = np.array_equal(ours(src, k), theirs(src, k))
            jf_ms, jf_cpu, cv_ms, cv_cpu, ratio = timed_pair(lambda: ours(src, k), lambda: theirs(src, k),
                                                             a.reps)
            print("%d,%d,%.3f,%.3f,%.3f,%.3f,%.2f,%s" % (ch, k, jf_ms, jf_cpu, cv_ms, cv_cpu, ratio,
                                                         "yes" if same else "no"),
                  flush=True)


if __name__ == "__main__":
    main()
