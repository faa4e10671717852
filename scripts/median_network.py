#!/usr/bin/env python3
"""The 5x5 median network of filters/median/median_cpu.c, derived and checked.

Inputs are the 25 window values with each column already sorted (index
column*5 + row, row 0 the smallest), because the CPU filter sorts every
vertical 5-tuple once and shares it among the five windows that contain it.
Start from Batcher's odd-even merge sort (32 inputs, the 7 padding inputs
+inf, so comparators touching them never swap), drop every comparator that
never swaps on a column-sorted input, then keep only those the median
(position 12) depends on.  By the 0-1 principle (a comparator network
commutes with monotone maps, and thresholding keeps columns sorted), being
right on all 6^5 column-sorted 0-1 inputs means being right on all inputs;
that check runs here every time.  Prints the comparator list for the C file.
"""
import itertools

N, MEDIAN = 25, 12


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


def column_sorted_zero_one_inputs():
    for ones in itertools.product(range(6), repeat=5):
        yield [1 if r >= 5 - ones[c] else 0 for c in range(5) for r in range(5)]


def run(net, v):
    v = list(v)
    for a, b in net:
        if v[a] > v[b]:
            v[a], v[b] = v[b], v[a]
    return v


def main():
    inputs = list(column_sorted_zero_one_inputs())
    net = [(a, b) for a, b in batcher(32) if b < N]
    while True:  # drop comparators that never swap
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
    need, pruned = {MEDIAN}, []
    for a, b in reversed(net):  # only what reaches the median
        if a in need or b in need:
            pruned.append((a, b))
            need |= {a, b}
    pruned.reverse()
    for v in inputs:
        assert run(pruned, v)[MEDIAN] == sorted(v)[MEDIAN]
    print("/* %d comparators, checked on all %d column-sorted 0-1 inputs */" % (len(pruned), len(inputs)))
    line = ""
    for a, b in pruned:
        item = "CMP(%d, %d) " % (a, b)
        if len(line) + len(item) > 80:
            print("    " + line.rstrip())
            line = ""
        line += item
    print("    " + line.rstrip())


if __name__ == "__main__":
    main()
