"""Camera noise: jetfilter's denoisers, blind (nothing told), against
OpenCV's non-local means with its settings tuned per noise level with
hindsight (h for the grey photos; h and hColor for the colour ones) and
BM3D (the `bm3d` package from PyPI, a yardstick only: its licence is
non-commercial) given jetfilter's estimate of the noise.

    python3 benchmarks/denoise_quality.py [--crop 256] [--out results.json]
        [--no-bm3d | --bm3d-from EARLIER.json]
    python3 benchmarks/denoise_quality.py --table results.json   (the tables again)

Photos: scikit-image's sample data (the ones not in this repository
first), a centred crop of each; noise: Gaussian of 10, 20 and 30 levels
and a Poisson-Gaussian sensor (40 electrons at white, read noise 3
levels), rounded and clipped as an 8-bit file holds it.  PSNR and SSIM by
scikit-image.  Prints a table per noise level and photo, and the means."""
import argparse, json, sys, time

import numpy as np

import jetfilter as jf

GREY = ["camera", "brick", "grass", "gravel", "moon", "coins", "clock"]
COLOUR = ["immunohistochemistry", "cat", "astronaut", "coffee", "rocket"]


def photos(crop):
    import skimage.data as d
    out = {}
    for n in GREY + COLOUR:
        a = getattr(d, n)()
        h, w = a.shape[:2]
        c = min(crop, h, w)
        y, x = (h - c) // 2, (w - c) // 2
        out[n] = np.ascontiguousarray(a[y:y + c, x:x + c])
    return out


def noisy_of(img, kind, rng):
    x = img.astype(np.float64)
    if kind == "pg":
        a = 255.0 / 40.0
        y = rng.poisson(x / a) * a + rng.normal(0, 3.0, x.shape)
    else:
        y = x + rng.normal(0, float(kind), x.shape)
    return np.clip(np.round(y), 0, 255).astype(np.uint8)


def scores(clean, out):
    from skimage.metrics import peak_signal_noise_ratio, structural_similarity
    p = peak_signal_noise_ratio(clean, out, data_range=255)
    s = structural_similarity(clean, out, data_range=255, channel_axis=-1 if clean.ndim == 3 else None,
                              gaussian_weights=True, sigma=1.5, use_sample_covariance=False)
    return p, s


def opencv_nlm(noisy, h, h_color=None):
    import cv2
    if noisy.ndim == 3:
        return cv2.fastNlMeansDenoisingColored(noisy, None, h, h if h_color is None else h_color, 7, 21)
    return cv2.fastNlMeansDenoising(noisy, None, h, 7, 21)


def opencv_hindsight(imgs, noisies):
    """OpenCV's settings with the best mean PSNR, chosen with hindsight per
    noise level: h for the grey photos, h and hColor for the colour ones."""
    best = {}
    for colour in (False, True):
        names = [n for n in imgs if (imgs[n].ndim == 3) == colour]
        for h in [float(v) for v in range(2, 41, 2)]:
            for hc in ([h / 2, h, 1.5 * h, 2 * h] if colour else [None]):
                m = np.mean([scores(imgs[n], opencv_nlm(noisies[n], h, hc))[0] for n in names])
                if colour not in best or m > best[colour][0]:
                    best[colour] = (m, h, hc)
    return best


def bm3d_run(noisy, sigma):
    import bm3d
    x = noisy.astype(np.float64) / 255.0
    s = max(sigma, 0.5) / 255.0
    y = bm3d.bm3d_rgb(x, s) if x.ndim == 3 else bm3d.bm3d(x, s)
    return np.clip(np.round(y * 255.0), 0, 255).astype(np.uint8)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--crop", type=int, default=256)
    ap.add_argument("--out", default=None)
    ap.add_argument("--no-bm3d", action="store_true")
    ap.add_argument("--table", default=None, metavar="RESULTS.json",
                    help="print the markdown tables of an earlier --out, run nothing")
    ap.add_argument("--bm3d-from", default=None,
                    help="BM3D's scores from an earlier --out of the same noise (it is slow)")
    a = ap.parse_args()
    if a.table:
        with open(a.table) as f:
            print(markdown(json.load(f)))
        return
    earlier = None
    if a.bm3d_from:
        with open(a.bm3d_from) as f:
            earlier = json.load(f)
    ctx = jf.Context(backend="cpu")
    imgs = photos(a.crop)
    rng = np.random.default_rng(2026)
    results = {}
    for kind in [10, 20, 30, "pg"]:
        noisies = {n: noisy_of(im, kind, rng) for n, im in imgs.items()}
        best = opencv_hindsight(imgs, noisies)
        rows = {}
        for n in imgs:
            row = {"noisy": scores(imgs[n], noisies[n])}
            t = time.time()
            b = best[imgs[n].ndim == 3]
            row["opencv_nlm"] = scores(imgs[n], opencv_nlm(noisies[n], b[1], b[2]))
            est = jf.estimate(noisies[n], context=ctx)
            for op in ("nlmeans", "auto", "bilateral", "guided"):
                out = getattr(jf, op)(noisies[n], context=ctx)
                out = out[0] if isinstance(out, tuple) else out
                row[op] = scores(imgs[n], out)
            if earlier is not None:
                was = earlier[str(kind)]["photos"][n]
                if abs(was["noisy"][0] - row["noisy"][0]) > 1e-9:
                    sys.exit("denoise_quality: --bm3d-from holds other noise (%s, %s)" % (kind, n))
                row["bm3d"] = was["bm3d"]
            elif not a.no_bm3d:
                row["bm3d"] = scores(imgs[n], bm3d_run(noisies[n], est["sigma"]))
            row["estimate"] = est["sigma"]
            rows[n] = row
            print("%-4s %-20s sigma~%5.2f  " % (kind, n, est["sigma"]) +
                  "  ".join("%s %.2f" % (k, v[0]) for k, v in row.items() if k != "estimate"), flush=True)
        results[str(kind)] = {"opencv_h_grey": best[False][1], "opencv_h_colour": best[True][1],
                              "opencv_hcolor_colour": best[True][2], "photos": rows}
        names = [k for k in rows[next(iter(rows))] if k != "estimate"]
        print("%-4s MEAN  " % kind + "  ".join("%s %.2f/%.3f" % (k, np.mean([rows[n][k][0] for n in rows]),
                                                               np.mean([rows[n][k][1] for n in rows]))
                                               for k in names), flush=True)
        worst = min(rows[n]["nlmeans"][0] - rows[n]["opencv_nlm"][0] for n in rows)
        print("%-4s nlmeans - opencv: mean %+.2f dB, worst %+.2f dB" % (
            kind, np.mean([rows[n]["nlmeans"][0] - rows[n]["opencv_nlm"][0] for n in rows]), worst), flush=True)
    if a.out:
        with open(a.out, "w") as f:
            json.dump(results, f, indent=1)
    print(markdown(results))


def markdown(results):
    """The tables of RESULTS.md: per photo, and the means."""
    kinds = list(results)
    label = {"10": "sigma 10", "20": "sigma 20", "30": "sigma 30", "pg": "Poisson-Gaussian"}
    names = list(results[kinds[0]]["photos"])
    has_bm3d = "bm3d" in results[kinds[0]]["photos"][names[0]]
    cols = ["auto", "opencv_nlm"] + (["bm3d"] if has_bm3d else [])
    out = ["PSNR, dB: jetfilter `auto` / OpenCV tuned" + (" / BM3D" if has_bm3d else "") + "; "
           "worst: jetfilter minus OpenCV on its worst photo", "",
           "| photo | " + " | ".join(label.get(k, k) for k in kinds) + " |",
           "|---|" + "---|" * len(kinds)]
    for n in names:
        out.append("| %s | " % n + " | ".join(" / ".join("%.2f" % results[k]["photos"][n][c][0] for c in
                                                         cols) for k in kinds) + " |")
    out.append("| **mean** | " + " | ".join(" / ".join("%.2f" % np.mean(
        [results[k]["photos"][n][c][0] for n in names]) for c in cols) for k in kinds) + " |")
    out.append("| worst | " + " | ".join("%+.2f" % min(
        results[k]["photos"][n]["auto"][0] - results[k]["photos"][n]["opencv_nlm"][0] for n in names)
        for k in kinds) + " |")
    out += ["", "Means over the photos, PSNR dB / SSIM:", "",
            "| noise | noisy | OpenCV tuned | nlmeans | auto | bilateral | guided |" +
            (" BM3D |" if has_bm3d else ""),
            "|---|---|---|---|---|---|---|" + ("---|" if has_bm3d else "")]
    for k in kinds:
        ph = results[k]["photos"]
        cells = ["noisy", "opencv_nlm", "nlmeans", "auto", "bilateral", "guided"] + (["bm3d"] if has_bm3d else [])
        out.append("| %s | " % label.get(k, k) + " | ".join("%.2f / %.3f" % (
            np.mean([ph[n][c][0] for n in names]), np.mean([ph[n][c][1] for n in names])) for c in cells) + " |")
    return "\n".join(out)


if __name__ == "__main__":
    main()
