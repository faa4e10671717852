#!/usr/bin/env python3
"""Salt-and-pepper denoising quality: plain median against the impulse filters.

    python3 scripts/impulse_eval.py [--images samples/images] [--out DIR]
        [--densities 0.05,0.1,...] [--ksizes 3,5,...] [--windows] [--backend cpu|cuda]
        [--plot-only]

For every photo in --images and every density: the photo's lossless copy
(the reference), a noisy copy (`jetfilter noise --salt-pepper D`), then
PSNR and SSIM against the reference of

  noisy               the noisy copy itself
  median (best k)     the plain median at the k of --ksizes that scores best
                      on that photo and density (chosen with hindsight, the
                      most favourable baseline)
  adaptive-median     Hwang-Haddad, at the --max-ksize of --ksizes that
                      scores best (hindsight too), and at its default (the
                      window from the estimated density)
  switching-median    its defaults (largest window 7)
  auto-impulse        no settings: everything from the estimated density

--windows also runs auto-impulse at every --max-ksize of --ksizes (the sweep
that auto-impulse's window rule comes from).  The table of the adaptive
median at every --max-ksize (its window rule's sweep) is always written.

Writes into --out: impulse.csv (every run), impulse.md (the table: mean over
the photos, and the worst photo's gain over the best plain median) and,
when matplotlib is there (Debian: python3-matplotlib), impulse_psnr.png
and impulse_ssim.png (one line per filter, mean over the photos).
"""
import argparse
import csv
import json
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(cmd):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        sys.exit("impulse_eval: %s failed (%d):\n%s" % (" ".join(cmd), r.returncode, r.stderr))


def denoise(a, noisy, clean, out, args):
    """Run one denoise over the noisy folder; {photo: (psnr, ssim, decision)}."""
    report = out + ".json"
    run([a.jetfilter, "denoise", noisy, "-o", out, "--reference", clean, "--json", report,
         "--backend", a.backend, "-j", str(a.jobs), "--quiet", "--no-sync"] + args)
    with open(report) as f:
        files = json.load(f)["files"]
    shutil.rmtree(out)
    res = {}
    for it in files:
        if it["status"] != "ok" or "psnr_out_db" not in it:
            sys.exit("impulse_eval: %s: %s" % (it["input"], it.get("error", "no reference")))
        name = os.path.basename(it["input"])
        res[name] = (it["psnr_out_db"], it["ssim_out"], it.get("decision", ""),
                     it.get("psnr_in_db"), it.get("ssim_in"))
    return res


def best_of(runs):
    """Per photo, the run with the highest PSNR: {photo: (psnr, ssim, label)}."""
    best = {}
    for label, res in runs:
        for name, r in res.items():
            if name not in best or r[0] > best[name][0]:
                best[name] = (r[0], r[1], label)
    return best


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--images", default=os.path.join(ROOT, "samples", "images"))
    # a folder of its own in the current one: the committed results under
    # benchmarks/results/impulse are replaced only when asked (--out there)
    p.add_argument("--out", default="impulse-eval")
    p.add_argument("--densities", default="0.05,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8")
    p.add_argument("--ksizes", default="3,5,7,9,11,13,15")
    p.add_argument("--seed", default="1")
    p.add_argument("--windows", action="store_true")
    p.add_argument("--backend", default="cpu")
    p.add_argument("--plot-only", action="store_true",
                   help="draw the plots from --out's impulse.csv of an earlier run")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--jetfilter", default=os.path.join(ROOT, "build", "jetfilter"))
    a = p.parse_args()
    dens = [float(d) for d in a.densities.split(",")]
    ks = [int(k) for k in a.ksizes.split(",")]
    if a.plot_only:
        with open(os.path.join(a.out, "impulse.csv"), newline="") as f:
            plot(a, [dict(r, density=float(r["density"])) for r in csv.DictReader(f)])
        return
    os.makedirs(a.out, exist_ok=True)
    work = os.path.join(a.out, "work")
    shutil.rmtree(work, ignore_errors=True)
    clean = os.path.join(work, "clean")
    # lossless copies: the references, and what the noise goes into
    run([a.jetfilter, "noise", a.images, "-o", clean, "--salt-pepper", "0", "--format", "png",
         "--quiet", "--no-sync"])
    rows, table = [], []
    for d in dens:
        noisy = os.path.join(work, "noisy-%g" % d)
        run([a.jetfilter, "noise", clean, "-o", noisy, "--salt-pepper", str(d), "--seed", a.seed,
             "--quiet", "--no-sync"])
        o = os.path.join(work, "out")
        med = [("median k=%d" % k, denoise(a, noisy, clean, o, ["-f", "median", "-k", str(k)]))
               for k in ks]
        ada = [("adaptive-median k<=%d" % k,
                denoise(a, noisy, clean, o, ["-f", "adaptive-median", "--max-ksize", str(k)]))
               for k in ks if k >= 3]
        ada_default = denoise(a, noisy, clean, o, ["-f", "adaptive-median"])
        sw = denoise(a, noisy, clean, o, ["-f", "switching-median"])
        auto = denoise(a, noisy, clean, o, ["-f", "auto-impulse"])
        windows = [("auto-impulse k<=%d" % k,
                    denoise(a, noisy, clean, o, ["-f", "auto-impulse", "--max-ksize", str(k)]))
                   for k in ks if k >= 3] if a.windows else []
        bm, ba = best_of(med), best_of(ada)
        for name in sorted(auto):
            r = auto[name]
            cells = [("noisy", r[3], r[4], ""), ("median", bm[name][0], bm[name][1], bm[name][2]),
                     ("adaptive-median", ba[name][0], ba[name][1], ba[name][2]),
                     ("adaptive-median default", ada_default[name][0], ada_default[name][1], ""),
                     ("switching-median", sw[name][0], sw[name][1], ""),
                     ("auto-impulse", r[0], r[1], r[2])]
            cells += [(label, res[name][0], res[name][1], "") for label, res in windows]
            for f, ps, ss, note in cells:
                rows.append({"density": d, "image": name, "filter": f, "psnr_db": "%.3f" % ps,
                             "ssim": "%.5f" % ss, "detail": note})
        table.append((d, bm, ba, sw, auto, windows, ada, ada_default))
        print("impulse_eval: density %g done" % d, file=sys.stderr)
    with open(os.path.join(a.out, "impulse.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    write_table(a, table)
    plot(a, rows)
    shutil.rmtree(work, ignore_errors=True)


def mean(xs):
    return sum(xs) / len(xs)


def write_table(a, table):
    names = sorted(table[0][4])
    lines = ["Photos: %s (%d); seed %s; backend %s." % (", ".join(names), len(names), a.seed, a.backend),
             "PSNR in dB and SSIM against the clean photo, mean over the photos; gain: "
             "auto-impulse minus the best plain median, worst photo and mean.", "",
             "| density | noisy | best plain median | adaptive-median (best k) | adaptive-median "
             "(default) | switching-median | auto-impulse | gain, worst / mean | SSIM: median / "
             "auto-impulse |",
             "|---|---|---|---|---|---|---|---|---|"]
    for d, bm, ba, sw, auto, windows, ada, ada_default in table:
        gains = [auto[n][0] - bm[n][0] for n in names]
        lines.append("| %g%% | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %+.2f / %+.2f | %.4f / %.4f |" % (
            100 * d, mean([auto[n][3] for n in names]), mean([bm[n][0] for n in names]),
            mean([ba[n][0] for n in names]), mean([ada_default[n][0] for n in names]),
            mean([sw[n][0] for n in names]),
            mean([auto[n][0] for n in names]), min(gains), mean(gains),
            mean([bm[n][1] for n in names]), mean([auto[n][1] for n in names])))
    for title, col in (("auto-impulse", 5), ("adaptive-median", 6)):
        if not table[0][col]:
            continue
        lines += ["", "%s at each largest window (mean PSNR, dB):" % title, "",
                  "| density | " + " | ".join(l for l, _ in table[0][col]) + " |",
                  "|---|" + "---|" * len(table[0][col])]
        for row in table:
            lines.append("| %g%% | " % (100 * row[0]) + " | ".join(
                "%.2f" % mean([res[n][0] for n in names]) for _, res in row[col]) + " |")
    with open(os.path.join(a.out, "impulse.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


def plot(a, rows):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("impulse_eval: no matplotlib (apt-get install python3-matplotlib); no plots",
              file=sys.stderr)
        return
    filters = ["noisy", "median", "adaptive-median", "adaptive-median default", "switching-median",
               "auto-impulse"]
    for metric, label in (("psnr_db", "PSNR, dB (mean over the photos)"),
                          ("ssim", "SSIM (mean over the photos)")):
        fig, ax = plt.subplots(figsize=(7, 4.5))
        for f in filters:
            dens = sorted({r["density"] for r in rows if r["filter"] == f})
            ys = [mean([float(r[metric]) for r in rows if r["filter"] == f and r["density"] == d])
                  for d in dens]
            ax.plot([100 * d for d in dens], ys, marker="o",
                    label=f + (" (best k)" if f in ("median", "adaptive-median") else ""))
        ax.set_xlabel("salt-and-pepper density, %")
        ax.set_ylabel(label)
        ax.grid(True, alpha=0.3)
        ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(a.out, "impulse_%s.png" % metric.split("_")[0]), dpi=110)
        plt.close(fig)


if __name__ == "__main__":
    main()
