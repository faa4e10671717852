#!/usr/bin/python3
"""Folders of real photos by file format, for the batch against OpenCV.

    /usr/bin/python3 benchmarks/format_set.py OUT [--sizes 4000x3000,1920x1080]

From each photo in samples/images (six public-domain photos), for every size:
scaled to cover the size (Lanczos) and cropped to it, then given sensor-like
noise (Gaussian, sigma 2 levels, seeded) so the upscaled photos do not
compress better than a camera's would.  Written as

    OUT/jpeg420/   RGB JPEG, quality 90, 4:2:0 (libjpeg through Pillow)
    OUT/jpeg444/   RGB JPEG, quality 90, 4:4:4
    OUT/png-grey/  8-bit grey PNG
    OUT/png-rgb/   8-bit RGB PNG
    OUT/png16/     16-bit PNG, grey and RGB (the photo x 257, noise sigma 512)

PNGs at zlib level 6 (the inputs' compression does not matter to the test
beyond decode time).  Needs Debian's python3-opencv, python3-numpy and
python3-pil; used for benchmarks only.
"""
import argparse
import os
import sys

import cv2
import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
PHOTOS = os.path.join(HERE, "..", "samples", "images")


def cover(img, w, h):
    s = max(w / img.shape[1], h / img.shape[0])
    big = cv2.resize(img, (max(w, round(img.shape[1] * s)), max(h, round(img.shape[0] * s))),
                     interpolation=cv2.INTER_LANCZOS4)
    y0, x0 = (big.shape[0] - h) // 2, (big.shape[1] - w) // 2
    return big[y0:y0 + h, x0:x0 + w]


def noisy(img, sigma, rng, top):
    out = img.astype(np.float32) + rng.normal(0.0, sigma, img.shape).astype(np.float32)
    return np.clip(np.rint(out), 0, top)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--sizes", default="4000x3000,1920x1080")
    a = p.parse_args()
    sizes = [tuple(int(v) for v in s.split("x")) for s in a.sizes.split(",")]
    rng = np.random.default_rng(20261124)
    for sub in ("jpeg420", "jpeg444", "png-grey", "png-rgb", "png16"):
        os.makedirs(os.path.join(a.out, sub), exist_ok=True)
    png6 = [cv2.IMWRITE_PNG_COMPRESSION, 6]
    n = 0
    for name in sorted(os.listdir(PHOTOS)):
        if not name.lower().endswith((".jpg", ".png")):
            continue
        bgr = cv2.imread(os.path.join(PHOTOS, name), cv2.IMREAD_COLOR)
        stem = os.path.splitext(name)[0]
        for w, h in sizes:
            tag = "%s_%dx%d" % (stem, w, h)
            base = cover(bgr, w, h).astype(np.float32)
            rgb8 = noisy(base, 2.0, rng, 255).astype(np.uint8)
            grey8 = cv2.cvtColor(rgb8, cv2.COLOR_BGR2GRAY)
            Image.fromarray(rgb8[:, :, ::-1]).save(
                os.path.join(a.out, "jpeg420", tag + ".jpg"), quality=90, subsampling=2)
            Image.fromarray(rgb8[:, :, ::-1]).save(
                os.path.join(a.out, "jpeg444", tag + ".jpg"), quality=90, subsampling=0)
            cv2.imwrite(os.path.join(a.out, "png-grey", tag + ".png"), grey8, png6)
            cv2.imwrite(os.path.join(a.out, "png-rgb", tag + ".png"), rgb8, png6)
            rgb16 = noisy(base * 257.0, 512.0, rng, 65535).astype(np.uint16)
            if n % 2:
                rgb16 = cv2.cvtColor(rgb16, cv2.COLOR_BGR2GRAY)
            cv2.imwrite(os.path.join(a.out, "png16", tag + ".png"), rgb16, png6)
            n += 1
    print("format_set: %d photos x sizes into %s" % (n, a.out))


if __name__ == "__main__":
    sys.exit(main())
