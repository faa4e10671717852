#!/usr/bin/env python3
"""Batch after batch in one Python process through jetfilter.denoise (the
library's jobs, in the process), each call timed from call to return.

    python_batch_rounds.py ROUNDS [--worker] SET:DIR ... [-- KEY=VALUE ...]

The first call of each set is printed on its own (CUDA and the JPEG engine
start in it, or, with --worker, as the jetfilter.Worker is made, timed on
its own line); then ROUNDS rounds of every set, interleaved.  Prints a line
per call (images/s, the process's CPU ms an image, files failed, the codecs
chosen) and the medians.  KEY=VALUE: denoise() keywords (ksize=5, jobs=16).
"""
import os
import shutil
import statistics
import sys
import tempfile
import time

import jetfilter as jf


def value(text):
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(text, text)


def main():
    args = sys.argv[1:]
    rounds = int(args.pop(0))
    worker = None
    if args and args[0] == "--worker":
        args.pop(0)
        t0 = time.perf_counter()
        worker = jf.Worker()
        print("worker made in %.2f s (CUDA and the JPEG engine started)" % (time.perf_counter() - t0))
    sets, options = [], {}
    while args and args[0] != "--":
        name, folder = args.pop(0).split(":", 1)
        sets.append((name, folder))
    for a in args[1:]:
        k, v = a.split("=", 1)
        options[k] = value(v)
    out = tempfile.mkdtemp(prefix="jf-rounds-")
    speeds = {name: [] for name, _ in sets}

    def call(name, folder, label):
        dest = os.path.join(out, name)
        shutil.rmtree(dest, ignore_errors=True)
        c0, t0 = time.process_time(), time.perf_counter()
        r = (worker or jf).denoise(folder, dest, **options)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        n = r["summary"]["files"]
        chosen = r.get("codecs", {}).get("chosen", "-")
        print("%-6s %-8s %4d files  %7.1f images/s  %5.2f s  %6.1f CPU ms an image  failed %d  codecs %s"
              % (label, name, n, n / wall, wall, 1000 * cpu / n, r["summary"]["failed"], chosen),
              flush=True)
        return n / wall

    for name, folder in sets:
        call(name, folder, "first")
    for i in range(rounds):
        for name, folder in sets:
            speeds[name].append(call(name, folder, "r%d" % (i + 1)))
    for name, _ in sets:
        v = speeds[name]
        print("median %-8s %7.1f images/s (%.1f-%.1f), %d rounds"
              % (name, statistics.median(v), min(v), max(v), len(v)))
    shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
