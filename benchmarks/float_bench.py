#!/usr/bin/env python3
"""float32 images on the GPU: jetfilter against CV-CUDA in one run.

The median (k = 3 to 11) and the Gaussian (k = 3 to 11, OpenCV's sigma
for k) of float32 images at 1920x1080 and 3840x2160, grey and RGB:
jetfilter on CuPy arrays, CV-CUDA's median_blur_into and gaussian_into on
PyTorch tensors.  Each cell: the device synchronised, N calls,
synchronised again; the median of 7 rounds after warm-up, in ms per image.
Before timing, each cell's jetfilter output is checked: the median equal
to jetfilter's CPU (NumPy's order), the Gaussian within 1e-5 of it, and
CV-CUDA's median equal to ours (no NaN in these images).

    python3 benchmarks/float_bench.py --out DIR
Writes DIR/float_bench.json and prints a markdown table.
"""
import argparse
import json
import os
import sys

import numpy as np

import jetfilter as jf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from python_bench import per_call, sigma_for, sync  # noqa: E402  the same timing


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=".")
    ap.add_argument("--ks", default="3,5,7,9,11")
    ap.add_argument("--sizes", default="1920x1080,3840x2160")
    args = ap.parse_args()
    import cupy as cp
    import torch
    try:
        import cvcuda
    except ImportError:
        cvcuda = None
    ks = [int(k) for k in args.ks.split(",")]
    sizes = [tuple(int(v) for v in s.split("x")) for s in args.sizes.split(",")]
    cpu = jf.Context(backend="cpu")
    rows = []
    for (w, h) in sizes:
        for c in (1, 3):
            rng = np.random.default_rng(w + c)
            img = rng.uniform(0.0, 10.0, (h, w, c) if c > 1 else (h, w)).astype(np.float32)
            x = cp.asarray(img)
            out = cp.empty_like(x)
            t = torch.as_tensor(img, device="cuda").reshape(1, h, w, c)
            tout = torch.empty_like(t)
            if cvcuda is not None:
                cin, cout = cvcuda.as_tensor(t, "NHWC"), cvcuda.as_tensor(tout, "NHWC")
            check = w * h <= 1920 * 1080  # the CPU reference at 1080p only (time)
            for op in ("median", "gauss"):
                for k in ks:
                    s = sigma_for(k)
                    reps = max(3, min(200, int(2e8 / (w * h * c * k))))
                    row = {"size": "%dx%d" % (w, h), "channels": c, "op": op, "k": k}
                    if op == "median":
                        f = lambda: jf.median(x, ksize=k, out=out)
                    else:
                        f = lambda: jf.gauss(x, ksize=k, sigma=s, out=out)
                    f()
                    sync()
                    if check:
                        if op == "median":
                            want = jf.median(img, ksize=k, context=cpu)
                            row["equal_to_cpu"] = bool(np.array_equal(cp.asnumpy(out), want))
                        else:
                            want = jf.gauss(img, ksize=k, sigma=s, context=cpu)
                            row["max_diff_cpu"] = float(np.abs(cp.asnumpy(out) - want).max())
                    row["jetfilter_ms"] = per_call(f, reps)
                    if cvcuda is not None:
                        if op == "median":
                            g = lambda: cvcuda.median_blur_into(cout, cin, (k, k))
                        else:
                            g = lambda: cvcuda.gaussian_into(cout, cin, (k, k), (s, s), cvcuda.Border.REPLICATE)
                        try:
                            g()
                            sync()
                            if op == "median":
                                row["cvcuda_equal"] = bool(np.array_equal(
                                    tout.reshape(x.shape).cpu().numpy(), cp.asnumpy(out)))
                            row["cvcuda_ms"] = per_call(g, reps, rounds=5)
                        except Exception as e:  # a type or k CV-CUDA refuses
                            row["cvcuda_error"] = str(e)[:120]
                    rows.append(row)
                    print(json.dumps(row), flush=True)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "float_bench.json"), "w") as fh:
        json.dump({"device": torch.cuda.get_device_name(0), "jetfilter": jf.__version__,
                   "cvcuda": getattr(cvcuda, "__version__", None), "rows": rows}, fh, indent=1)
    print("\n| size | ch | op | k | jetfilter ms | CV-CUDA ms | jetfilter / CV-CUDA | check |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        cv = r.get("cvcuda_ms")
        chk = "equal" if r.get("equal_to_cpu") else ("%.1e" % r["max_diff_cpu"] if "max_diff_cpu" in r else "-")
        print("| %s | %d | %s | %d | %.4f | %s | %s | %s |" % (
            r["size"], r["channels"], r["op"], r["k"], r["jetfilter_ms"],
            "%.4f" % cv if cv else r.get("cvcuda_error", "-"),
            "%.2f" % (r["jetfilter_ms"] / cv) if cv else "-", chk))


if __name__ == "__main__":
    main()
