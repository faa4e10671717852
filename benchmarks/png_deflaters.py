#!/usr/bin/env python3
"""DEFLATE encoders on the rows jetfilter's PNG writer deflates.

    python3 benchmarks/png_deflaters.py DIR [DIR ...]

Each PNG in DIR is decoded (OpenCV), its rows up-filtered as jetfilter
writes them (16 bits big-endian) and deflated whole, once, by each encoder
the interpreter has: zlib at level 1 with run-length matches (Z_RLE:
jetfilter's and OpenCV's choice), zlib-ng (`pip install zlib-ng`) the
same way, libdeflate (`pip install deflate`) and ISA-L (`pip install
isal`) at their fast levels.  Prints per encoder the bytes and seconds
summed over the folder, how many files came out larger than zlib's, and
whether every stream was byte for byte zlib's.
"""
import glob
import os
import sys
import time
import zlib

import cv2
import numpy as np


def up_filtered(img):
    rows = img if img.dtype == np.uint8 else img.astype(">u2").view(np.uint8)
    rows = rows.reshape(img.shape[0], -1)
    out = np.empty((rows.shape[0], rows.shape[1] + 1), np.uint8)
    out[:, 0] = 2  # PNG's filter type Up
    out[0, 1:] = rows[0]
    out[1:, 1:] = rows[1:] - rows[:-1]
    return out.tobytes()


def rle(module, level):
    def encode(data):
        c = module.compressobj(level, module.DEFLATED, 15, 8, module.Z_RLE)
        return c.compress(data) + c.flush()
    return encode


def encoders():
    found = {"zlib %s Z_RLE 1" % zlib.ZLIB_RUNTIME_VERSION: rle(zlib, 1)}
    try:
        from zlib_ng import zlib_ng
        found["zlib-ng %s Z_RLE 1" % zlib_ng.ZLIBNG_VERSION] = rle(zlib_ng, 1)
    except ImportError:
        pass
    try:
        import deflate
        for level in (1, 6):
            found["libdeflate %d" % level] = (lambda d, level=level: deflate.zlib_compress(d, level))
    except ImportError:
        pass
    try:
        from isal import isal_zlib
        for level in (1, 2):
            found["ISA-L %d" % level] = (lambda d, level=level: isal_zlib.compress(d, level))
    except ImportError:
        pass
    return found


def main():
    found = encoders()
    for folder in sys.argv[1:]:
        files = sorted(glob.glob(os.path.join(folder, "*.png")))
        total = {name: [0, 0.0, 0, True] for name in found}  # bytes, s, larger, same
        for path in files:
            rows = up_filtered(cv2.imread(path, cv2.IMREAD_UNCHANGED))
            reference = None
            for name, encode in found.items():
                t = time.perf_counter()
                stream = encode(rows)
                took = time.perf_counter() - t
                if reference is None:
                    reference = stream
                entry = total[name]
                entry[0] += len(stream)
                entry[1] += took
                entry[2] += len(stream) > len(reference)
                entry[3] = entry[3] and stream == reference
        print("# %s: %d files" % (folder, len(files)))
        for name, (size, took, larger, same) in total.items():
            print("%-26s %11d bytes %7.3f s  larger than zlib's: %2d  zlib's stream: %s"
                  % (name, size, took, larger, "yes" if same else "no"))


if __name__ == "__main__":
    main()
