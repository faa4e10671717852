#!/usr/bin/env python3
"""GPU time of each float32 kernel, jetfilter's and CV-CUDA's, without the
Python call around it: the Gaussian (k = 3 to 11) and the k = 3 median at
1920x1080 and 3840x2160, grey and RGB, each call made twice (the second
counted), under Nsight Compute's duration metric.

    ncu --metrics gpu__time_duration.sum --csv --print-units base \\
        python3 benchmarks/float_kernel_times.py > ncu.csv
    python3 benchmarks/float_kernel_times.py --table ncu.csv
"""
import csv
import sys

SIZES = [(1920, 1080), (3840, 2160)]
KS = (3, 5, 7, 9, 11)


def run():
    import numpy as np
    import cupy as cp
    import torch
    import jetfilter as jf
    import cvcuda
    sys.path.insert(0, __file__.rsplit("/", 1)[0])
    from python_bench import sigma_for
    rng = np.random.default_rng(1)
    for (w, h) in SIZES:
        for ch in (1, 3):
            a = rng.uniform(0, 10, (h, w, ch) if ch > 1 else (h, w)).astype(np.float32)
            x = cp.asarray(a)
            t = torch.as_tensor(a, device="cuda").reshape(1, h, w, ch).contiguous()
            ti, to = cvcuda.as_tensor(t, "NHWC"), cvcuda.as_tensor(torch.empty_like(t), "NHWC")
            for k in KS:
                for _ in range(2):
                    jf.gauss(x, ksize=k, sigma=sigma_for(k))
                for _ in range(2):
                    cvcuda.gaussian_into(to, ti, (k, k), (sigma_for(k), sigma_for(k)), cvcuda.Border.REPLICATE)
            for _ in range(2):
                jf.median(x, ksize=3)
            for _ in range(2):
                cvcuda.median_blur_into(to, ti, (3, 3))
            torch.cuda.synchronize()


def table(path):
    rows = [r for r in csv.reader(l for l in open(path) if l.startswith('"'))]
    head, rows = rows[0], rows[1:]
    name, value = head.index("Kernel Name"), head.index("Metric Value")
    kern = [(r[name], float(r[value].replace(",", "")) / 1000) for r in rows]
    ours = ("conv_float", "median_float", "pad_planes", "median_global")
    # calls in order: each jetfilter call is its kernels, CV-CUDA's the run of others after
    groups, cur = [], None
    for n, us in kern:
        mine = any(o in n for o in ours)
        if cur is None or cur[0] != mine:
            cur = [mine, 0.0, 0]
            groups.append(cur)
        cur[1] += us
        cur[2] += 1
    calls = [(g[0], g[1] / 2) for g in groups]  # each group is two calls
    print("| size | channels | filter | k | jetfilter us | CV-CUDA us |")
    print("|---|---|---|---|---|---|")
    i = 0
    for (w, h) in SIZES:
        for ch in (1, 3):
            for what, k in [("gauss", k) for k in KS] + [("median", 3)]:
                print("| %dx%d | %d | %s | %d | %.1f | %.1f |" % (w, h, ch, what, k, calls[i][1], calls[i + 1][1]))
                i += 2


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--table":
        table(sys.argv[2])
    else:
        run()
