#!/usr/bin/env python3
"""Generate filters/median/median_fast_net.cuh: the min/max networks of the
GPU median's `fast` variant (k = 3 to 11), derived and checked here.

One thread computes a block of ROWS x COLS outputs of one channel.  The
windows of neighbouring outputs overlap, and the network shares what they
have in common instead of selecting every window afresh:

  blocks    the region every window of the block contains is sorted once;
            the block splits in two along its longer side and each half
            merges the strip its own common region adds, down to single
            outputs (build);
  k = 3     the classic route instead (build3): columns of three sorted,
            the pair two output rows share sorted once, then med3 of the
            max of the lows, the med3 of the middles and the min of the
            highs, neighbouring outputs sharing their two common columns;
  ranks     a merge only produces the ranks its consumer can use: an input
            element that lands below rank lo - |other| or above hi can never
            reach the wanted ranks and becomes a -inf / +inf sentinel, and
            every min/max with a sentinel folds away;
  select    the last step picks one rank r of two sorted lists A, B directly:
            r-th smallest = min over i + j = r + 1 of max(A[i-1], B[j-1]).
  video     8-bit grey at k = 5 and 7 for compute capability 5.x and 6.x (the
            Nano) a second time as video instructions (jf_median_vnet):
            inputs stay packed (byte selectors pick them), and a min or max
            used only by one other whose other operand is a result fuses
            with it into one op2(op1(a, b), c) (video_program).

Every node is a min or a max of two others, hash-consed (min/max commute),
so whatever two outputs compute alike is computed once; the generated code
keeps only the nodes the outputs reach.  Merges are Batcher's odd-even merge
on lists padded to a power of two with +inf (folded).  Each network is
checked against sorting on random inputs, three in four of them drawn from
two to four levels so that windows are full of ties.

Usage: gen_median_fast.py [--check-only] > filters/median/median_fast_net.cuh
"""
import random
import sys

LO, HI = -1, -2  # sentinels


class Dag:
    def __init__(self, n_inputs):
        self.ops = []  # (op, a, b), node id = n_inputs + index
        self.n_inputs = n_inputs
        self.memo = {}

    def _op(self, op, a, b):
        if a > b:
            a, b = b, a
        key = (op, a, b)
        if key not in self.memo:
            self.memo[key] = self.n_inputs + len(self.ops)
            self.ops.append(key)
        return self.memo[key]

    def min(self, a, b):
        if a == b or b == HI:
            return a
        if a == HI:
            return b
        if a == LO or b == LO:
            return LO
        return self._op("min", a, b)

    def max(self, a, b):
        if a == b or b == LO:
            return a
        if a == LO:
            return b
        if a == HI or b == HI:
            return HI
        return self._op("max", a, b)

    def ce(self, a, b):
        return self.min(a, b), self.max(a, b)

    # -- sorted lists ----------------------------------------------------
    def merge_pow2(self, v, lo, n, r):
        """Batcher's odd-even merge of v[lo:lo+n] (two sorted halves), step r."""
        step = r * 2
        if step < n:
            self.merge_pow2(v, lo, n, step)
            self.merge_pow2(v, lo + r, n, step)
            for i in range(lo + r, lo + n - r, step):
                v[i], v[i + r] = self.ce(v[i], v[i + r])
        else:
            v[lo], v[lo + r] = self.ce(v[lo], v[lo + r])

    def merge(self, a, b, lo=None, hi=None):
        """Sorted union of sorted lists a and b; only ranks lo..hi are meaningful."""
        n_out = len(a) + len(b)
        lo = 0 if lo is None else max(lo, 0)
        hi = n_out - 1 if hi is None else min(hi, n_out - 1)
        if not a or not b:
            return list(a or b)
        # rank pruning: an element of a at rank i lands at i .. i + len(b)
        a = [LO if i + len(b) < lo else HI if i > hi else x for i, x in enumerate(a)]
        b = [LO if i + len(a) < lo else HI if i > hi else x for i, x in enumerate(b)]
        n = 1
        while n < max(len(a), len(b)):
            n *= 2
        v = a + [HI] * (n - len(a)) + b + [HI] * (n - len(b))
        self.merge_pow2(v, 0, 2 * n, 1)
        return v[:n_out]

    def sort(self, xs):
        if len(xs) <= 1:
            return list(xs)
        h = len(xs) // 2
        return self.merge(self.sort(xs[:h]), self.sort(xs[h:]))

    def select(self, a, b, r):
        """The r-th smallest (0-based) of the union of sorted a and b."""
        if not a:
            return b[r]
        if not b:
            return a[r]
        best = None
        k = r + 1  # 1-based rank
        for i in range(max(0, k - len(b)), min(len(a), k) + 1):
            j = k - i
            x = LO if i == 0 else a[i - 1]
            y = LO if j == 0 else b[j - 1]
            m = self.max(x, y)
            best = m if best is None else self.min(best, m)
        return best

    def merge_tree(self, lists, lo=None, hi=None):
        """Merge several sorted lists (a balanced tree), ranks lo..hi wanted."""
        if len(lists) == 1:
            return lists[0]
        total = sum(len(x) for x in lists)
        lo = 0 if lo is None else lo
        hi = total - 1 if hi is None else hi
        h = len(lists) // 2
        n_left = sum(len(x) for x in lists[:h])
        n_right = total - n_left
        left = self.merge_tree(lists[:h], lo - n_right, hi)
        right = self.merge_tree(lists[h:], lo - n_left, hi)
        return self.merge(left, right, lo, hi)

    def evaluate(self, inputs):
        val = list(inputs) + [0] * len(self.ops)
        for idx, (op, a, b) in enumerate(self.ops):
            val[self.n_inputs + idx] = min(val[a], val[b]) if op == "min" else max(val[a], val[b])
        return val

    def live(self, outputs):
        need = set(o for o in outputs if o >= self.n_inputs)
        for idx in range(len(self.ops) - 1, -1, -1):
            node = self.n_inputs + idx
            if node in need:
                _, a, b = self.ops[idx]
                for x in (a, b):
                    if x >= self.n_inputs:
                        need.add(x)
        return sorted(need)


def build(k, rows, cols):
    """Network for a rows x cols block: inputs (rows + k - 1) x (cols + k - 1).

    Recursive: a block's outputs all contain the block's common region (rows
    r1 - 1 .. r0 + k - 1, columns c1 - 1 .. c0 + k - 1 of the inputs), sorted
    once; the block splits in two along its longer side, each half merges
    the strip its own common region adds, and a single output selects its
    median from its parent's list and its strip."""
    in_w, in_h = cols + k - 1, rows + k - 1
    dag = Dag(in_w * in_h)
    n, m = k * k, (k * k) // 2
    seg_memo = {}

    def seg(c, r0, r1):
        """Column c, rows r0..r1-1, sorted (split at power-of-two boundaries)."""
        key = (c, r0, r1)
        if key not in seg_memo:
            if r1 - r0 == 1:
                seg_memo[key] = [r0 * in_w + c]
            else:
                p = 1  # the coarsest power-of-two boundary inside, for sharing
                while (r0 // (2 * p) + 1) * (2 * p) < r1:
                    p *= 2
                mid = (r0 // p + 1) * p
                seg_memo[key] = dag.merge(seg(c, r0, mid), seg(c, mid, r1))
        return seg_memo[key]

    def rect(r0, r1, c0, c1):
        """Inputs rows r0..r1-1, columns c0..c1-1, sorted where it matters."""
        s = (r1 - r0) * (c1 - c0)
        if r1 <= r0 or c1 <= c0:
            return []
        return dag.merge_tree([seg(c, r0, r1) for c in range(c0, c1)], m - (n - s), m)

    def common(r0, r1, c0, c1):
        return (r1 - 1, r0 + k, c1 - 1, c0 + k)

    outputs = [None] * (rows * cols)

    def solve(r0, r1, c0, c1, core):
        cr = common(r0, r1, c0, c1)
        size = len(core)
        if r1 - r0 >= c1 - c0:
            mid = (r0 + r1) // 2
            halves = [(r0, mid, c0, c1), (mid, r1, c0, c1)]
        else:
            mid = (c0 + c1) // 2
            halves = [(r0, r1, c0, mid), (r0, r1, mid, c1)]
        for h in halves:
            hr = common(*h)
            # the strip this half adds: rows or columns outside the parent's region
            if not core:
                extra = rect(*hr)
            elif hr[0] < cr[0] or hr[1] > cr[1]:
                er = (hr[0], cr[0]) if hr[0] < cr[0] else (cr[1], hr[1])
                extra = rect(er[0], er[1], hr[2], hr[3])
            else:
                ec = (hr[2], cr[2]) if hr[2] < cr[2] else (cr[3], hr[3])
                extra = rect(hr[0], hr[1], ec[0], ec[1])
            if h[1] - h[0] == 1 and h[3] - h[2] == 1:
                outputs[h[0] * cols + h[2]] = dag.select(core, extra, m)
            else:
                s2 = size + len(extra)
                solve(*h, dag.merge(core, extra, m - (n - s2), m))

    top = common(0, rows, 0, cols)
    core = rect(*top)
    if rows * cols == 1:
        outputs[0] = core[m]
    else:
        solve(0, rows, 0, cols, core)
    return dag, outputs, in_w, in_h


def build3(rows, cols):
    """k = 3 by the classic route, which the general merges do not find: sort
    every column of three (the pair two output rows share sorted once), then
    the median is med3(max of the lows, med3 of the middles, min of the
    highs); two neighbouring outputs share the max, min and sorted pair of
    their two common columns."""
    in_w, in_h = cols + 2, rows + 2
    dag = Dag(in_w * in_h)
    node = lambda r, c: r * in_w + c
    col = {}
    for r0 in range(0, rows, 2):
        for c in range(in_w):
            core = dag.sort([node(r0 + 1, c), node(r0 + 2, c)])
            col[(r0, c)] = dag.merge(core, [node(r0, c)])
            if r0 + 1 < rows:
                col[(r0 + 1, c)] = dag.merge(core, [node(r0 + 3, c)])

    def med3(shared_lo, shared_hi, z):
        return dag.max(shared_lo, dag.min(shared_hi, z))

    outputs = [None] * (rows * cols)
    for r in range(rows):
        for c in range(cols):
            a, b = (c + 1, c + 2) if c % 2 == 0 else (c, c + 1)  # the pair's common columns
            z = c if c % 2 == 0 else c + 2                       # this output's own column
            lo = dag.max(dag.max(col[(r, a)][0], col[(r, b)][0]), col[(r, z)][0])
            hi = dag.min(dag.min(col[(r, a)][2], col[(r, b)][2]), col[(r, z)][2])
            m_lo, m_hi = dag.ce(col[(r, a)][1], col[(r, b)][1])
            mid = med3(m_lo, m_hi, col[(r, z)][1])
            x, y = dag.ce(lo, mid)
            outputs[r * cols + c] = dag.max(x, dag.min(y, hi))
    return dag, outputs, in_w, in_h


def check(k, rows, cols, evaluate, outputs, in_w, in_h, what="", trials=3000):
    """evaluate(inputs) -> values by node: every output the median of its
    window, on random inputs, three in four of them from 2-4 levels."""
    rng = random.Random(k * 1000 + rows * 10 + cols)

    def medians(v):
        res = []
        for r in range(rows):
            for c in range(cols):
                win = [v[(r + j) * in_w + c + i] for j in range(k) for i in range(k)]
                res.append(sorted(win)[(k * k) // 2])
        return res

    for t in range(trials):
        hi = [1, 2, 3, 255][t % 4]
        v = [rng.randint(0, hi) for _ in range(in_w * in_h)]
        val = evaluate(v)
        got = [val[o] for o in outputs]
        if got != medians(v):
            raise SystemExit(f"{what}k={k} {rows}x{cols}: wrong on {v}")


def emit(k, rows, cols, dag, outputs, live, in_w, in_h):
    n_min = sum(1 for x in live if dag.ops[x - dag.n_inputs][0] == "min")
    out = []
    out.append(f"/* k = {k}: a {rows} x {cols} block of outputs from {in_h} x {in_w} inputs, "
               f"{len(live)} min/max ({n_min} min), "
               f"{len(live) / (rows * cols):.1f} per output. */")
    out.append(f"template <> struct jf_median_net<{k}> {{")
    out.append(f"    enum {{ ROWS = {rows}, COLS = {cols}, IN_ROWS = {in_h}, IN_COLS = {in_w}, "
               f"OPS = {len(live)} }};")
    out.append("    template <typename V>")
    out.append(f"    static __device__ __forceinline__ void run(const V (&in)[{in_h}][{in_w}], "
               f"V (&out)[{rows}][{cols}])")
    out.append("    {")

    def name(x):
        if x < dag.n_inputs:
            return f"in[{x // in_w}][{x % in_w}]"
        return f"t{x - dag.n_inputs}"

    for x in live:
        op, a, b = dag.ops[x - dag.n_inputs]
        fn = "jf_min" if op == "min" else "jf_max"
        out.append(f"        const V {name(x)} = {fn}({name(a)}, {name(b)});")
    return close_run(out, outputs, cols, name)


def close_run(out, outputs, cols, name):
    """The outputs' assignments and the closing braces of run and its struct."""
    for i, o in enumerate(outputs):
        out.append(f"        out[{i // cols}][{i % cols}] = {name(o)};")
    out.append("    }")
    out.append("};")
    return "\n".join(out)


def video_program(dag, live, outputs):
    """The network as video instructions, op2(op1(a, b), c) each (VMNMX on
    compute capability 5.x and 6.x): a and b any bytes of any registers (an
    input sample is a byte of its packed word, a result byte 0 of its own),
    c a whole register.  A node used once whose consumer's other operand is
    a result becomes that consumer's op1 (topological order, greedy); every
    other node is one instruction with op2 the same op against its identity.
    Returns (node, op1, op2, a, b, c) tuples, c a node or None."""
    uses = {}
    for x in live:
        _, a, b = dag.ops[x - dag.n_inputs]
        for y in (a, b):
            uses[y] = uses.get(y, 0) + 1
    for o in outputs:
        uses[o] = uses.get(o, 0) + 1
    n = dag.n_inputs
    inner_of, absorbed = {}, set()
    for x in live:  # operands first: on this forest the greedy matching is the largest
        _, a, b = dag.ops[x - n]
        for y, z in ((a, b), (b, a)):
            if y >= n and uses[y] == 1 and y not in inner_of and z >= n:
                inner_of[x] = y
                absorbed.add(y)
                break
    prog = []
    for x in live:
        if x in absorbed:
            continue
        op, a, b = dag.ops[x - n]
        if x in inner_of:
            y = inner_of[x]
            op1, ya, yb = dag.ops[y - n]
            prog.append((x, op1, op, ya, yb, b if a == y else a))
        else:
            prog.append((x, op, op, a, b, None))
    return prog


def run_video(prog, inputs):
    """The instructions' values by node, from the inputs (for check)."""
    f = {"min": min, "max": max}
    ident = {"min": 255, "max": 0}
    val = dict(enumerate(inputs))
    for x, op1, op2, a, b, c in prog:
        val[x] = f[op2](f[op1](val[a], val[b]), ident[op2] if c is None else val[c])
    return val


def emit_video(k, rows, cols, prog, outputs, in_w, in_h, n_minmax):
    """jf_median_vnet<K>: the inputs as packed words (4 samples each, in
    memory order), every result a whole register (byte 0)."""
    words = (in_w + 3) // 4
    out = []
    out.append(f"/* k = {k}, video: a {rows} x {cols} block of outputs from {in_h} x {in_w} "
               f"inputs, {len(prog)} instructions for {n_minmax} min/max, "
               f"{len(prog) / (rows * cols):.1f} per output. */")
    out.append(f"template <> struct jf_median_vnet<{k}> {{")
    out.append(f"    enum {{ ROWS = {rows}, COLS = {cols}, IN_ROWS = {in_h}, IN_COLS = {in_w}, "
               f"IN_WORDS = {words}, INSTRUCTIONS = {len(prog)} }};")
    out.append(f"    static __device__ __forceinline__ void run(const unsigned (&w)[{in_h}][{words}], "
               f"unsigned (&out)[{rows}][{cols}])")
    out.append("    {")

    def ref(x):  # (register, byte)
        if x < in_w * in_h:
            r, c = divmod(x, in_w)
            return f"w[{r}][{c // 4}]", c % 4
        return f"t{x - in_w * in_h}", 0

    for x, op1, op2, a, b, c in prog:
        (ra, ba), (rb, bb) = ref(a), ref(b)
        rc = ref(c)[0] if c is not None else ("0xFFFFFFFFu" if op2 == "min" else "0u")
        out.append(f"        const unsigned {ref(x)[0]} = jf_v_{op1}_{op2}<{ba}, {bb}>({ra}, {rb}, {rc});")
    return close_run(out, outputs, cols, lambda x: ref(x)[0])


SHAPES = {3: (4, 8), 5: (2, 8), 7: (2, 8), 9: (2, 8), 11: (2, 8)}
# 8-bit grey on compute capability 5.x and 6.x (the Nano): the same blocks
VIDEO_KS = (5, 7)
if "--shapes" in sys.argv:
    SHAPES = {int(k): tuple(map(int, sh.split("x"))) for k, sh in
              (a.split(":") for a in sys.argv[sys.argv.index("--shapes") + 1].split(","))}


def main():
    check_only = "--check-only" in sys.argv
    blocks, video = [], []
    for k, (rows, cols) in sorted(SHAPES.items()):
        dag, outputs, in_w, in_h = build3(rows, cols) if k == 3 else build(k, rows, cols)
        check(k, rows, cols, dag.evaluate, outputs, in_w, in_h)
        live = dag.live(outputs)
        n = len(live)
        print(f"k={k} block {rows}x{cols}: {n} ops, {n / (rows * cols):.1f} per output "
              f"(checked)", file=sys.stderr)
        blocks.append(emit(k, rows, cols, dag, outputs, live, in_w, in_h))
        if k in VIDEO_KS:
            prog = video_program(dag, live, outputs)
            check(k, rows, cols, lambda v: run_video(prog, v), outputs, in_w, in_h, "video ")
            print(f"k={k} video: {len(prog)} instructions, {len(prog) / (rows * cols):.1f} per "
                  f"output (checked)", file=sys.stderr)
            video.append(emit_video(k, rows, cols, prog, outputs, in_w, in_h, n))
    if check_only:
        return
    print("/* Generated by scripts/gen_median_fast.py (which derives and checks these");
    print(" * networks): do not edit.  V is the sample type with jf_min / jf_max. */")
    print("#ifndef JF_FILTERS_MEDIAN_FAST_NET_CUH")
    print("#define JF_FILTERS_MEDIAN_FAST_NET_CUH")
    print()
    print("template <int K> struct jf_median_net;")
    print("/* 8-bit samples through video min/max (jf_v_*: median_video.cuh) */")
    print("template <int K> struct jf_median_vnet;")
    print()
    print("\n\n".join(blocks + video))
    print()
    print("#endif")


if __name__ == "__main__":
    main()
