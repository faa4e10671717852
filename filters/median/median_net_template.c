/*
 * The k = 3 to 9 row loops of median_cpu_net.c, written once for every
 * sample type: included there with SAMPLE (the sample type) and the names
 * MED3, PAIR3, PAIR3_AHEAD, EDGE3, END3, COMBINE_PAIRS, SORT4_ROWS,
 * SORT6_ROWS, SORT8_ROWS, ROWS3, ROWS_PAIRS, ROWS5, ROWS7 and ROWS9
 * defined.  Not compiled on its own.
 */

static inline SAMPLE MED3(SAMPLE a, SAMPLE b, SAMPLE c)
{
    return MAX_(MIN_(a, b), MIN_(MAX_(a, b), c));
}

/* Where a chunk's arrays start in their buffers: column i0, the first
 * stored, on a 64-byte boundary. */
#ifndef COL_LEAD
#define COL_LEAD(i0) ((64 / sizeof(SAMPLE) - (i0) % (64 / sizeof(SAMPLE))) % (64 / sizeof(SAMPLE)))
#endif

/* The positions of a chunk of output [at, at + n) whose sorted columns
 * come from inside the row: columns [*i0, *i1) of the chunk, which hold
 * source positions at - pad + i; `total` samples a row. */
#ifndef JF_NET_DIRECT_RANGE
#define JF_NET_DIRECT_RANGE
static void direct_range(size_t at, size_t n, size_t pad, size_t total, size_t *i0, size_t *i1)
{
    *i0 = at >= pad ? 0 : pad - at;
    *i1 = at + n + pad <= total ? n + 2 * pad : total + pad - at;
}
#endif

/* k = 5, 7 and 9: outputs [0, n) of a chunk for two rows at once (n a whole
 * number of vectors: no scalar tail, whose networks would cost as much as
 * the rest).  The two windows share k - 1 rows: col[0 .. k - 2] hold each
 * column's samples of them sorted, col[k - 1] and col[k] the first
 * window's own top row and the second's own bottom row.  Of the shared
 * samples only the middle `keep` ranks from `low` can be either median
 * (the (k*k - 1) / 2 below it hold at most k of the window's own row), so
 * one network selects those in order, and a second takes the median from
 * them and a window's own k (scripts/median_network.py derives both and
 * checks them on every 0-1 input).  Inlined with k a constant, so compiled
 * for each size and for the ISA of each copy of the loops. */
NET_INLINE void COMBINE_PAIRS(SAMPLE (*col)[COL_ROW], size_t ch, size_t n, SAMPLE *restrict d0,
                              SAMPLE *restrict d1, const int k)
{
    const int rows = k - 1, low = (k * k - 1) / 2 - k, keep = k * rows - 2 * low;
    size_t i;
    int c, r;
    for (i = 0; i < n; i++) {
        SAMPLE v[72], m[19], u[19];
        for (c = 0; c < k; c++)
            for (r = 0; r < rows; r++)
                v[rows * c + r] = col[r][i + (size_t)c * ch];
#define CMP(p, q) SORT2(v[p], v[q]);
        if (k == 5) { /* 64 comparators: ranks 7 to 12 of the shared rows */
            CMP(0, 4) CMP(1, 5) CMP(2, 6) CMP(3, 7) CMP(8, 12) CMP(9, 13) CMP(10, 14)
            CMP(11, 15) CMP(2, 4) CMP(3, 5) CMP(10, 12) CMP(11, 13) CMP(1, 2) CMP(3, 4)
            CMP(5, 6) CMP(9, 10) CMP(11, 12) CMP(13, 14) CMP(0, 8) CMP(1, 9) CMP(2, 10)
            CMP(3, 11) CMP(4, 12) CMP(5, 13) CMP(6, 14) CMP(7, 15) CMP(4, 8) CMP(5, 9)
            CMP(6, 10) CMP(7, 11) CMP(2, 4) CMP(3, 5) CMP(6, 8) CMP(7, 9) CMP(10, 12)
            CMP(11, 13) CMP(1, 2) CMP(3, 4) CMP(5, 6) CMP(7, 8) CMP(9, 10) CMP(11, 12)
            CMP(13, 14) CMP(0, 16) CMP(1, 17) CMP(2, 18) CMP(3, 19) CMP(8, 16) CMP(9, 17)
            CMP(10, 18) CMP(11, 19) CMP(4, 8) CMP(5, 9) CMP(6, 10) CMP(7, 11) CMP(12, 16)
            CMP(13, 17) CMP(6, 8) CMP(7, 9) CMP(10, 12) CMP(11, 13) CMP(7, 8) CMP(9, 10)
            CMP(11, 12)
        } else if (k == 7) { /* 212 comparators: ranks 17 to 24 */
            CMP(4, 6) CMP(5, 7) CMP(16, 18) CMP(17, 19) CMP(28, 30) CMP(29, 31) CMP(5, 6)
            CMP(17, 18) CMP(29, 30) CMP(0, 4) CMP(1, 5) CMP(8, 12) CMP(9, 13) CMP(10, 14)
            CMP(11, 15) CMP(18, 22) CMP(19, 23) CMP(24, 28) CMP(25, 29) CMP(32, 36)
            CMP(33, 37) CMP(34, 38) CMP(35, 39) CMP(2, 4) CMP(3, 5) CMP(10, 12) CMP(11, 13)
            CMP(18, 20) CMP(19, 21) CMP(26, 28) CMP(27, 29) CMP(34, 36) CMP(35, 37)
            CMP(1, 2) CMP(3, 4) CMP(9, 10) CMP(11, 12) CMP(13, 14) CMP(19, 20) CMP(21, 22)
            CMP(25, 26) CMP(27, 28) CMP(33, 34) CMP(35, 36) CMP(37, 38) CMP(0, 8) CMP(1, 9)
            CMP(2, 10) CMP(3, 11) CMP(4, 12) CMP(5, 13) CMP(6, 14) CMP(7, 15) CMP(16, 24)
            CMP(17, 25) CMP(18, 26) CMP(19, 27) CMP(20, 28) CMP(21, 29) CMP(22, 30)
            CMP(23, 31) CMP(4, 8) CMP(5, 9) CMP(6, 10) CMP(7, 11) CMP(20, 24) CMP(21, 25)
            CMP(22, 26) CMP(23, 27) CMP(36, 40) CMP(37, 41) CMP(2, 4) CMP(3, 5) CMP(6, 8)
            CMP(7, 9) CMP(10, 12) CMP(11, 13) CMP(18, 20) CMP(19, 21) CMP(22, 24)
            CMP(23, 25) CMP(26, 28) CMP(27, 29) CMP(38, 40) CMP(39, 41) CMP(1, 2) CMP(3, 4)
            CMP(5, 6) CMP(7, 8) CMP(9, 10) CMP(11, 12) CMP(13, 14) CMP(17, 18) CMP(19, 20)
            CMP(21, 22) CMP(23, 24) CMP(25, 26) CMP(27, 28) CMP(29, 30) CMP(37, 38)
            CMP(39, 40) CMP(0, 16) CMP(1, 17) CMP(2, 18) CMP(3, 19) CMP(4, 20) CMP(5, 21)
            CMP(6, 22) CMP(7, 23) CMP(8, 24) CMP(9, 25) CMP(10, 26) CMP(11, 27) CMP(12, 28)
            CMP(13, 29) CMP(14, 30) CMP(15, 31) CMP(8, 16) CMP(9, 17) CMP(10, 18)
            CMP(11, 19) CMP(12, 20) CMP(13, 21) CMP(14, 22) CMP(15, 23) CMP(4, 8) CMP(5, 9)
            CMP(6, 10) CMP(7, 11) CMP(12, 16) CMP(13, 17) CMP(14, 18) CMP(15, 19)
            CMP(20, 24) CMP(21, 25) CMP(22, 26) CMP(23, 27) CMP(2, 4) CMP(3, 5) CMP(6, 8)
            CMP(7, 9) CMP(10, 12) CMP(11, 13) CMP(14, 16) CMP(15, 17) CMP(18, 20)
            CMP(19, 21) CMP(22, 24) CMP(23, 25) CMP(26, 28) CMP(27, 29) CMP(1, 2) CMP(3, 4)
            CMP(5, 6) CMP(7, 8) CMP(9, 10) CMP(11, 12) CMP(13, 14) CMP(15, 16) CMP(17, 18)
            CMP(19, 20) CMP(21, 22) CMP(23, 24) CMP(25, 26) CMP(27, 28) CMP(0, 32)
            CMP(1, 33) CMP(2, 34) CMP(3, 35) CMP(4, 36) CMP(5, 37) CMP(6, 38) CMP(7, 39)
            CMP(8, 40) CMP(9, 41) CMP(16, 32) CMP(17, 33) CMP(18, 34) CMP(19, 35)
            CMP(20, 36) CMP(21, 37) CMP(22, 38) CMP(23, 39) CMP(24, 40) CMP(25, 41)
            CMP(9, 17) CMP(10, 18) CMP(11, 19) CMP(12, 20) CMP(13, 21) CMP(14, 22)
            CMP(15, 23) CMP(24, 32) CMP(25, 33) CMP(26, 34) CMP(27, 35) CMP(13, 17)
            CMP(14, 18) CMP(15, 19) CMP(20, 24) CMP(21, 25) CMP(22, 26) CMP(23, 27)
            CMP(15, 17) CMP(18, 20) CMP(19, 21) CMP(22, 24) CMP(23, 25) CMP(17, 18)
            CMP(19, 20) CMP(21, 22) CMP(23, 24)
        } else { /* 433 comparators: ranks 31 to 40 */
            CMP(0, 8) CMP(1, 9) CMP(2, 10) CMP(3, 11) CMP(4, 12) CMP(5, 13) CMP(6, 14)
            CMP(7, 15) CMP(16, 24) CMP(17, 25) CMP(18, 26) CMP(19, 27) CMP(20, 28)
            CMP(21, 29) CMP(22, 30) CMP(23, 31) CMP(32, 40) CMP(33, 41) CMP(34, 42)
            CMP(35, 43) CMP(36, 44) CMP(37, 45) CMP(38, 46) CMP(39, 47) CMP(48, 56)
            CMP(49, 57) CMP(50, 58) CMP(51, 59) CMP(52, 60) CMP(53, 61) CMP(54, 62)
            CMP(55, 63) CMP(4, 8) CMP(5, 9) CMP(6, 10) CMP(7, 11) CMP(20, 24) CMP(21, 25)
            CMP(22, 26) CMP(23, 27) CMP(36, 40) CMP(37, 41) CMP(38, 42) CMP(39, 43)
            CMP(52, 56) CMP(53, 57) CMP(54, 58) CMP(55, 59) CMP(2, 4) CMP(3, 5) CMP(6, 8)
            CMP(7, 9) CMP(10, 12) CMP(11, 13) CMP(18, 20) CMP(19, 21) CMP(22, 24)
            CMP(23, 25) CMP(26, 28) CMP(27, 29) CMP(34, 36) CMP(35, 37) CMP(38, 40)
            CMP(39, 41) CMP(42, 44) CMP(43, 45) CMP(50, 52) CMP(51, 53) CMP(54, 56)
            CMP(55, 57) CMP(58, 60) CMP(59, 61) CMP(1, 2) CMP(3, 4) CMP(5, 6) CMP(7, 8)
            CMP(9, 10) CMP(11, 12) CMP(13, 14) CMP(17, 18) CMP(19, 20) CMP(21, 22)
            CMP(23, 24) CMP(25, 26) CMP(27, 28) CMP(29, 30) CMP(33, 34) CMP(35, 36)
            CMP(37, 38) CMP(39, 40) CMP(41, 42) CMP(43, 44) CMP(45, 46) CMP(49, 50)
            CMP(51, 52) CMP(53, 54) CMP(55, 56) CMP(57, 58) CMP(59, 60) CMP(61, 62)
            CMP(0, 16) CMP(1, 17) CMP(2, 18) CMP(3, 19) CMP(4, 20) CMP(5, 21) CMP(6, 22)
            CMP(7, 23) CMP(8, 24) CMP(9, 25) CMP(10, 26) CMP(11, 27) CMP(12, 28)
            CMP(13, 29) CMP(14, 30) CMP(15, 31) CMP(32, 48) CMP(33, 49) CMP(34, 50)
            CMP(35, 51) CMP(36, 52) CMP(37, 53) CMP(38, 54) CMP(39, 55) CMP(40, 56)
            CMP(41, 57) CMP(42, 58) CMP(43, 59) CMP(44, 60) CMP(45, 61) CMP(46, 62)
            CMP(47, 63) CMP(8, 16) CMP(9, 17) CMP(10, 18) CMP(11, 19) CMP(12, 20)
            CMP(13, 21) CMP(14, 22) CMP(15, 23) CMP(40, 48) CMP(41, 49) CMP(42, 50)
            CMP(43, 51) CMP(44, 52) CMP(45, 53) CMP(46, 54) CMP(47, 55) CMP(4, 8) CMP(5, 9)
            CMP(6, 10) CMP(7, 11) CMP(12, 16) CMP(13, 17) CMP(14, 18) CMP(15, 19)
            CMP(20, 24) CMP(21, 25) CMP(22, 26) CMP(23, 27) CMP(36, 40) CMP(37, 41)
            CMP(38, 42) CMP(39, 43) CMP(44, 48) CMP(45, 49) CMP(46, 50) CMP(47, 51)
            CMP(52, 56) CMP(53, 57) CMP(54, 58) CMP(55, 59) CMP(2, 4) CMP(3, 5) CMP(6, 8)
            CMP(7, 9) CMP(10, 12) CMP(11, 13) CMP(14, 16) CMP(15, 17) CMP(18, 20)
            CMP(19, 21) CMP(22, 24) CMP(23, 25) CMP(26, 28) CMP(27, 29) CMP(34, 36)
            CMP(35, 37) CMP(38, 40) CMP(39, 41) CMP(42, 44) CMP(43, 45) CMP(46, 48)
            CMP(47, 49) CMP(50, 52) CMP(51, 53) CMP(54, 56) CMP(55, 57) CMP(58, 60)
            CMP(59, 61) CMP(1, 2) CMP(3, 4) CMP(5, 6) CMP(7, 8) CMP(9, 10) CMP(11, 12)
            CMP(13, 14) CMP(15, 16) CMP(17, 18) CMP(19, 20) CMP(21, 22) CMP(23, 24)
            CMP(25, 26) CMP(27, 28) CMP(29, 30) CMP(33, 34) CMP(35, 36) CMP(37, 38)
            CMP(39, 40) CMP(41, 42) CMP(43, 44) CMP(45, 46) CMP(47, 48) CMP(49, 50)
            CMP(51, 52) CMP(53, 54) CMP(55, 56) CMP(57, 58) CMP(59, 60) CMP(61, 62)
            CMP(0, 32) CMP(1, 33) CMP(2, 34) CMP(3, 35) CMP(4, 36) CMP(5, 37) CMP(6, 38)
            CMP(7, 39) CMP(8, 40) CMP(9, 41) CMP(10, 42) CMP(11, 43) CMP(12, 44)
            CMP(13, 45) CMP(14, 46) CMP(15, 47) CMP(16, 48) CMP(17, 49) CMP(18, 50)
            CMP(19, 51) CMP(20, 52) CMP(21, 53) CMP(22, 54) CMP(23, 55) CMP(24, 56)
            CMP(25, 57) CMP(26, 58) CMP(27, 59) CMP(28, 60) CMP(29, 61) CMP(30, 62)
            CMP(31, 63) CMP(16, 32) CMP(17, 33) CMP(18, 34) CMP(19, 35) CMP(20, 36)
            CMP(21, 37) CMP(22, 38) CMP(23, 39) CMP(24, 40) CMP(25, 41) CMP(26, 42)
            CMP(27, 43) CMP(28, 44) CMP(29, 45) CMP(30, 46) CMP(31, 47) CMP(8, 16)
            CMP(9, 17) CMP(10, 18) CMP(11, 19) CMP(12, 20) CMP(13, 21) CMP(14, 22)
            CMP(15, 23) CMP(24, 32) CMP(25, 33) CMP(26, 34) CMP(27, 35) CMP(28, 36)
            CMP(29, 37) CMP(30, 38) CMP(31, 39) CMP(40, 48) CMP(41, 49) CMP(42, 50)
            CMP(43, 51) CMP(44, 52) CMP(45, 53) CMP(46, 54) CMP(47, 55) CMP(4, 8) CMP(5, 9)
            CMP(6, 10) CMP(7, 11) CMP(12, 16) CMP(13, 17) CMP(14, 18) CMP(15, 19)
            CMP(20, 24) CMP(21, 25) CMP(22, 26) CMP(23, 27) CMP(28, 32) CMP(29, 33)
            CMP(30, 34) CMP(31, 35) CMP(36, 40) CMP(37, 41) CMP(38, 42) CMP(39, 43)
            CMP(44, 48) CMP(45, 49) CMP(46, 50) CMP(47, 51) CMP(52, 56) CMP(53, 57)
            CMP(2, 4) CMP(3, 5) CMP(6, 8) CMP(7, 9) CMP(14, 16) CMP(15, 17) CMP(18, 20)
            CMP(19, 21) CMP(22, 24) CMP(23, 25) CMP(26, 28) CMP(27, 29) CMP(30, 32)
            CMP(31, 33) CMP(34, 36) CMP(35, 37) CMP(38, 40) CMP(39, 41) CMP(42, 44)
            CMP(43, 45) CMP(46, 48) CMP(47, 49) CMP(50, 52) CMP(51, 53) CMP(1, 2) CMP(3, 4)
            CMP(5, 6) CMP(7, 8) CMP(15, 16) CMP(17, 18) CMP(19, 20) CMP(21, 22) CMP(23, 24)
            CMP(25, 26) CMP(27, 28) CMP(29, 30) CMP(31, 32) CMP(33, 34) CMP(35, 36)
            CMP(37, 38) CMP(39, 40) CMP(41, 42) CMP(43, 44) CMP(47, 48) CMP(49, 50)
            CMP(51, 52) CMP(0, 64) CMP(1, 65) CMP(2, 66) CMP(3, 67) CMP(4, 68) CMP(5, 69)
            CMP(6, 70) CMP(7, 71) CMP(32, 64) CMP(33, 65) CMP(34, 66) CMP(35, 67)
            CMP(36, 68) CMP(37, 69) CMP(38, 70) CMP(39, 71) CMP(16, 32) CMP(17, 33)
            CMP(18, 34) CMP(19, 35) CMP(20, 36) CMP(21, 37) CMP(22, 38) CMP(23, 39)
            CMP(48, 64) CMP(49, 65) CMP(50, 66) CMP(51, 67) CMP(24, 32) CMP(25, 33)
            CMP(26, 34) CMP(27, 35) CMP(28, 36) CMP(29, 37) CMP(30, 38) CMP(31, 39)
            CMP(40, 48) CMP(41, 49) CMP(42, 50) CMP(43, 51) CMP(28, 32) CMP(29, 33)
            CMP(30, 34) CMP(31, 35) CMP(36, 40) CMP(37, 41) CMP(38, 42) CMP(39, 43)
            CMP(30, 32) CMP(31, 33) CMP(34, 36) CMP(35, 37) CMP(38, 40) CMP(39, 41)
            CMP(31, 32) CMP(33, 34) CMP(35, 36) CMP(37, 38) CMP(39, 40)
        }
#undef CMP
        for (r = 0; r < keep; r++)
            m[r] = u[r] = v[low + r];
        for (c = 0; c < k; c++) {
            m[keep + c] = col[rows][i + (size_t)c * ch];
            u[keep + c] = col[k][i + (size_t)c * ch];
        }
#define CMP(p, q) SORT2(m[p], m[q]); SORT2(u[p], u[q]);
        if (k == 5) { /* 22 comparators each: the 6th of six in order and five in any */
            CMP(6, 7) CMP(8, 9) CMP(4, 6) CMP(5, 7) CMP(8, 10) CMP(5, 6) CMP(9, 10) CMP(0, 4)
            CMP(1, 5) CMP(2, 4) CMP(3, 5) CMP(1, 2) CMP(3, 4) CMP(0, 8) CMP(1, 9) CMP(2, 10)
            CMP(4, 8) CMP(5, 9) CMP(6, 10) CMP(3, 5) CMP(6, 8) CMP(5, 6)
        } else if (k == 7) { /* 30 each: the 8th of eight in order and seven in any */
            CMP(8, 9) CMP(10, 11) CMP(12, 13) CMP(8, 10) CMP(9, 11) CMP(12, 14) CMP(9, 10)
            CMP(13, 14) CMP(8, 12) CMP(9, 13) CMP(10, 14) CMP(10, 12) CMP(11, 13)
            CMP(9, 10) CMP(11, 12) CMP(13, 14) CMP(0, 8) CMP(1, 9) CMP(2, 10) CMP(3, 11)
            CMP(4, 12) CMP(5, 13) CMP(6, 14) CMP(4, 8) CMP(5, 9) CMP(6, 10) CMP(7, 11)
            CMP(6, 8) CMP(7, 9) CMP(7, 8)
        } else { /* 54 each: the 10th of ten in order and nine in any */
            CMP(10, 11) CMP(12, 13) CMP(14, 15) CMP(16, 17) CMP(8, 10) CMP(9, 11)
            CMP(12, 14) CMP(13, 15) CMP(16, 18) CMP(9, 10) CMP(13, 14) CMP(17, 18)
            CMP(8, 12) CMP(9, 13) CMP(10, 14) CMP(11, 15) CMP(10, 12) CMP(11, 13)
            CMP(9, 10) CMP(11, 12) CMP(13, 14) CMP(0, 8) CMP(1, 9) CMP(2, 10) CMP(3, 11)
            CMP(4, 12) CMP(5, 13) CMP(4, 8) CMP(5, 9) CMP(6, 10) CMP(7, 11) CMP(2, 4)
            CMP(3, 5) CMP(6, 8) CMP(7, 9) CMP(10, 12) CMP(11, 13) CMP(1, 2) CMP(5, 6)
            CMP(7, 8) CMP(9, 10) CMP(11, 12) CMP(0, 16) CMP(1, 17) CMP(2, 18) CMP(8, 16)
            CMP(9, 17) CMP(10, 18) CMP(5, 9) CMP(6, 10) CMP(12, 16) CMP(7, 9) CMP(10, 12)
            CMP(9, 10)
        }
#undef CMP
        d0[i] = m[(keep + k) / 2];
        d1[i] = u[(keep + k) / 2];
    }
}

/* k = 3, two output rows at once from source rows a, b, c, e (the rows
 * above, of, below and two below the first output row), each pointing at
 * the sample ch before output 0: in each column b and c, which both
 * windows hold, are ordered once and a and e merged into them; a window's
 * median is the median of its columns' largest low, middle middle and
 * smallest high.  All in registers: each column's triples are made again
 * for the three windows that hold them, which ran faster than storing
 * them once and loading them for each window (docs/kernels/studies.md). */
#define PAIR3_AT(i)                                                                         \
    {                                                                                       \
        COLUMN3(i, 0, lo00, mid00, hi00, lo10, mid10, hi10)                                 \
        COLUMN3(i, 1, lo01, mid01, hi01, lo11, mid11, hi11)                                 \
        COLUMN3(i, 2, lo02, mid02, hi02, lo12, mid12, hi12)                                 \
        d0[i] = MED3(MAX_(MAX_(lo00, lo01), lo02), MED3(mid00, mid01, mid02),               \
                     MIN_(MIN_(hi00, hi01), hi02));                                         \
        d1[i] = MED3(MAX_(MAX_(lo10, lo11), lo12), MED3(mid10, mid11, mid12),               \
                     MIN_(MIN_(hi10, hi11), hi12));                                         \
    }
#define COLUMN3(i, o, lo0, mid0, hi0, lo1, mid1, hi1)                                       \
    const SAMPLE m##o = MIN_(b[i + o * ch], c[i + o * ch]);                                 \
    const SAMPLE M##o = MAX_(b[i + o * ch], c[i + o * ch]);                                 \
    const SAMPLE lo0 = MIN_(m##o, a[i + o * ch]), hi0 = MAX_(M##o, a[i + o * ch]);          \
    const SAMPLE mid0 = MAX_(m##o, MIN_(M##o, a[i + o * ch]));                              \
    const SAMPLE lo1 = MIN_(m##o, e[i + o * ch]), hi1 = MAX_(M##o, e[i + o * ch]);          \
    const SAMPLE mid1 = MAX_(m##o, MIN_(M##o, e[i + o * ch]));
NET_INLINE void PAIR3(const SAMPLE *restrict a, const SAMPLE *restrict b, const SAMPLE *restrict c,
                      const SAMPLE *restrict e, size_t ch, size_t n, SAMPLE *restrict d0,
                      SAMPLE *restrict d1)
{
    size_t i;
    for (i = 0; i < n; i++)
        PAIR3_AT(i)
}

/* PAIR3 for n a multiple of a cache line's samples, asking a line at a
 * time for the same place of rows next0 and next1 (the next pair's new
 * rows) and, to be written, w0 and w1 (its output rows; NULL: none). */
NET_INLINE void PAIR3_AHEAD(const SAMPLE *restrict a, const SAMPLE *restrict b,
                            const SAMPLE *restrict c, const SAMPLE *restrict e, size_t ch, size_t n,
                            SAMPLE *restrict d0, SAMPLE *restrict d1, const SAMPLE *next0,
                            const SAMPLE *next1, SAMPLE *w0, SAMPLE *w1)
{
    const size_t line = 64 / sizeof(SAMPLE);
    size_t i, j;
    for (i = 0; i < n; i += line) {
        __builtin_prefetch(next0 + i);
        __builtin_prefetch(next1 + i);
        if (w0) {
            __builtin_prefetch(w0 + i, 1);
            __builtin_prefetch(w1 + i, 1);
        }
        for (j = i; j < i + line; j++)
            PAIR3_AT(j)
    }
}
#undef COLUMN3
#undef PAIR3_AT

/* Outputs [at, at + n) of a row pair in a narrow row (n at most PIECE3),
 * from copies of the samples they read.  The positions outside the row,
 * ch either side, are those `outside` names: before it, then after it
 * (-1: zero). */
NET_INLINE void EDGE3(const SAMPLE *const row[4], ptrdiff_t ch, ptrdiff_t total,
                      const ptrdiff_t *outside, size_t at, size_t n, SAMPLE *d0, SAMPLE *d1)
{
    const ptrdiff_t first = (ptrdiff_t)at - ch, len = (ptrdiff_t)n + 2 * ch;
    const ptrdiff_t in0 = first > 0 ? first : 0, in1 = first + len < total ? first + len : total;
    /* whole vectors, zeros past what the outputs read: no scalar tail */
    const size_t whole = (n + NET_VECTOR - 1) & ~(size_t)(NET_VECTOR - 1);
    SAMPLE src[4][PIECE3 + 8], out[2][PIECE3];
    ptrdiff_t j;
    int r;
    for (r = 0; r < 4; r++) {
        memcpy(&src[r][in0 - first], row[r] + in0, (size_t)(in1 - in0) * sizeof(SAMPLE));
        for (j = 0; j < in0 - first; j++) /* before the row */
            src[r][j] = outside[first + j + ch] < 0 ? 0 : row[r][outside[first + j + ch]];
        for (j = in1 - first; j < len; j++) /* after it */
            src[r][j] = outside[ch + first + j - total] < 0 ? 0 : row[r][outside[ch + first + j - total]];
        memset(&src[r][len], 0, (whole + 2 * (size_t)ch - (size_t)len) * sizeof(SAMPLE));
    }
    PAIR3(src[0], src[1], src[2], src[3], (size_t)ch, whole, out[0], out[1]);
    memcpy(d0 + at, out[0], n * sizeof(SAMPLE));
    if (d1)
        memcpy(d1 + at, out[1], n * sizeof(SAMPLE));
}

/* A row pair's first (last = 0) or last NET_VECTOR outputs, in a row of
 * at least NET_VECTOR + 8 samples, from copies of the samples they read:
 * NET_VECTOR + 4 of the row (a constant length: no call) and the ch
 * outside it that `outside` names (EDGE3's).  src[r][4 + j] holds position
 * first + j. */
NET_INLINE void END3(const SAMPLE *const row[4], size_t ch, size_t total, const ptrdiff_t *outside,
                     int last, SAMPLE *d0, SAMPLE *d1)
{
    const size_t at = last ? total - NET_VECTOR : 0, in = NET_VECTOR + 4;
    SAMPLE src[4][NET_VECTOR + 12], spare[NET_VECTOR];
    size_t j;
    int r;
    for (r = 0; r < 4; r++) {
        if (!last) { /* positions -ch .. NET_VECTOR + 3 */
            for (j = 0; j < ch; j++)
                src[r][4 + j] = outside[j] < 0 ? 0 : row[r][outside[j]];
            memcpy(&src[r][4 + ch], row[r], in * sizeof(SAMPLE));
        } else { /* positions total - NET_VECTOR - 4 .. total + ch - 1 */
            memcpy(&src[r][ch], row[r] + total - in, in * sizeof(SAMPLE));
            for (j = 0; j < ch; j++)
                src[r][4 + NET_VECTOR + ch + j] = outside[ch + j] < 0 ? 0 : row[r][outside[ch + j]];
        }
    }
    PAIR3(src[0] + 4, src[1] + 4, src[2] + 4, src[3] + 4, ch, NET_VECTOR, d0 + at, d1 ? d1 + at : spare);
}

/* k = 3 by pairs of output rows (a last odd row alone, its pair's second
 * row made in a spare piece and dropped).  The rows are read in place: a
 * row's first and last NET_VECTOR outputs, which read outside it, go
 * through END3; those between straight from the rows in whole vectors,
 * the last vector ending where END3's last begins (it makes some of the
 * previous vector's outputs again: the same values).  Rows of fewer than
 * 2 NET_VECTOR + 8 samples go through EDGE3 in pieces. */
JF_WIDE_SIMD static void ROWS3(void *arg, int y0, int y1, int worker)
{
    const net_job *job = (const net_job *)arg;
    const size_t ch = (size_t)job->src->channels, total = (size_t)job->dst->width * ch;
    const int narrow = total < 2 * NET_VECTOR + 8;
    SAMPLE spare[PIECE3];
    ptrdiff_t outside[8], s; /* EDGE3's and END3's */
    size_t at, n;
    int y, r;

    (void)worker;
    for (s = -(ptrdiff_t)ch; s < (ptrdiff_t)ch; s++)
        outside[s + (ptrdiff_t)ch] = border_sample(job, s < 0 ? s : (ptrdiff_t)total + s);
    for (y = y0; y < y1; y += 2) {
        const SAMPLE *row[4];
        SAMPLE *d0 = (SAMPLE *)(void *)(job->dst->data + (size_t)y * job->dst->stride);
        SAMPLE *d1 = y + 1 < y1 ? (SAMPLE *)(void *)(job->dst->data + (size_t)(y + 1) * job->dst->stride) : NULL;
        /* the rows the next pair adds, asked of memory as this pair goes:
         * from main memory (4K and up) the loop otherwise waits at each
         * row's first use */
        const SAMPLE *next0 = (const SAMPLE *)(const void *)source_row(job, y + 4);
        const SAMPLE *next1 = (const SAMPLE *)(const void *)source_row(job, y + 5);
        /* and the next pair's output rows, to be written (else each
         * line's first store waits for it to be read) */
        SAMPLE *w0 = y + 3 < y1 ? (SAMPLE *)(void *)(job->dst->data + (size_t)(y + 2) * job->dst->stride) : NULL;
        SAMPLE *w1 = w0 ? (SAMPLE *)(void *)(job->dst->data + (size_t)(y + 3) * job->dst->stride) : NULL;
        for (r = 0; r < 4; r++) /* the fourth row of a lone last row: any row will do */
            row[r] = (const SAMPLE *)(const void *)source_row(job, d1 || r < 3 ? y + r : y);
        if (narrow) {
            for (at = 0; at < total; at += n) {
                n = total - at < PIECE3 ? total - at : PIECE3;
                EDGE3(row, (ptrdiff_t)ch, (ptrdiff_t)total, outside, at, n, d0, d1);
            }
            continue;
        }
        END3(row, ch, total, outside, 0, d0, d1);
        for (at = NET_VECTOR; at < total - NET_VECTOR; at += n) {
            /* a lone row's dropped outputs go to the spare, a piece at a time */
            n = (total - NET_VECTOR - at) & ~(size_t)(NET_VECTOR - 1);
            if (!n) /* the last vector, over the previous one's end */
                at = total - NET_VECTOR - (n = NET_VECTOR);
            else if (!d1 && n > PIECE3)
                n = PIECE3;
            /* the channel count a constant: the twelve taps' addresses
             * from four pointers (a variable stride spilled them) */
#define DIRECT3(CH)                                                                           \
    PAIR3_AHEAD(row[0] + at - (CH), row[1] + at - (CH), row[2] + at - (CH), row[3] + at - (CH), \
                (CH), n, d0 + at, d1 ? d1 + at : spare, next0 + at, next1 + at,               \
                w0 ? w0 + at : NULL, w0 ? w1 + at : NULL)
            if (ch == 1)
                DIRECT3(1);
            else if (ch == 2)
                DIRECT3(2);
            else if (ch == 3)
                DIRECT3(3);
            else
                DIRECT3(4);
#undef DIRECT3
        }
        END3(row, ch, total, outside, 1, d0, d1);
    }
}

/* k = 5: each column's four samples of the shared rows a1 to a4 sorted
 * into c0 .. c3, and rows a0 and a5 copied into c4 and c5, m columns (restrict parameters: the vectoriser
 * trusts them where it would test twelve arrays for overlap). */
NET_INLINE void SORT4_ROWS(const SAMPLE *restrict a0, const SAMPLE *restrict a1,
                               const SAMPLE *restrict a2, const SAMPLE *restrict a3,
                               const SAMPLE *restrict a4, const SAMPLE *restrict a5, size_t m,
                               SAMPLE *restrict c0, SAMPLE *restrict c1, SAMPLE *restrict c2,
                               SAMPLE *restrict c3, SAMPLE *restrict c4, SAMPLE *restrict c5)
{
    size_t i;
    for (i = 0; i < m; i++) {
        SAMPLE a = a1[i], b = a2[i], c = a3[i], e = a4[i];
        SORT2(a, b); SORT2(c, e); SORT2(a, c); SORT2(b, e); SORT2(b, c);
        c0[i] = a; c1[i] = b; c2[i] = c; c3[i] = e;
        c4[i] = a0[i];
        c5[i] = a5[i];
    }
}

/* k = 7: the shared rows a1 to a6 sorted into c0 .. c5, rows a0 and a7
 * copied into c6 and c7, m columns. */
NET_INLINE void SORT6_ROWS(const SAMPLE *restrict a0, const SAMPLE *restrict a1,
                           const SAMPLE *restrict a2, const SAMPLE *restrict a3,
                           const SAMPLE *restrict a4, const SAMPLE *restrict a5,
                           const SAMPLE *restrict a6, const SAMPLE *restrict a7, size_t m,
                           SAMPLE *restrict c0, SAMPLE *restrict c1, SAMPLE *restrict c2,
                           SAMPLE *restrict c3, SAMPLE *restrict c4, SAMPLE *restrict c5,
                           SAMPLE *restrict c6, SAMPLE *restrict c7)
{
    size_t i;
    for (i = 0; i < m; i++) {
        SAMPLE p0 = a1[i], p1 = a2[i], p2 = a3[i], p3 = a4[i], p4 = a5[i], p5 = a6[i];
        SORT2(p0, p1); SORT2(p2, p3); SORT2(p4, p5); SORT2(p0, p2); SORT2(p1, p3); SORT2(p1, p2);
        SORT2(p0, p4); SORT2(p1, p5); SORT2(p2, p4); SORT2(p3, p5); SORT2(p1, p2); SORT2(p3, p4);
        c0[i] = p0; c1[i] = p1; c2[i] = p2; c3[i] = p3; c4[i] = p4; c5[i] = p5;
        c6[i] = a0[i];
        c7[i] = a7[i];
    }
}

/* k = 9: the shared rows a1 to a8 sorted into c0 .. c7, rows a0 and a9
 * copied into c8 and c9, m columns. */
NET_INLINE void SORT8_ROWS(const SAMPLE *restrict a0, const SAMPLE *restrict a1,
                           const SAMPLE *restrict a2, const SAMPLE *restrict a3,
                           const SAMPLE *restrict a4, const SAMPLE *restrict a5,
                           const SAMPLE *restrict a6, const SAMPLE *restrict a7,
                           const SAMPLE *restrict a8, const SAMPLE *restrict a9, size_t m,
                           SAMPLE *restrict c0, SAMPLE *restrict c1, SAMPLE *restrict c2,
                           SAMPLE *restrict c3, SAMPLE *restrict c4, SAMPLE *restrict c5,
                           SAMPLE *restrict c6, SAMPLE *restrict c7, SAMPLE *restrict c8,
                           SAMPLE *restrict c9)
{
    size_t i;
    for (i = 0; i < m; i++) {
        SAMPLE p0 = a1[i], p1 = a2[i], p2 = a3[i], p3 = a4[i], p4 = a5[i], p5 = a6[i], p6 = a7[i],
               p7 = a8[i];
        SORT2(p0, p1); SORT2(p2, p3); SORT2(p4, p5); SORT2(p6, p7); SORT2(p0, p2); SORT2(p1, p3);
        SORT2(p4, p6); SORT2(p5, p7); SORT2(p1, p2); SORT2(p5, p6); SORT2(p0, p4); SORT2(p1, p5);
        SORT2(p2, p6); SORT2(p3, p7); SORT2(p2, p4); SORT2(p3, p5); SORT2(p1, p2); SORT2(p3, p4);
        SORT2(p5, p6);
        c0[i] = p0; c1[i] = p1; c2[i] = p2; c3[i] = p3; c4[i] = p4; c5[i] = p5; c6[i] = p6; c7[i] = p7;
        c8[i] = a0[i];
        c9[i] = a9[i];
    }
}

/* k = 5, 7 and 9 by pairs of output rows (a last odd row alone, its pair's
 * second row computed and dropped), chunk by chunk along the rows;
 * inlined into each size's loops with k a constant. */
NET_INLINE void ROWS_PAIRS(const net_job *job, int y0, int y1, const int k)
{
    const size_t ch = (size_t)job->src->channels, half = (size_t)(k / 2) * ch;
    const size_t out_n = (size_t)job->dst->width * ch, chunk = CHUNK - CHUNK % (ch * NET_VECTOR);
    /* [r][i], r < k - 1: the r-th smallest of column i's shared samples;
     * [k - 1][i], [k][i]: the first window's top row, the second's bottom row */
    _Alignas(64) SAMPLE colbuf[10][COL_ROW];
    SAMPLE(*col)[COL_ROW];
    SAMPLE spare0[CHUNK], spare1[CHUNK];
    size_t at, n, i0, i1, whole, s0;
    int y, r;

    for (y = y0; y < y1; y += 2) {
        const SAMPLE *row[10];
        SAMPLE *d0 = (SAMPLE *)(void *)(job->dst->data + (size_t)y * job->dst->stride);
        SAMPLE *d1 = y + 1 < y1 ? (SAMPLE *)(void *)(job->dst->data + (size_t)(y + 1) * job->dst->stride) : NULL;
        SAMPLE *o0, *o1;
        for (r = 0; r <= k; r++) /* the last row of a lone last row: any row will do */
            row[r] = (const SAMPLE *)(const void *)source_row(job, d1 || r < k ? y + r : y);
        for (at = 0; at < out_n; at += chunk) {
            n = out_n - at < chunk ? out_n - at : chunk;
            whole = (n + NET_VECTOR - 1) & ~(size_t)(NET_VECTOR - 1);
            direct_range(at, n, half, out_n, &i0, &i1);
            col = (SAMPLE(*)[COL_ROW])(void *)&colbuf[0][COL_LEAD(i0)];
            s0 = at + i0 - half;
            if (k == 5)
                SORT4_ROWS(row[0] + s0, row[1] + s0, row[2] + s0, row[3] + s0, row[4] + s0, row[5] + s0,
                           i1 - i0, col[0] + i0, col[1] + i0, col[2] + i0, col[3] + i0, col[4] + i0,
                           col[5] + i0);
            else if (k == 7)
                SORT6_ROWS(row[0] + s0, row[1] + s0, row[2] + s0, row[3] + s0, row[4] + s0, row[5] + s0,
                           row[6] + s0, row[7] + s0, i1 - i0, col[0] + i0, col[1] + i0, col[2] + i0,
                           col[3] + i0, col[4] + i0, col[5] + i0, col[6] + i0, col[7] + i0);
            else
                SORT8_ROWS(row[0] + s0, row[1] + s0, row[2] + s0, row[3] + s0, row[4] + s0, row[5] + s0,
                           row[6] + s0, row[7] + s0, row[8] + s0, row[9] + s0, i1 - i0, col[0] + i0,
                           col[1] + i0, col[2] + i0, col[3] + i0, col[4] + i0, col[5] + i0, col[6] + i0,
                           col[7] + i0, col[8] + i0, col[9] + i0);
            border_columns(job, col, sizeof col[0], k + 1, sizeof(SAMPLE), (ptrdiff_t)(at - half), i0,
                           i1, n + 2 * half, whole + 2 * half);
            o0 = whole == n ? d0 + at : spare0;
            o1 = whole == n && d1 ? d1 + at : spare1;
            COMBINE_PAIRS(col, ch, whole, o0, o1, k);
            if (whole != n) {
                memcpy(d0 + at, spare0, n * sizeof(SAMPLE));
                if (d1)
                    memcpy(d1 + at, spare1, n * sizeof(SAMPLE));
            }
        }
    }
}

JF_WIDEST_INT_SIMD static void ROWS5(void *arg, int y0, int y1, int worker)
{
    (void)worker;
    ROWS_PAIRS((const net_job *)arg, y0, y1, 5);
}

JF_WIDEST_INT_SIMD static void ROWS7(void *arg, int y0, int y1, int worker)
{
    (void)worker;
    ROWS_PAIRS((const net_job *)arg, y0, y1, 7);
}

#ifdef ROWS9
/* No AVX-512 copy at k = 9: its networks' 72 values never fit the
 * registers, and each copy of them is the largest function compiled. */
JF_WIDE_SIMD static void ROWS9(void *arg, int y0, int y1, int worker)
{
    (void)worker;
    ROWS_PAIRS((const net_job *)arg, y0, y1, 9);
}
#endif

/* The names are the includer's to define again for the next type. */
#undef SAMPLE
#undef MED3
#undef PAIR3
#undef PAIR3_AHEAD
#undef EDGE3
#undef END3
#undef ROWS3
#undef ROWS5
#undef ROWS7
#undef ROWS9
#undef SORT8_ROWS
#undef ROWS_PAIRS
#undef SORT4_ROWS
#undef SORT6_ROWS
#undef COMBINE_PAIRS
