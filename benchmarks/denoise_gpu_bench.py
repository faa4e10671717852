"""The denoisers on a GPU against CV-CUDA's bilateral filter and OpenCV's
CPU non-local means, in one run (benchmarks/RESULTS.md, "Camera noise").

    python3 benchmarks/denoise_gpu_bench.py [--reps N] [--out FILE.json]
    python3 benchmarks/denoise_gpu_bench.py --cpu [--exe build/jetfilter]

--cpu: non-local means on the CPU against OpenCV's, 1080p grey and RGB,
search 21 and patch 7 for both, on every core and on one.

jetfilter's kernels are timed from C (the bench's CUDA events, through
`jetfilter bench`), CV-CUDA's with CUDA events around its call on the same
stream; per image at 1920x1080 and 3840x2160, grey and RGB."""
import argparse, json, os, subprocess, sys, time

import numpy as np


def cvcuda_bilateral(sizes, diameters, reps):
    try:
        import cvcuda, torch
    except ImportError as e:
        return {"error": "CV-CUDA not here: %s" % e}
    out = {}
    for (w, h) in sizes:
        for c in (1, 3):
            img = torch.randint(0, 256, (1, h, w, c), dtype=torch.uint8, device="cuda")
            src = cvcuda.as_tensor(img, "NHWC")
            dst = cvcuda.as_tensor(torch.empty_like(img), "NHWC")
            for d in diameters:
                for _ in range(3):
                    cvcuda.bilateral_filter_into(dst, src, d, 50.0, d / 3.0, cvcuda.Border.REPLICATE)
                times = []
                s = torch.cuda.current_stream()
                for _ in range(reps):
                    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                    a.record(s)
                    cvcuda.bilateral_filter_into(dst, src, d, 50.0, d / 3.0, cvcuda.Border.REPLICATE)
                    b.record(s)
                    b.synchronize()
                    times.append(a.elapsed_time(b))
                out["%dx%dx%d d=%d" % (w, h, c, d)] = float(np.median(times))
    return out


def jetfilter_bench(exe, args):
    p = subprocess.run([exe, "bench", "--json", "-", "--quiet"] + args, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True)
    if p.returncode != 0:
        return {"error": p.stderr[-2000:]}
    rep = json.loads(p.stdout)
    cells = {}
    for cell in rep["cells"]:
        key = "%s %dx%dx%d k=%s %s" % (cell["operation"], cell["width"], cell["height"], cell["channels"],
                                       cell["ksize"], cell["variant"])
        cells[key] = {"ms": cell["ms"], "check": cell["check"]}
    return cells


def opencv_nlm(sizes, reps):
    import cv2
    out = {}
    cv2.setNumThreads(os.cpu_count() or 1)
    for (w, h) in sizes:
        rng = np.random.default_rng(1)
        img = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
        t = time.time()
        for _ in range(reps):
            cv2.fastNlMeansDenoisingColored(img, None, 10, 10, 7, 21)
        out["%dx%dx3 search 21 patch 7, %d threads" % (w, h, os.cpu_count())] = 1000 * (time.time() - t) / reps
    return out


def cpu_nlm(exe, reps):
    """jetfilter's CPU non-local means and OpenCV's, same photo-free input,
    on every core and on one; ms per image."""
    import cv2
    out = {}
    rng = np.random.default_rng(1)
    clean = rng.integers(0, 256, (1080, 1920, 3)).astype(np.float64)
    for threads in (os.cpu_count() or 1, 1):
        cv2.setNumThreads(threads)
        for ch in (1, 3):
            img = np.clip(np.round((clean[..., 0] if ch == 1 else clean) + rng.normal(0, 20, clean.shape[:2] +
                          ((3,) if ch == 3 else ()))), 0, 255).astype(np.uint8)
            t = time.time()
            for _ in range(reps):
                if ch == 1:
                    cv2.fastNlMeansDenoising(img, None, 20, 7, 21)
                else:
                    cv2.fastNlMeansDenoisingColored(img, None, 20, 20, 7, 21)
            out["opencv 1920x1080x%d, %d threads" % (ch, threads)] = 1000 * (time.time() - t) / reps
        cells = jetfilter_bench(exe, ["--backend", "cpu", "--threads", str(threads), "--size", "1920x1080",
                                      "--channels", "1,3", "--reps", str(reps), "--filter", "nlmeans",
                                      "--noise-sigma", "20", "--search", "21", "--patch", "7"])
        for k, v in cells.items():
            out["jetfilter %s, %d threads" % (k, threads)] = v
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--exe", default="build-gpu/jetfilter")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--out", default=None)
    ap.add_argument("--cpu", action="store_true", help="the CPU comparison only")
    a = ap.parse_args()
    if a.cpu:
        res = {"cpu_nlmeans": cpu_nlm(a.exe, min(a.reps, 3))}
        print(json.dumps(res, indent=1))
        return
    sizes = [(1920, 1080), (3840, 2160)]
    res = {"cvcuda_bilateral_ms": cvcuda_bilateral(sizes, [5, 9, 15], a.reps)}
    common = ["--size", "1920x1080,3840x2160", "--channels", "1,3", "--reps", str(a.reps)]
    res["jetfilter_bilateral"] = jetfilter_bench(a.exe, common + ["--filter", "bilateral", "-k", "5,9,15",
                                                                  "--sigma-color", "50", "--variant", "fast,global"])
    res["jetfilter_nlmeans"] = jetfilter_bench(a.exe, common + ["--filter", "nlmeans", "--noise-sigma", "20",
                                                                "--search", "21", "--patch", "7",
                                                                "--variant", "fast,global"])
    res["jetfilter_nlmeans_nano"] = jetfilter_bench(a.exe, ["--size", "1920x1080", "--channels", "1", "--reps",
                                                            str(a.reps), "--filter", "nlmeans", "--noise-sigma", "20",
                                                            "--search", "11", "--patch", "5", "--variant", "fast"])
    res["jetfilter_guided"] = jetfilter_bench(a.exe, common + ["--filter", "guided", "-k", "5,15", "--eps", "400"])
    res["opencv_nlm_cpu_ms"] = opencv_nlm([(1920, 1080)], 1)
    text = json.dumps(res, indent=1)
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
