#!/usr/bin/env python3
"""The k = 5, 7 and 9 median networks of filters/median/median_net_template.c,
derived and checked.

The CPU filter makes two output rows at once.  Their k x k windows share
k - 1 source rows; each column's k - 1 samples of those are sorted once
(index column * (k - 1) + rank, rank 0 the smallest) and shared by the k
windows of each row that hold the column.  Of the k(k - 1) shared samples
only a few ranks can be a window's median: the (k*k - 1) / 2 samples below
the median hold at most k of the window's own fifth (seventh) row, so the
shared ranks below (k*k - 1) / 2 - k lie below it, and as many at the top
lie above it.  Dropping those leaves the middle ranks and the window's own
k samples, whose middle is the median: at k = 5 ranks 7 to 12 of 20 (6,
then the 6th of 11), at k = 7 ranks 17 to 24 of 42 (8, then the 8th of 15),
at k = 9 ranks 31 to 40 of 72 (10, then the 10th of 19).

So two networks a k: SELECT puts those ranks of the column-sorted shared
samples, in order, in their places; MEDIAN takes the middle of them (in
order, first) and a window's own k (in any order).  Each starts from
Batcher's odd-even merge sort (padding inputs +inf, so comparators touching
them never swap), drops every comparator that never swaps on its inputs,
then keeps only those its outputs depend on.  By the 0-1 principle (a
comparator network commutes with monotone maps, and thresholding keeps
columns sorted) being right on every 0-1 input of its kind means being
right on every input.  Those checks, and one of the two together over
every window (the shared rows column-sorted, any own row), run on all the
0-1 inputs at once as bits of Python integers: every run at k = 5 and 7
(2 s).  k = 9's SELECT has 387,420,489 inputs (nine minutes and 8 GB with
--with-9), so a run records what that derivation gave by its SHA-256
(SELECT9_SHA256), holds the file's k = 9 SELECT to it, derives MEDIAN, and
checks both together on a seeded random sample of windows.

Prints the comparator lists for the C file (with --with-9 also k = 9's,
checked, and its hash), or with --check FILE fails unless FILE holds them.
"""
import hashlib
import itertools
import random
import re
import sys

# k = 9's SELECT as --with-9 derives and checks it on all its inputs (the
# comparators as "(a,b)" joined, hashed)
SELECT9_SHA256 = "b9c164877de523eeeb9c7a53ddbaa883ad4ebc4243ccaf60be6424f5802da1a2"


def batcher(n):
    """Odd-even merge sort comparators (i < j) for n a power of two."""
    net, p = [], 1
    while p < n:
        k = p
        while k >= 1:
            for j in range(k % p, n - k, 2 * k):
                for i in range(min(k, n - j - k)):
                    if (i + j) // (2 * p) == (i + j + k) // (2 * p):
                        net.append((i + j, i + j + k))
            k //= 2
        p *= 2
    return net


def sorter(n):
    return [(a, b) for a, b in batcher(1 << (n - 1).bit_length()) if b < n]


def run(net, v):
    """The network on every case at once: v[i] holds position i's 0-1
    value of each case as one bit of an integer."""
    v = list(v)
    for a, b in net:
        v[a], v[b] = v[a] & v[b], v[a] | v[b]
    return v


def derive(n, inputs, outputs):
    """Batcher's sort of n inputs, less what never swaps on `inputs` and
    what `outputs` do not depend on."""
    net = sorter(n)
    while True:
        v, keep = list(inputs), []
        for a, b in net:
            if v[a] & ~v[b]:
                keep.append((a, b))
            v[a], v[b] = v[a] & v[b], v[a] | v[b]
        if len(keep) == len(net):
            break
        net = keep
    need, pruned = set(outputs), []
    for a, b in reversed(net):
        if a in need or b in need:
            pruned.append((a, b))
            need |= {a, b}
    pruned.reverse()
    return pruned


def repeat(block, width, times):
    """`block` (width bits) repeated `times` times, by doubling."""
    out, shift = 0, 0
    while times:
        if times & 1:
            out |= block << shift
            shift += width
        block |= block << width
        width *= 2
        times >>= 1
    return out


def column_sorted(rows, cols):
    """Every 0-1 input of `cols` columns of `rows` sorted samples, as bits:
    case j has o_c ones in column c, j = sum o_c (rows + 1)^c."""
    base, v = rows + 1, []
    for c in range(cols):
        span = base ** c
        for r in range(rows):
            period = sum(((1 << span) - 1) << (o * span) for o in range(base) if o >= rows - r)
            v.append(repeat(period, base * span, base ** (cols - c - 1)))
    return v, base ** cols


def cases(vectors):
    """Explicit 0-1 cases as bits (case j is bit j)."""
    return [sum(vec[i] << j for j, vec in enumerate(vectors)) for i in range(len(vectors[0]))]


def shape(k):
    """Rows shared, the lowest rank kept, how many ranks are kept."""
    rows, low = k - 1, (k * k - 1) // 2 - k
    return rows, low, k * rows - 2 * low


def median_network(k):
    """MEDIAN, derived and checked on all its inputs (a few thousand)."""
    rows, low, keep = shape(k)
    ordered_and_any = [[1 if i >= keep - p else 0 for i in range(keep)] + list(own)
                       for p in range(keep + 1) for own in itertools.product((0, 1), repeat=k)]
    mid = len(ordered_and_any[0]) // 2
    inputs = cases(ordered_and_any)
    median = derive(keep + k, inputs, [mid])
    assert run(median, inputs)[mid] == run(sorter(keep + k), inputs)[mid]
    return median


def networks(k):
    """Both networks derived on every column-sorted 0-1 input and checked,
    alone and together over every window."""
    rows, low, keep = shape(k)
    shared, count = column_sorted(rows, k)
    everyone = (1 << count) - 1
    select = derive(k * rows, shared, range(low, low + keep))
    got = run(select, shared)
    assert got[low:low + keep] == run(sorter(k * rows), shared)[low:low + keep]
    median = median_network(k)
    mid = (keep + k) // 2
    for own in itertools.product((0, everyone), repeat=k) if k < 9 else ():  # every window
        window = shared + list(own)
        assert run(median, got[low:low + keep] + list(own))[mid] == run(sorter(k * k), window)[k * k // 2]
    return select, median, count


def sampled(k, select, median, n=1 << 16, seed=9):
    """Both together on n random windows (seeded) as 0-1 inputs: each
    column of the shared rows holds a random count of ones at its top, the
    own row is random; a window's count of ones is near its middle more
    often than not, where a wrong comparator shows."""
    rows, low, keep = shape(k)
    rng = random.Random(seed)
    ones = [[rng.randrange(rows + 1) for _ in range(k)] for _ in range(n)]
    own_bits = [[rng.randrange(2) for _ in range(k)] for _ in range(n)]

    def bits(pick):  # case j is bit j
        return int("".join("1" if pick(j) else "0" for j in reversed(range(n))), 2)

    shared = [bits(lambda j, c=c, r=r: ones[j][c] >= rows - r) for c in range(k) for r in range(rows)]
    own = [bits(lambda j, c=c: own_bits[j][c]) for c in range(k)]
    got = run(select, shared)
    truth = run(sorter(k * rows), shared)
    if got[low:low + keep] != truth[low:low + keep]:
        return "SELECT gives other ranks %d to %d than sorting" % (low, low + keep - 1)
    if run(median, got[low:low + keep] + own)[(keep + k) // 2] != run(sorter(k * k), shared + own)[k * k // 2]:
        return "SELECT and MEDIAN together miss a window's median"
    return None


def digest(net):
    return hashlib.sha256("".join("(%d,%d)" % c for c in net).encode()).hexdigest()


def block(text, k):
    """The file's SELECT for k: the comparators after its 'ranks LOW to
    HIGH' comment, to the block's end."""
    rows, low, keep = shape(k)
    m = re.search(r"ranks %d to %d\b[^*]*\*/(.*?)\}" % (low, low + keep - 1), text, re.S)
    return [(int(a), int(b)) for a, b in re.findall(r"CMP\((\d+), (\d+)\)", m.group(1))] if m else []


def listing(net):
    out, line = [], ""
    for a, b in net:
        item = "CMP(%d, %d) " % (a, b)
        if len(line) + len(item) > 80:
            out.append("    " + line.rstrip())
            line = ""
        line += item
    out.append("    " + line.rstrip())
    return "\n".join(out)


def main():
    args = [a for a in sys.argv[1:] if a != "--with-9"]
    whole9 = "--with-9" in sys.argv[1:]
    check = args[1] if args[:1] == ["--check"] else None
    text = open(check).read() if check else ""
    flat = "".join("(%s,%s)" % m for m in re.findall(r"CMP\((\d+), (\d+)\)", text))
    for k in (5, 7, 9):
        _, low, keep = shape(k)
        if k == 9 and not whole9:
            select, median = block(text, 9) if check else [], median_network(9)
            if not check:
                continue
            if digest(select) != SELECT9_SHA256:
                sys.exit("%s: the k = 9 SELECT network (%d comparators) is not the one derived and checked "
                         "(scripts/median_network.py --with-9)" % (check, len(select)))
            problem = sampled(9, select, median)
            if problem:
                sys.exit("%s: k = 9: %s" % (check, problem))
        else:
            select, median, count = networks(k)
            if k == 9 and digest(select) != SELECT9_SHA256:
                sys.exit("k = 9: SELECT derived again differs from SELECT9_SHA256 (%s)" % digest(select))
        if check:
            for net, name in ((select, "SELECT"), (median, "MEDIAN")):
                if "".join("(%d,%d)" % c for c in net) not in flat:
                    sys.exit("%s: the k = %d %s network differs from the derived one" % (check, k, name))
            continue
        print("/* k = %d: %d comparators, ranks %d to %d of the shared rows (all %d inputs) */"
              % (k, len(select), low, low + keep - 1, count))
        print(listing(select))
        print("/* k = %d: %d comparators, the middle of %d in order and %d in any */"
              % (k, len(median), keep, k))
        print(listing(median))
    if check:
        print("%s holds the k = 5, 7 and 9 networks as derived%s" % (check, "" if whole9 else
              " (k = 9's SELECT by its recorded hash, with a sample of windows)"))


if __name__ == "__main__":
    main()
