#!/usr/bin/env python3
"""The k = 5 and k = 7 median networks of filters/median/median_net_template.c,
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
then the 6th of 11), at k = 7 ranks 17 to 24 of 42 (8, then the 8th of 15).

So two networks a k: SELECT puts those ranks of the column-sorted shared
samples, in order, in their places; MEDIAN takes the middle of them (in
order, first) and a window's own k (in any order).  Each starts from
Batcher's odd-even merge sort (padding inputs +inf, so comparators touching
them never swap), drops every comparator that never swaps on its inputs,
then keeps only those its outputs depend on.  By the 0-1 principle (a
comparator network commutes with monotone maps, and thresholding keeps
columns sorted) being right on every 0-1 input of its kind means being
right on every input; those checks, and one of the two together over every
window (the shared rows column-sorted, any own row), run here every time,
on all the 0-1 inputs at once as bits of Python integers.  Prints the
comparator lists for the C file, or with --check FILE, fails unless FILE
holds them as derived.
"""
import itertools
import re
import sys


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
    """`block` (width bits) repeated `times` times."""
    return block * (((1 << (width * times)) - 1) // ((1 << width) - 1))


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


def networks(k):
    rows, low = k - 1, (k * k - 1) // 2 - k
    keep = k * rows - 2 * low  # the middle ranks low .. low + keep - 1
    shared, count = column_sorted(rows, k)
    everyone = (1 << count) - 1
    select = derive(k * rows, shared, range(low, low + keep))
    truth = run(sorter(k * rows), shared)
    got = run(select, shared)
    assert got[low:low + keep] == truth[low:low + keep]
    ordered_and_any = [[1 if i >= keep - p else 0 for i in range(keep)] + list(own)
                       for p in range(keep + 1) for own in itertools.product((0, 1), repeat=k)]
    mid = len(ordered_and_any[0]) // 2
    inputs = cases(ordered_and_any)
    median = derive(keep + k, inputs, [mid])
    assert run(median, inputs)[mid] == run(sorter(keep + k), inputs)[mid]
    for own in itertools.product((0, everyone), repeat=k):  # every window, both together
        window = shared + list(own)
        assert run(median, got[low:low + keep] + list(own))[mid] == run(sorter(k * k), window)[k * k // 2]
    return select, median, low, keep, count


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
    check = sys.argv[2] if sys.argv[1:2] == ["--check"] else None
    text = open(check).read() if check else ""
    flat = "".join("(%s,%s)" % m for m in re.findall(r"CMP\((\d+), (\d+)\)", text))
    for k in (5, 7):
        select, median, low, keep, count = networks(k)
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
        print("%s holds the k = 5 and 7 networks as derived" % check)


if __name__ == "__main__":
    main()
