#!/usr/bin/env python3
"""The baseline of jetfilter's GPU batch: NVIDIA's own Python libraries.

nvImageCodec decodes a batch of JPEGs on the GPU (hardware engine where
there is one), CV-CUDA runs the median on each image, nvImageCodec encodes
them, and the files are written: the short script a user with a GPU
server would write.  Nothing is overlapped, as such a script does.

    nvimgcodec_cvcuda.py IN_DIR OUT_DIR [--batch 32] [--ksize 5] [--quality 92] [--rounds 2]

Prints images/s per round (the first one includes the libraries' start-up)
and the CPU time per image.
"""
import argparse
import os
import resource
import sys
import time


def cpu_seconds():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("inputs")
    ap.add_argument("outputs")
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--ksize", type=int, default=5)
    ap.add_argument("--quality", type=int, default=92)
    ap.add_argument("--rounds", type=int, default=2)
    a = ap.parse_args()
    import cvcuda
    import torch
    from nvidia import nvimgcodec

    names = sorted(os.path.join(d, f) for d, _, fs in os.walk(a.inputs, followlinks=True) for f in fs
                   if f.lower().endswith((".jpg", ".jpeg")))
    if not names:
        sys.exit("no JPEGs under %s" % a.inputs)
    decoder = nvimgcodec.Decoder()
    encoder = nvimgcodec.Encoder()
    try:
        params = nvimgcodec.EncodeParams(quality_value=a.quality,
                                         chroma_subsampling=nvimgcodec.ChromaSubsampling.CSS_420)
    except TypeError:
        params = nvimgcodec.EncodeParams(quality=a.quality,
                                         chroma_subsampling=nvimgcodec.ChromaSubsampling.CSS_420)
    os.makedirs(a.outputs, exist_ok=True)
    for rnd in range(a.rounds + 1):  # round 0 includes the start-up (first decode, encoder)
        t0, c0 = time.perf_counter(), cpu_seconds()
        for i in range(0, len(names), a.batch):
            group = names[i:i + a.batch]
            data = []
            for n in group:
                with open(n, "rb") as f:
                    data.append(f.read())
            images = decoder.decode(data)
            filtered = []
            for im in images:
                t = cvcuda.as_tensor(torch.as_tensor(im, device="cuda"), "HWC")
                filtered.append(cvcuda.median_blur(t, (a.ksize, a.ksize)).cuda())
            encoded = encoder.encode(filtered, "jpeg", params=params)
            for n, bits in zip(group, encoded):
                rel = os.path.relpath(n, a.inputs).replace(os.sep, "_")
                with open(os.path.join(a.outputs, rel), "wb") as f:
                    f.write(bits)
        torch.cuda.synchronize()
        wall, cpu = time.perf_counter() - t0, cpu_seconds() - c0
        print("nvimgcodec+cvcuda batch %d, %s: %d images in %.2f s, %.1f img/s, CPU %.1f ms/img"
              % (a.batch, "round %d" % rnd if rnd else "first round (with start-up)", len(names),
                 wall, len(names) / wall, 1e3 * cpu / len(names)))


if __name__ == "__main__":
    main()
