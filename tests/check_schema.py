#!/usr/bin/env python3
"""Every kind of --json report the tool writes, checked against
docs/report.schema.json: denoise (ok, failed and skipped files, a name that
is not UTF-8, references with an infinite PSNR, an impulse decision), noise,
report merge of two shards, stream with a reference, metrics of identical
and of different images, info and bench.  Also checks the schema is not
vacuous: a report with a wrong type or an unknown field is refused.

    tests/check_schema.py JETFILTER SCHEMA SOURCE_DIR

JETFILTER may hold an emulator before the program ("qemu-aarch64 /b/jetfilter").
"""
import copy
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

import jsonschema

jf = shlex.split(sys.argv[1])
jf[-1] = os.path.abspath(jf[-1])
schema_path, src = (os.path.abspath(a) for a in sys.argv[2:4])
schema = json.load(open(schema_path))
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)
work = tempfile.mkdtemp(prefix="jf-schema-")
failures = []


def run(*args, ok=(0, 1), stdin=None, env=None):
    r = subprocess.run([*jf, *args], cwd=work, stdin=stdin, capture_output=True,
                       env=dict(os.environ, **(env or {})))
    if r.returncode not in ok:
        sys.exit("jetfilter %s: exit %d: %s" % (" ".join(args), r.returncode, r.stderr.decode()))
    return r


def check(name, expect_keys=()):
    with open(os.path.join(work, name), "rb") as f:
        report = json.loads(f.read().decode("utf-8", "surrogatepass"))
    errors = sorted(validator.iter_errors(report), key=lambda e: list(e.absolute_path))
    for e in errors[:5]:
        failures.append("%s: %s at %s" % (name, e.message[:200], "/".join(map(str, e.absolute_path))))
    text = json.dumps(report)
    for key in expect_keys:  # the cases meant to be covered were
        if key not in text:
            failures.append("%s: no %s in the report" % (name, key))
    print("schema: %-12s %s" % (name, "ok" if not errors else "%d errors" % len(errors)))
    return report


images = os.path.join(src, "samples", "images")
os.makedirs(os.path.join(work, "in", "sub"))
shutil.copy(os.path.join(images, "rocket.jpg"), os.path.join(work, "in", "rocket.jpg"))
shutil.copy(os.path.join(images, "chelsea.png"), os.path.join(work, "in", "sub", "chelsea.png"))
shutil.copy(os.path.join(images, "coffee.png"), os.path.join(work, "in", b"caf\xe9.png".decode("utf-8", "surrogateescape")))
with open(os.path.join(work, "in", "broken.jpg"), "wb") as f:
    f.write(b"\xff\xd8\xff\xe0 not a JPEG")

run("noise", "in", "-o", "noisy", "--salt-pepper", "0.2", "--json", "noise.json")
check("noise.json", ['"salt-pepper"', '"failed"'])
run("denoise", "in", "-o", "same", "--reference", "in", "--json", "denoise.json")
check("denoise.json", ['"psnr_in_db_infinite"', '"failed"', 'path_b64', '"stages"'])
run("denoise", "in", "-o", "same", "--skip-existing", "--json", "skip.json")
check("skip.json", ['"skipped"'])
run("denoise", "noisy", "-o", "fixed", "-f", "auto-impulse", "--reference", "in", "--json", "impulse.json")
check("impulse.json", ['"impulse_density"', '"decision"', '"psnr_out_db"'])
run("denoise", "in", "-o", "nlm", "-f", "nlmeans", "--json", "nlm.json")
check("nlm.json", ['"noise_sigma"', '"decision"'])
run("denoise", "noisy", "-o", "auto", "-f", "auto", "--json", "auto.json")
check("auto.json", ['"estimate"', '"decision"'])
for i in range(2):
    run("denoise", "in", "-o", "shards", "--shard", "%d/2" % i, "-k", "5", "--json", "s%d.json" % i)
    check("s%d.json" % i)
run("report", "merge", "s0.json", "s1.json", "-o", "merged.json")
check("merged.json", ['"merged"', '"complete"'])
# the merge reads each record in place: its sums are the batch's own
run("report", "merge", "denoise.json", "-o", "merged-ref.json")
merged = check("merged-ref.json")["summary"]
alone = json.load(open(os.path.join(work, "denoise.json")))["summary"]
for key in ("files", "ok", "failed", "skipped", "mpix", "mean_psnr_in_db", "mean_psnr_in_db_infinite",
            "mean_psnr_out_db", "mean_ssim_in", "mean_ssim_out"):
    a, b = merged.get(key), alone.get(key)
    if (a is None) != (b is None) or (a is not None and abs(a - b) > 1e-6 * max(1.0, abs(b))):
        failures.append("merge of one report: summary %s %r, the batch said %r" % (key, a, b))
# an incomplete set: a shard twice, another missing; each file counted once
run("report", "merge", "s0.json", "s0.json", "-o", "incomplete.json", ok=(1,))
incomplete = check("incomplete.json", ['"doubled"', '"missing"'])
shard0 = json.load(open(os.path.join(work, "s0.json")))
shard1 = json.load(open(os.path.join(work, "s1.json")))
want = {"complete": False, "files": len(shard0["files"]), "doubled": len(shard0["files"]),
        "missing": len(shard1["files"])}
got = {k: incomplete["summary"].get(k) for k in want}
if got != want or len(incomplete["files"]) != len(shard0["files"]):
    failures.append("incomplete merge: %r (%d records), want %r" % (got, len(incomplete["files"]), want))
subprocess.run(["ffmpeg", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc=size=64x48:rate=25",
                "-frames:v", "4", "-pix_fmt", "yuv420p", "-f", "yuv4mpegpipe", "-y", "clip.y4m"],
               cwd=work, check=True)
run("stream", "-i", "clip.y4m", "-o", "out.y4m", "-k", "5", "--reference", "clip.y4m", "--json", "stream.json")
check("stream.json", ['"psnr_y_db"', '"parameters"'])
run("stream", "-i", "clip.y4m", "-o", "again.y4m", "-k", "5", "--reference", "out.y4m",
    "--json", "stream_same.json")
check("stream_same.json", ['"psnr_y_db_infinite"', '"mean_psnr_db_infinite"'])
run("metrics", "in/rocket.jpg", "in/rocket.jpg", "--json", "metrics_same.json")
check("metrics_same.json", ['"psnr_db_infinite"'])
run("metrics", "in/rocket.jpg", "fixed/rocket.png", "--json", "metrics.json")
check("metrics.json", ['"mse"'])
run("metrics", "in/rocket.jpg", "--json", "noise_of_one.json")
check("noise_of_one.json", ['"noise"', '"signal_dependent"'])
run("info", "--json", "info.json")
check("info.json", ['"operations"'])
# a Jetson's power modes: an Orin Nano's nvpmodel.conf under a fake root
board = os.path.join(work, "board")
os.makedirs(os.path.join(board, "etc"))
os.makedirs(os.path.join(board, "var", "lib", "nvpmodel"))
shutil.copy(os.path.join(src, "tests", "data", "nvpmodel", "p3767_orin_nano.conf"),
            os.path.join(board, "etc", "nvpmodel.conf"))
with open(os.path.join(board, "var", "lib", "nvpmodel", "status"), "w") as f:
    f.write("pmode:0002\n")
run("info", "--json", "info-orin.json", env={"JF_SYSFS_ROOT": board})
orin = check("info-orin.json", ['"power_modes"', '"MAXN_SUPER"'])
if (len(orin.get("power_modes", [])) != 3 or (orin.get("power_mode") or {}).get("name") != "MAXN_SUPER"
        or orin["power_modes"][1]["gpu_max_mhz"] != 420.75):
    failures.append("info of an Orin Nano: %r, %r" % (orin.get("power_modes"), orin.get("power_mode")))
run("bench", "--size", "64x48", "--ksize", "3", "--filter", "median,gauss,ssim", "--reps", "2",
    "--json", "bench.json")
check("bench.json", ['"cells"', '"ssim"'])

# the schema refuses what it should: a string where a number goes, an
# unknown field, a missing one
good = json.load(open(os.path.join(work, "metrics.json")))
for what, bad in [("a string PSNR", dict(good, psnr_db="inf")),
                  ("an unknown field", dict(good, psnr=3.0)),
                  ("no ssim", {k: v for k, v in good.items() if k != "ssim"})]:
    if validator.is_valid(bad):
        failures.append("the schema takes " + what)
report = json.load(open(os.path.join(work, "denoise.json"), encoding="utf-8", errors="surrogatepass"))
bad = copy.deepcopy(report)
bad["settings"]["parameters"]["ksize"] = [3]
if validator.is_valid(bad):
    failures.append("the schema takes a list as ksize")
bad = copy.deepcopy(report)
bad["files"][0]["status"] = "done"
if validator.is_valid(bad):
    failures.append("the schema takes an unknown status")

shutil.rmtree(work)
for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
