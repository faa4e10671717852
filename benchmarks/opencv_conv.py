#!/usr/bin/python3
"""OpenCV's filter2D and GaussianBlur on the cells `jetfilter bench --backend
cpu -f conv,gauss` measures, for comparison.

    /usr/bin/python3 benchmarks/opencv_conv.py [PHOTO] [THREADS] [REPS] [WxH] [DEPTH] [KS]

Tiles the photo as the bench does (grey = (R+G+B)//3; DEPTH 16: v * 256 plus
a seeded low byte), edges replicated as the bench's default border.
`conv`: filter2D with the bench's arbitrary k x k weights (the same xorshift
sequence, not separable: OpenCV switches to a DFT for large kernels).
`gauss`: GaussianBlur with k and the sigma jetfilter takes for k,
0.3((k - 1)/2 - 1) + 0.8 (OpenCV's formula), so both blur with the same
weights.  `gauss-sigma0` (k <= 7 only): GaussianBlur with sigma 0, where
OpenCV takes fixed binomial weights instead of its formula ([1 2 1] / 4 at
k = 3: other weights than jetfilter's, with a shift-and-add path of their own).  Prints the median wall time of REPS runs after one warm-up.
Uses Debian's python3-opencv (only here, never by jetfilter itself).
"""
import sys
import time

import cv2
import numpy as np

from opencv_median import tiled, widened16  # the bench's inputs, made the same way

KS = [3, 5, 7, 9, 11, 13, 15, 21, 31, 41, 51, 63]


def arbitrary_weights(k):
    """benchmarks/bench_util.c, jf_bench_arbitrary_weights."""
    state, mask = 0x2545F4914F6CDD1D, (1 << 64) - 1
    w = []
    for _ in range(k * k):
        state ^= (state << 13) & mask
        state ^= state >> 7
        state ^= (state << 17) & mask
        w.append(float(np.float32((state >> 40) / float(1 << 24) + 0.05)))
    w = np.array(w, dtype=np.float64)
    return (w / w.sum()).astype(np.float32).reshape(k, k)


def timed(fn, reps):
    fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    times.sort()
    return times[reps // 2]


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "samples/images/retina.jpg"
    threads = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    reps = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    w, h = tuple(map(int, (sys.argv[4] if len(sys.argv) > 4 else "3840x2160").split("x")))
    depth = int(sys.argv[5]) if len(sys.argv) > 5 else 8
    ks = [int(v) for v in sys.argv[6].split(",")] if len(sys.argv) > 6 else KS
    rng = np.random.default_rng(1)
    if threads:
        cv2.setNumThreads(threads)
    photo = cv2.imread(path, cv2.IMREAD_COLOR)[:, :, ::-1]
    print(f"# OpenCV {cv2.__version__} filter2D and GaussianBlur, {cv2.getNumThreads()} threads, "
          f"photo {path}, {depth}-bit, BORDER_REPLICATE, median of {reps} runs")
    print("width,height,channels,depth,operation,k,ms")
    for ch in (1, 3):
        src = tiled(photo, w, h, ch)
        if depth == 16:
            src = widened16(src, rng)
        for k in ks:
            wk = arbitrary_weights(k)
            ms = timed(lambda: cv2.filter2D(src, -1, wk, borderType=cv2.BORDER_REPLICATE), reps)
            print(f"{w},{h},{ch},{depth},conv,{k},{ms:.3f}", flush=True)
            sigma = 0.3 * ((k - 1) * 0.5 - 1) + 0.8
            ms = timed(lambda: cv2.GaussianBlur(src, (k, k), sigma, borderType=cv2.BORDER_REPLICATE), reps)
            print(f"{w},{h},{ch},{depth},gauss,{k},{ms:.3f}", flush=True)
            if k <= 7:
                ms = timed(lambda: cv2.GaussianBlur(src, (k, k), 0, borderType=cv2.BORDER_REPLICATE), reps)
                print(f"{w},{h},{ch},{depth},gauss-sigma0,{k},{ms:.3f}", flush=True)


if __name__ == "__main__":
    main()
