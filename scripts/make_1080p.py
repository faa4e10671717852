#!/usr/bin/env python3
"""20 distinct 1920x1080 JPEGs (quality 92) cut from the sample photos, for
the GPU batches (scripts/gpu.sh multi, gpu.sh nvjpeg).  Needs OpenCV.
    scripts/make_1080p.py [OUTDIR [WxH]]   (default build-gpu/data1080, 1920x1080)"""
import glob
import os
import sys

import cv2
import numpy as np

out = sys.argv[1] if len(sys.argv) > 1 else "build-gpu/data1080"
W, H = map(int, sys.argv[2].split("x")) if len(sys.argv) > 2 else (1920, 1080)
os.makedirs(out, exist_ok=True)
photos = [cv2.imread(f) for f in sorted(glob.glob("samples/images/*.jpg") + glob.glob("samples/images/*.png"))]
rng = np.random.default_rng(7)
for i in range(20):
    im = photos[i % len(photos)]
    h, w = im.shape[:2]
    # scale so the photo covers 1920x1080 (a little more each round), then cut
    s = max(W / w, H / h) * (1 + 0.15 * (i // len(photos)))
    r = cv2.resize(im, (int(w * s + 1), int(h * s + 1)), interpolation=cv2.INTER_AREA if s < 1 else cv2.INTER_CUBIC)
    y = int(rng.integers(0, r.shape[0] - H + 1))
    x = int(rng.integers(0, r.shape[1] - W + 1))
    cv2.imwrite(os.path.join(out, "p%02d.jpg" % i), r[y:y + H, x:x + W], [cv2.IMWRITE_JPEG_QUALITY, 92])
