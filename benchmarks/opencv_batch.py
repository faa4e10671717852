#!/usr/bin/env python3
"""The OpenCV loop a user would write, over the same folder as `jetfilter denoise`.

    python3 benchmarks/opencv_batch.py INPUT_DIR OUTPUT_DIR [-k K] [-j JOBS]

imread / medianBlur / imwrite for every JPEG and PNG under INPUT_DIR into a
mirrored tree, with OpenCV's defaults (JPEG quality 95, PNG level 1), JOBS
processes; prints the wall time, the outputs' total size and the largest
peak resident memory of a worker (with the interpreter's and OpenCV's own,
measured before the first file).  -k 1 copies (decode + encode only).  Uses Debian's python3-opencv (only here, never by
jetfilter itself).
"""
import argparse
import os
import resource
import sys
import time
from multiprocessing import Pool

import cv2

EXTS = (".jpg", ".jpeg", ".png")


def one(job):
    src, dst, k = job
    img = cv2.imread(src, cv2.IMREAD_UNCHANGED)
    if img is None:
        return 0, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    if k > 1:
        img = cv2.medianBlur(img, k)
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    cv2.imwrite(dst, img)
    return os.path.getsize(dst), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def main():
    p = argparse.ArgumentParser()
    p.add_argument("input")
    p.add_argument("output")
    p.add_argument("-k", type=int, default=3)
    p.add_argument("-j", type=int, default=1)
    a = p.parse_args()
    cv2.setNumThreads(1)
    base_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    jobs = []
    for root, _, files in os.walk(a.input):
        for f in sorted(files):
            if f.lower().endswith(EXTS):
                src = os.path.join(root, f)
                jobs.append((src, os.path.join(a.output, os.path.relpath(src, a.input)), a.k))
    t0 = time.perf_counter()
    if a.j > 1:
        with Pool(a.j) as pool:
            done = pool.map(one, jobs, chunksize=1)
    else:
        done = [one(j) for j in jobs]
    dt = time.perf_counter() - t0
    print("opencv_batch: %d files, k=%d, -j %d: %.2f s, outputs %.1f MB, peak RSS a worker %.0f MB "
          "(%.0f MB before the first file)"
          % (len(jobs), a.k, a.j, dt, sum(d[0] for d in done) / 1e6, max(d[1] for d in done), base_mb))


if __name__ == "__main__":
    sys.exit(main())
