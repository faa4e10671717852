#!/usr/bin/env python3
"""16-bit reference numbers for the tests, from implementations independent of jetfilter.

Run from the repository root with Debian's python3-numpy, python3-scipy and
python3-skimage (scipy 1.10.1, scikit-image 0.19.3 when the committed files
were made):

    /usr/bin/python3 tests/data/make_reference16.py

The 16-bit image is made from a real photo: the Hubble Deep Field photo
(samples/images/hubble_deep_field.jpg, public domain), grey (R+G+B)/3 of a
crop, widened to 16 bits (v * 257) with seeded Gaussian noise of sigma 400
levels, so its low bits carry values of their own as a sensor's do; its noisy
twin adds sigma 2000 more.  Writes, into tests/data/:
  deep_grey_96x64.png              the 16-bit grey image
  deep_grey_96x64_noisy.png        its noisy twin
  scipy16_median_k{3,7,15}_{mode}.png
                                   scipy.ndimage.median_filter of the first, for
                                   the modes constant (cval 0), nearest, reflect,
                                   mirror
  reference_metrics16.txt          "A B psnr_db ssim" from skimage.metrics with
                                   data_range=65535 (SSIM: gaussian_weights=True,
                                   sigma=1.5, use_sample_covariance=False)
PNGs are written here with zlib (PIL keeps 16-bit grey only as mode I;16,
whose handling has varied between versions).
"""
import os
import struct
import zlib

import numpy as np
from PIL import Image
from scipy import ndimage
from skimage.metrics import peak_signal_noise_ratio, structural_similarity

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def write_png16(name, array):
    """A 16-bit grey PNG (colour type 0, depth 16), big-endian samples."""
    h, w = array.shape
    raw = b"".join(b"\0" + array[y].astype(">u2").tobytes() for y in range(h))

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 16, 0, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(png)


def main():
    rng = np.random.default_rng(20261123)
    photo = np.asarray(Image.open(os.path.join(ROOT, "samples/images/hubble_deep_field.jpg")))
    grey = (photo.astype(np.uint32).sum(axis=2) // 3)[400:464, 500:596]
    deep = np.clip(grey * 257.0 + rng.normal(0, 400, grey.shape), 0, 65535).round().astype(np.uint16)
    noisy = np.clip(deep + rng.normal(0, 2000, deep.shape), 0, 65535).round().astype(np.uint16)
    write_png16("deep_grey_96x64.png", deep)
    write_png16("deep_grey_96x64_noisy.png", noisy)
    for k in (3, 7, 15):
        for mode in ("constant", "nearest", "reflect", "mirror"):
            write_png16(f"scipy16_median_k{k}_{mode}.png",
                        ndimage.median_filter(deep, size=k, mode=mode, cval=0))
    a_path, b_path = "tests/data/deep_grey_96x64.png", "tests/data/deep_grey_96x64_noisy.png"
    psnr = peak_signal_noise_ratio(deep, noisy, data_range=65535)
    ssim = structural_similarity(deep, noisy, gaussian_weights=True, sigma=1.5,
                                 use_sample_covariance=False, data_range=65535)
    with open(os.path.join(HERE, "reference_metrics16.txt"), "w") as f:
        f.write("# A B psnr_db ssim  (scikit-image %s, data_range=65535)\n"
                % __import__("skimage").__version__)
        f.write(f"{a_path} {b_path} {psnr:.12f} {ssim:.12f}\n")


if __name__ == "__main__":
    main()
