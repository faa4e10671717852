#!/usr/bin/env python3
"""Plots from `jetfilter bench` CSV files (Debian's python3-matplotlib).

    python3 scripts/plot_bench.py RESULTS.csv [MORE.csv ...] [-o DIR] [--json META.json]

Writes into DIR (default: the first CSV's folder):
  time_<filter>_<backend>_<variant>.png     time vs kernel size, one line per image size
                                            (the seed report's figure 5-12)
  bandwidth_<filter>_<backend>_<variant>.png effective bandwidth vs kernel size, with the
                                            theoretical and measured copy ceilings as
                                            horizontal lines (figure 5-13)
  speedup_npp_<filter>.png                  NPP time / jetfilter time, image size x kernel size
                                            (> 1: jetfilter faster), for the fastest variant
  energy_<filter>.png                       energy per image per power mode (tag), when measured
Ceilings come from the bench JSON (--json, or a .json beside each CSV).
"""
import argparse
import csv
import json
import math
import os
import sys

try:
    import matplotlib
except ImportError:
    sys.exit("plot_bench.py: the plots need matplotlib: apt-get install python3-matplotlib "
             "(or pip install matplotlib)")

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load(paths):
    rows = []
    for p in paths:
        with open(p, newline="") as f:
            for r in csv.DictReader(f):
                # tables before 1.7 said "filter" and "k" where the reports now say
                # "operation" and "ksize"; both are read
                if "operation" in r:
                    r["filter"] = r["operation"]
                if "ksize" in r:
                    r["k"] = r["ksize"]
                for key in ("width", "height", "channels", "k", "reps"):
                    r[key] = int(r[key])
                for key in ("ms", "gbps", "npp_ms", "energy_mj_per_image", "mean_w"):
                    try:
                        r[key] = float(r[key])
                    except (ValueError, KeyError):
                        r[key] = math.nan
                rows.append(r)
    return rows


def ceilings(paths, meta_path):
    """Theoretical and copy ceilings, merged from --json and the JSON beside each CSV."""
    m = {}
    candidates = ([meta_path] if meta_path else []) + [os.path.splitext(p)[0] + ".json" for p in paths]
    for p in candidates:
        if p and os.path.exists(p):
            with open(p) as f:
                for key, value in json.load(f)["meta"].items():
                    if value is not None and m.get(key) is None:
                        m[key] = value
    if not m:
        return {}
    return {
        "cuda": (m.get("theoretical_gbps"), m.get("copy_ceiling_gbps_cuda"), m.get("device", "GPU")),
        "cpu": (None, m.get("copy_ceiling_gbps_cpu"), m.get("cpu", "CPU")),
    }


def size_label(r):
    return f"{r['width']}x{r['height']}" + ("" if r["channels"] == 1 else f"x{r['channels']}")


def series(rows, filt, backend, variant, value):
    out = {}
    for r in rows:
        if r["filter"] == filt and r["backend"] == backend and r["variant"] == variant and r["border"] == rows[0]["border"]:
            out.setdefault(size_label(r), []).append((r["k"], r[value]))
    return {s: sorted(v) for s, v in out.items()}


def styles(n):
    """n distinct (colour, marker, line style): matplotlib's default cycle
    repeats its colours after ten series."""
    cmap = plt.get_cmap("tab20" if n <= 20 else "turbo")
    markers = "os^vDP*Xhp<>"
    lines = ["-", "--", ":", "-."]
    return [(cmap(i / max(n - 1, 1)) if n > 20 else cmap(i), markers[i % len(markers)],
             lines[(i // len(markers)) % len(lines)]) for i in range(n)]


def line_plot(rows, filt, backend, variant, value, ylabel, path, ceil=None):
    data = series(rows, filt, backend, variant, value)
    if not data:
        return False
    fig, ax = plt.subplots(figsize=(7, 4.5))
    labels = sorted(data, key=lambda s: [int(x) for x in s.split("x")[:2]])
    for label, (colour, marker, line) in zip(labels, styles(len(labels))):
        ks, vs = zip(*data[label])
        ax.plot(ks, vs, marker=marker, linestyle=line, color=colour, label=label)
    if ceil:
        theo, copy, name = ceil
        if theo:
            ax.axhline(theo, color="k", linestyle="--", label=f"theoretical {theo:.0f} GB/s")
        if copy:
            ax.axhline(copy, color="gray", linestyle=":", label=f"measured copy {copy:.0f} GB/s")
    # sizes from 345x194 to 8K differ 500x in time: on a linear axis the
    # small ones lie on the floor
    if all(v > 0 for pts in data.values() for _, v in pts if not math.isnan(v)):
        ax.set_yscale("log")
    ax.set_xticks(sorted({k for pts in data.values() for k, _ in pts}))
    ax.set_xlabel("kernel size k")
    ax.set_ylabel(ylabel)
    ax.set_title(f"{filt}, {backend} {variant}")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def speedup_plot(rows, filt, path):
    npp = {(size_label(r), r["k"]): r["ms"] for r in rows
           if r["filter"] == filt and r["variant"] == "npp" and r["backend"] == "cuda"}
    if not npp:
        return False
    best = {}
    for r in rows:
        key = (size_label(r), r["k"])
        if r["filter"] == filt and r["backend"] == "cuda" and r["variant"] != "npp" and key in npp:
            best[key] = min(best.get(key, math.inf), r["ms"])
    if not best:
        return False
    sizes = sorted({s for s, _ in best}, key=lambda s: [int(x) for x in s.split("x")[:2]])
    ks = sorted({k for _, k in best})
    grid = [[npp[(s, k)] / best[(s, k)] if (s, k) in best else math.nan for k in ks] for s in sizes]
    fig, ax = plt.subplots(figsize=(1.2 * len(ks) + 2.5, 0.45 * len(sizes) + 1.8))
    vals = [v for row in grid for v in row if not math.isnan(v)]
    lim = max(abs(math.log10(v)) for v in vals) if vals else 1
    im = ax.imshow([[math.log10(v) for v in row] for row in grid], cmap="RdYlGn", vmin=-lim, vmax=lim, aspect="auto")
    for i, row in enumerate(grid):
        for j, v in enumerate(row):
            if not math.isnan(v):
                ax.text(j, i, f"{v:.2f}x", ha="center", va="center", fontsize=7)
    ax.set_xticks(range(len(ks)), [str(k) for k in ks])
    ax.set_yticks(range(len(sizes)), sizes)
    ax.set_xlabel("kernel size k")
    ax.set_title(f"{filt}: NPP time / jetfilter time (> 1: jetfilter faster)")
    fig.colorbar(im, ax=ax, label="log10 speed-up")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def energy_plot(rows, filt, path):
    data = {}
    for r in rows:
        if r["filter"] == filt and not math.isnan(r["energy_mj_per_image"]):
            data.setdefault((r.get("tag") or "untagged", r["backend"], r["variant"]), []).append(
                (r["width"] * r["height"], r["k"], r["energy_mj_per_image"]))
    if not data:
        return False
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for ((tag, backend, variant), pts), (colour, marker, line) in zip(sorted(data.items()),
                                                                      styles(len(data))):
        big = max(p[0] for p in pts)
        pts = sorted((k, e) for px, k, e in pts if px == big)
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=marker, linestyle=line,
                color=colour, label=f"{tag} {backend} {variant}")
    ax.set_xlabel("kernel size k (largest image)")
    ax.set_ylabel("energy per image (mJ)")
    ax.set_title(f"{filt}: energy per image by power mode")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("csv", nargs="+")
    ap.add_argument("-o", "--out")
    ap.add_argument("--json")
    a = ap.parse_args()
    rows = load(a.csv)
    if not rows:
        sys.exit("plot_bench: no rows")
    out = a.out or os.path.dirname(os.path.abspath(a.csv[0]))
    os.makedirs(out, exist_ok=True)
    ceil = ceilings(a.csv, a.json)
    made = []
    combos = sorted({(r["filter"], r["backend"], r["variant"]) for r in rows})
    for filt, backend, variant in combos:
        base = f"{filt}_{backend}_{variant}"
        p = os.path.join(out, f"time_{base}.png")
        if line_plot(rows, filt, backend, variant, "ms", "time per image (ms)", p):
            made.append(p)
        p = os.path.join(out, f"bandwidth_{base}.png")
        if line_plot(rows, filt, backend, variant, "gbps", "effective bandwidth (GB/s)", p, ceil.get(backend)):
            made.append(p)
    for filt in sorted({r["filter"] for r in rows}):
        p = os.path.join(out, f"speedup_npp_{filt}.png")
        if speedup_plot(rows, filt, p):
            made.append(p)
        p = os.path.join(out, f"energy_{filt}.png")
        if energy_plot(rows, filt, p):
            made.append(p)
    for p in made:
        print(p)


if __name__ == "__main__":
    main()
