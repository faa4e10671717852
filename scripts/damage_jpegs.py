#!/usr/bin/env python3
"""Damaged copies of JPEGs, for the damaged-data check of the GPU path
(scripts/gpu.sh damaged): for each input, one with 64 bytes of its scan
randomised (never 0xFF, so no marker is made), one with two 512-byte blocks
of its scan swapped, and (for a file with restart markers) one with a
restart interval cut out.
    scripts/damage_jpegs.py OUTDIR FILE...
Prints one line per damaged file made."""
import os
import random
import sys


def scan_span(b):
    i = b.index(b"\xff\xda")
    start = i + 2 + (b[i + 2] << 8 | b[i + 3])
    return start, len(b) - 2


def main():
    out, files = sys.argv[1], sys.argv[2:]
    os.makedirs(out, exist_ok=True)
    rng = random.Random(11)
    for f in files:
        b = open(f, "rb").read()
        stem = os.path.splitext(os.path.basename(f))[0]
        s, e = scan_span(b)
        at = rng.randrange(s + (e - s) // 4, e - (e - s) // 4)
        r = bytearray(b)
        for i in range(64):
            r[at + i] = rng.randrange(255)
        open(os.path.join(out, stem + "_random.jpg"), "wb").write(r)
        a0 = rng.randrange(s + 100, s + (e - s) // 2 - 600)
        b0 = rng.randrange(a0 + 600, e - 600)
        w = bytearray(b)
        w[a0:a0 + 512], w[b0:b0 + 512] = b[b0:b0 + 512], b[a0:a0 + 512]
        open(os.path.join(out, stem + "_swapped.jpg"), "wb").write(w)
        rst = [i for i in range(s, e - 1) if b[i] == 0xFF and 0xD0 <= b[i + 1] <= 0xD7]
        if len(rst) > 4:
            k = rng.randrange(1, len(rst) - 2)
            open(os.path.join(out, stem + "_cut.jpg"), "wb").write(b[:rst[k]] + b[rst[k + 1]:])
        print(stem)


if __name__ == "__main__":
    main()
