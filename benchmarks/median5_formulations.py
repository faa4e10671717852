#!/usr/bin/env python3
"""The 5 x 5 median's min/max count per output on the Jetson Nano's video
instructions, for two ways of sharing work between neighbouring windows
(docs/kernels/studies.md, "k = 5 on the Nano: other formulations"):

  blocks    what the library runs (scripts/gen_median_fast.py's build): a
            block's common region sorted once, split down to single outputs;
  columns   each column of five sorted once per output row (the four rows
            two output rows share sorted once, the fifth inserted: one
            op2(op1(a, b), c) a rank), the four columns two outputs share
            merged once, then each output's median selected from those
            twenty and its own column.

Both are checked against sorting on random inputs and counted as min/max
nodes and as fused video instructions (gen_median_fast.py's
video_program).  On paper only: no kernel runs the columns formulation.

    python3 benchmarks/median5_formulations.py [ROWSxCOLS ...]
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
import gen_median_fast as gen  # noqa: E402

K, MID = 5, 12  # the median is rank 12 (0-based) of 25


def insert(dag, s, x):
    """Sorted s with x inserted: rank i is max(s[i-1], min(x, s[i]))."""
    out = [dag.min(s[0], x)]
    for i in range(len(s) - 1):
        out.append(dag.max(s[i], dag.min(x, s[i + 1])))
    out.append(dag.max(s[-1], x))
    return out


def build_columns(rows, cols):
    in_w, in_h = cols + K - 1, rows + K - 1
    dag = gen.Dag(in_w * in_h)
    node = lambda r, c: r * in_w + c  # noqa: E731
    col = {}
    for r0 in range(0, rows, 2):
        for c in range(in_w):
            core = dag.sort([node(r0 + 1 + i, c) for i in range(4)])
            col[(r0, c)] = insert(dag, core, node(r0, c))
            if r0 + 1 < rows:
                col[(r0 + 1, c)] = insert(dag, core, node(r0 + 5, c))
    outputs = [None] * (rows * cols)
    for r in range(rows):
        for c in range(cols):
            cs = [col[(r, c + i)] for i in range(K)]
            shared, own = (cs[1:], cs[0]) if c % 2 == 0 else (cs[:4], cs[4])
            quad = dag.merge(dag.merge(shared[0], shared[1]), dag.merge(shared[2], shared[3]),
                             MID - K, MID)
            outputs[r * cols + c] = dag.select(quad, own, MID)
    return dag, outputs, in_w, in_h


def count(rows, cols, dag, outputs, in_w, in_h):
    gen.check(K, rows, cols, dag.evaluate, outputs, in_w, in_h, trials=200)
    live = dag.live(outputs)
    prog = gen.video_program(dag, live, outputs)
    gen.check(K, rows, cols, lambda v: gen.run_video(prog, v), outputs, in_w, in_h, "video ", trials=200)
    n = rows * cols
    return len(live) / n, len(prog) / n


def main():
    shapes = [tuple(map(int, a.split("x"))) for a in sys.argv[1:]] or [(2, 8), (2, 16), (4, 16), (2, 32)]
    print("block (rows x cols) | formulation | min/max an output | video instructions an output")
    for rows, cols in shapes:
        for name, build in (("blocks", lambda r, c: gen.build(K, r, c)), ("columns", build_columns)):
            mm, video = count(rows, cols, *build(rows, cols))
            print(f"{rows} x {cols} | {name} | {mm:.1f} | {video:.1f}", flush=True)


if __name__ == "__main__":
    main()
