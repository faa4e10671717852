#!/usr/bin/env python3
"""The 5x5 median networks of filters/median/median_net_template.c, derived
and checked.

The CPU filter makes two output rows at once.  Their windows share four
source rows; each column's four samples of those are sorted once (index
column*4 + rank, rank 0 the smallest) and shared by the five windows of
each row that hold the column.  Of those 20 shared samples only ranks 7 to
12 can be a window's median: the median has at least 13 of the window's
25 samples at or below it, at most 5 of them from the window's own fifth
row, so at least 8 shared ones (ranks 0..7 lie at or below it), and as
many at or above it (ranks 12..19).  Dropping the 7 below and the 7 above
leaves 11 samples whose middle (the 6th) is the median.

So two networks: SELECT puts ranks 7..12 of the 20 column-sorted shared
samples, in order, at positions 7..12; MEDIAN takes the 6th smallest of
those six (in order, positions 0..5) and a window's own five (in any order,
positions 6..10) to position 5.  Each starts from Batcher's odd-even merge
sort (padding inputs +inf, so comparators touching them never swap), drops
every comparator that never swaps on its inputs, then keeps only those its
outputs depend on.  By the 0-1 principle (a comparator network commutes
with monotone maps, and thresholding keeps columns sorted) being right on
every 0-1 input of its kind means being right on every input; those checks,
and one of the two together over every window (four column-sorted rows and
any fifth), run here every time.  Prints the comparator lists for the C file,
or with --check FILE, fails unless FILE holds both lists as derived.
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


def run(net, v):
    v = list(v)
    for a, b in net:
        if v[a] > v[b]:
            v[a], v[b] = v[b], v[a]
    return v


def derive(n, inputs, outputs):
    """Batcher's sort of n inputs, less what never swaps on `inputs` and
    what `outputs` do not depend on."""
    net = [(a, b) for a, b in batcher(1 << (n - 1).bit_length()) if b < n]
    while True:
        states, keep = [list(v) for v in inputs], []
        for a, b in net:
            swapped = False
            for v in states:
                if v[a] > v[b]:
                    v[a], v[b], swapped = v[b], v[a], True
            if swapped:
                keep.append((a, b))
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


def shared_rows():
    """Every 0-1 input of five columns of four sorted samples."""
    for ones in itertools.product(range(5), repeat=5):
        yield [1 if r >= 4 - ones[c] else 0 for c in range(5) for r in range(4)]


def show(net, what):
    print("/* %d comparators: %s */" % (len(net), what))
    line = ""
    for a, b in net:
        item = "CMP(%d, %d) " % (a, b)
        if len(line) + len(item) > 80:
            print("    " + line.rstrip())
            line = ""
        line += item
    print("    " + line.rstrip())


def main():
    shared = list(shared_rows())
    select = derive(20, shared, range(7, 13))
    for v in shared:
        assert run(select, v)[7:13] == sorted(v)[7:13]
    six_and_five = [[1 if i >= 6 - p else 0 for i in range(6)] + list(own)
                    for p in range(7) for own in itertools.product((0, 1), repeat=5)]
    median = derive(11, six_and_five, [5])
    for v in six_and_five:
        assert run(median, v)[5] == sorted(v)[5]
    windows = 0
    for v in shared:
        middle = run(select, v)[7:13]
        for own in itertools.product((0, 1), repeat=5):
            assert run(median, middle + list(own))[5] == sorted(v + list(own))[12]
            windows += 1
    if sys.argv[1:2] == ["--check"]:
        text = open(sys.argv[2]).read()
        found = [(int(a), int(b)) for a, b in re.findall(r"CMP\((\d+), (\d+)\)", text)]
        flat = "".join("(%d,%d)" % c for c in found)
        for net, name in ((select, "SELECT"), (median, "MEDIAN")):
            if "".join("(%d,%d)" % c for c in net) not in flat:
                sys.exit("%s: the %s network differs from the derived one" % (sys.argv[2], name))
        print("%s holds both networks as derived" % sys.argv[2])
        return
    show(select, "ranks 7 to 12 of the shared rows, checked on all %d inputs" % len(shared))
    show(median, "the 6th of six in order and five in any, checked on all %d inputs"
         % len(six_and_five))
    print("/* together: every one of the %d windows' medians */" % windows)


if __name__ == "__main__":
    main()
