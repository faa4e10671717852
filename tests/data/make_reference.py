#!/usr/bin/env python3
"""Reference numbers for the tests, from implementations independent of jetfilter.

Run from the repository root with Debian's python3-numpy, python3-scipy,
python3-skimage and python3-pil (scikit-image 0.19.3, scipy 1.10.1 when the
committed files were made):

    python3 tests/data/make_reference.py

Writes, into tests/data/:
  random_37x23.png                 seeded random grey image
  scipy_median_k{3,7}_{mode}.png   scipy.ndimage.median_filter of it, for the
                                   modes constant (cval 0), nearest, reflect, mirror
  *_noisy.png, *_a.png, *_b.png    image pairs for the metrics
  reference_metrics.txt            "A B psnr_db ssim" per pair, from
                                   skimage.metrics (data_range=255, SSIM with
                                   gaussian_weights=True, sigma=1.5,
                                   use_sample_covariance=False)
"""
import os

import numpy as np
from PIL import Image
from scipy import ndimage
from skimage.metrics import peak_signal_noise_ratio, structural_similarity

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def save(name, array):
    Image.fromarray(array).save(os.path.join(HERE, name))


def load(path):
    return np.asarray(Image.open(path))


def main():
    rng = np.random.default_rng(20261121)
    img = rng.integers(0, 256, size=(23, 37), dtype=np.uint8)
    save("random_37x23.png", img)
    for k in (3, 7):
        for mode in ("constant", "nearest", "reflect", "mirror"):
            out = ndimage.median_filter(img, size=k, mode=mode, cval=0)
            save(f"scipy_median_k{k}_{mode}.png", out)

    pairs = []
    chelsea = load(os.path.join(ROOT, "samples/images/chelsea.png"))
    noisy = np.clip(chelsea + rng.normal(0, 20, chelsea.shape), 0, 255).round().astype(np.uint8)
    save("chelsea_noisy.png", noisy)
    pairs.append(("samples/images/chelsea.png", "tests/data/chelsea_noisy.png"))

    coffee = load(os.path.join(ROOT, "samples/images/coffee.png"))
    grey = (coffee.astype(np.uint32).sum(axis=2) // 3).astype(np.uint8)[::2, ::2]
    save("coffee_grey_a.png", grey)
    save("coffee_grey_b.png", ndimage.median_filter(grey, size=3, mode="nearest"))
    pairs.append(("tests/data/coffee_grey_a.png", "tests/data/coffee_grey_b.png"))

    for w, h in ((11, 11), (40, 12)):
        a = rng.integers(0, 256, size=(h, w), dtype=np.uint8)
        b = np.clip(a.astype(int) + rng.integers(-30, 31, size=a.shape), 0, 255).astype(np.uint8)
        save(f"small_{w}x{h}_a.png", a)
        save(f"small_{w}x{h}_b.png", b)
        pairs.append((f"tests/data/small_{w}x{h}_a.png", f"tests/data/small_{w}x{h}_b.png"))

    with open(os.path.join(HERE, "reference_metrics.txt"), "w") as f:
        f.write("# A B psnr_db ssim  (scikit-image %s)\n" % __import__("skimage").__version__)
        for a_path, b_path in pairs:
            a = load(os.path.join(ROOT, a_path))
            b = load(os.path.join(ROOT, b_path))
            psnr = peak_signal_noise_ratio(a, b, data_range=255)
            ssim = structural_similarity(a, b, gaussian_weights=True, sigma=1.5,
                                         use_sample_covariance=False, data_range=255,
                                         channel_axis=2 if a.ndim == 3 else None)
            f.write(f"{a_path} {b_path} {psnr:.12f} {ssim:.12f}\n")


if __name__ == "__main__":
    main()
