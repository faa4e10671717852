#!/usr/bin/env python3
"""Batch after batch in one `jetfilter serve` process, each request timed
from the moment it is sent to its answer (what a caller waits for).

    serve_rounds.py JETFILTER ROUNDS SET:DIR ... -- MODE:ARGS ... [-- COMMON ARGS]

Each SET is a folder of JPEGs; each MODE a label and the extra arguments
(comma-separated); COMMON arguments go to every request.  One warm-up
request per set and mode first (it starts nothing the later ones need:
serve starts CUDA and the JPEG engine itself), then ROUNDS rounds of every
set and mode, interleaved.  Prints a line per request (images/s, the serve
process's CPU ms an image, files failed, the codec chosen) and the medians.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import time


def cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main():
    exe, rounds = sys.argv[1], int(sys.argv[2])
    rest = sys.argv[3:]
    cut = [i for i, a in enumerate(rest) if a == "--"] + [len(rest)]
    sets = [a.split(":", 1) for a in rest[:cut[0]]]
    modes = [(m.split(":", 1) + [""])[:2] for m in rest[cut[0] + 1:cut[1]]]
    common = rest[cut[1] + 1:] if len(cut) > 1 and cut[1] < len(rest) else []
    proc = subprocess.Popen([exe, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            universal_newlines=True)
    rows = []

    def request(set_name, folder, mode, extra, rnd):
        out = "/tmp/o_serve_%s_%s" % (set_name, mode)
        shutil.rmtree(out, ignore_errors=True)
        report = out + ".json"
        if os.path.exists(report):
            os.unlink(report)
        args = ["denoise", folder, "-o", out, "--json", report, "--quiet"] + common + \
            [a for a in extra.split(",") if a]
        c0, t0 = cpu_seconds(proc.pid), time.perf_counter()
        proc.stdin.write(json.dumps({"args": args, "stderr": "/tmp/serve_err.txt"}) + "\n")
        proc.stdin.flush()
        answer = json.loads(proc.stdout.readline())
        wall, cpu = time.perf_counter() - t0, cpu_seconds(proc.pid) - c0
        r = json.load(open(report))
        s = r["summary"]
        gpu = sum(1 for f in r["files"] if "jpeg-nvjpeg-h" in json.dumps(f))
        row = {"set": set_name, "mode": mode, "round": rnd, "exit": answer["exit"], "wall": wall,
               "files": s["files"], "ok": s["ok"], "failed": s["failed"], "gpu_decoded": gpu,
               "cpu_ms": 1e3 * cpu / max(1, s["files"]), "choice": (r.get("codecs") or {}).get("chosen")}
        print("%-7s %-7s round %-2s %4d files %6.3f s %7.1f img/s  CPU %5.1f ms/img  failed %d  "
              "engine-decoded %d  choice %s" % (set_name, mode, rnd, row["files"], wall, row["files"] / wall,
                                                row["cpu_ms"], row["failed"], gpu, row["choice"]), flush=True)
        return row

    for set_name, folder in sets:
        for mode, extra in modes:
            request(set_name, folder, mode, extra, "w")
    for rnd in range(1, rounds + 1):
        for set_name, folder in sets:
            for mode, extra in modes:
                rows.append(request(set_name, folder, mode, extra, rnd))
    proc.stdin.close()
    proc.wait()
    print("== medians over %d rounds (one serve process)" % rounds)
    for set_name, _ in sets:
        for mode, _ in modes:
            r = [x for x in rows if x["set"] == set_name and x["mode"] == mode]
            walls = [x["wall"] for x in r]
            print("%-7s %-7s %4d files: %6.3f s, %7.1f img/s (min %.1f, max %.1f), CPU %.1f ms/img, "
                  "failed %d in %d runs" % (
                      set_name, mode, r[0]["files"], statistics.median(walls),
                      r[0]["files"] / statistics.median(walls), r[0]["files"] / max(walls),
                      r[0]["files"] / min(walls), statistics.median(x["cpu_ms"] for x in r),
                      sum(x["failed"] for x in r), len(r)))


if __name__ == "__main__":
    main()
