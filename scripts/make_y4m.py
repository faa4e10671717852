#!/usr/bin/env python3
"""A Y4M stream cut from the sample photos: a slow pan over each photo (so
every frame differs and looks like video), 4:2:0 (C420jpeg), for the stream
measurements (scripts/gpu.sh stream).  Needs OpenCV and numpy.
    scripts/make_y4m.py OUT.y4m [WIDTH HEIGHT FRAMES [FPS]]   (default 1920 1080 300 30)"""
import glob
import sys

import cv2
import numpy as np

out = sys.argv[1]
w, h, frames = (int(v) for v in sys.argv[2:5]) if len(sys.argv) > 4 else (1920, 1080, 300)
fps = int(sys.argv[5]) if len(sys.argv) > 5 else 30
photos = [cv2.imread(f) for f in sorted(glob.glob("samples/images/*.jpg"))]
per = max(1, frames // len(photos))
with open(out, "wb") as f:
    f.write(b"YUV4MPEG2 W%d H%d F%d:1 Ip A1:1 C420jpeg XYSCSS=420JPEG\n" % (w, h, fps))
    for i in range(frames):
        im = photos[(i // per) % len(photos)]
        s = max((w + 64) / im.shape[1], (h + 64) / im.shape[0])
        r = cv2.resize(im, (int(im.shape[1] * s) + 1, int(im.shape[0] * s) + 1))
        t = (i % per) / per
        x, y = int(t * (r.shape[1] - w)), int(t * (r.shape[0] - h) / 2)
        crop = np.ascontiguousarray(r[y:y + h, x:x + w])
        if w % 2 or h % 2:  # cvtColor's I420 needs even sizes: pad, convert, cut planes
            crop = cv2.copyMakeBorder(crop, 0, h % 2, 0, w % 2, cv2.BORDER_REPLICATE)
        yuv = cv2.cvtColor(crop, cv2.COLOR_BGR2YUV_I420)
        H2, W2 = crop.shape[:2]
        flat, n, q = yuv.reshape(-1), H2 * W2, (H2 // 2) * (W2 // 2)
        Y = flat[:n].reshape(H2, W2)[:h, :w]
        U = flat[n:n + q].reshape(H2 // 2, W2 // 2)[: (h + 1) // 2, : (w + 1) // 2]
        V = flat[n + q:n + 2 * q].reshape(H2 // 2, W2 // 2)[: (h + 1) // 2, : (w + 1) // 2]
        f.write(b"FRAME\n")
        for p in (Y, U, V):
            f.write(np.ascontiguousarray(p).tobytes())
