#!/usr/bin/env python3
"""When a run's files finish, from a fresh process: runs CMD (a `jetfilter
denoise ... -v`), stamps every line it writes to standard error, and prints
the time of its first line, of the 1st, 16th, 100th and last finished file,
of the summary and of the process's exit.  The start-up is the first file's
time less what one file takes; the teardown is the exit less the summary.
    benchmarks/timeline.py -- jetfilter denoise DIR -o OUT -v [...]"""
import subprocess
import sys
import time

cmd = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else sys.argv[1:]
t0 = time.perf_counter()
p = subprocess.Popen(cmd, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, bufsize=1)
first, oks, summary = None, [], None
for line in p.stderr:
    t = time.perf_counter() - t0
    if first is None:
        first = t
    if line.startswith("ok "):
        oks.append(t)
    elif " ok, " in line and " failed" in line:
        summary = t
p.wait()
end = time.perf_counter() - t0
marks = [("first line", first)] + [("file %d" % n, oks[n - 1]) for n in (1, 16, 100) if len(oks) >= n]
marks += [("last file (%d)" % len(oks), oks[-1] if oks else None), ("summary", summary), ("exit", end)]
print("  ".join("%s %.3f s" % (k, v) for k, v in marks if v is not None))
