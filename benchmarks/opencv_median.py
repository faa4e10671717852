#!/usr/bin/env python3
"""OpenCV's medianBlur on the same cells as bench_median_cpu, for comparison.

    python3 benchmarks/opencv_median.py [PHOTO] [THREADS] [REPS] [WxH] [DEPTH]

Uses Debian's python3-opencv (used only here, never by jetfilter itself).
Tiles the photo exactly as bench_median_cpu does (grey = (R+G+B)//3),
warms up once, prints the median wall time of REPS runs, and checks one
output per cell against jetfilter's output when --check is given.  DEPTH 16:
the tiled photo widened to 16 bits (v * 256 plus a seeded low byte, as
`jetfilter bench --depth 16` makes its inputs); OpenCV's medianBlur takes
16-bit images at k = 3 and 5 only.
"""
import sys
import time

import cv2
import numpy as np

SIZES = [(345, 194), (1440, 810), (1920, 1080), (3840, 2160)]
KS = [3, 5, 7, 9, 11, 15, 21, 31, 41, 51, 63]


def tiled(photo, w, h, ch):
    ys = np.arange(h) % photo.shape[0]
    xs = np.arange(w) % photo.shape[1]
    img = photo[ys][:, xs]
    if ch == 1:
        img = (img.astype(np.uint32).sum(axis=2) // 3).astype(np.uint8)
    return np.ascontiguousarray(img)


def widened16(img, rng):
    """v * 256 plus a seeded low byte, as `jetfilter bench --depth 16` widens."""
    return np.ascontiguousarray(img.astype(np.uint16) * 256 +
                                rng.integers(0, 256, img.shape).astype(np.uint16))


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "samples/images/retina.jpg"
    threads = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    reps = int(sys.argv[3]) if len(sys.argv) > 3 else 7
    sizes = [tuple(map(int, sys.argv[4].split("x")))] if len(sys.argv) > 4 and sys.argv[4] else SIZES
    depth = int(sys.argv[5]) if len(sys.argv) > 5 else 8
    ks = [3, 5] if depth == 16 else KS
    rng = np.random.default_rng(1)
    if threads:
        cv2.setNumThreads(threads)
    # jetfilter decodes RGB; OpenCV decodes BGR: flip so channel order matches
    photo = cv2.imread(path, cv2.IMREAD_COLOR)[:, :, ::-1]
    print(f"# OpenCV {cv2.__version__} medianBlur, {cv2.getNumThreads()} threads, photo {path}, "
          f"{depth}-bit, median of {reps} runs")
    print("width,height,channels,k,ms")
    for w, h in sizes:
        for ch in (1, 3):
            src = tiled(photo, w, h, ch)
            if depth == 16:
                src = widened16(src, rng)
            for k in ks:
                cv2.medianBlur(src, k)
                times = []
                for _ in range(reps):
                    t0 = time.perf_counter()
                    cv2.medianBlur(src, k)
                    times.append((time.perf_counter() - t0) * 1e3)
                times.sort()
                print(f"{w},{h},{ch},{k},{times[reps // 2]:.3f}", flush=True)


if __name__ == "__main__":
    main()
