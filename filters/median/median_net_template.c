/*
 * The k = 3 and 5 row loops of median_cpu_net.c, written once for both
 * sample types: included there with SAMPLE (the sample type) and the names
 * MED3, EDGE3, COMBINE5, ROWS3, ROWS5 defined.  Not compiled on its own.
 */

static inline SAMPLE MED3(SAMPLE a, SAMPLE b, SAMPLE c)
{
    return MAX_(MIN_(a, b), MIN_(MAX_(a, b), c));
}

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

/* k = 5: outputs [0, n) of a chunk from its sorted columns (n a whole
 * number of vectors: no scalar tail, whose network would cost as much as
 * the rest); inlined, so compiled for the ISA of each copy of the loops. */
NET_INLINE void COMBINE5(SAMPLE col[5][CHUNK + NET_SLACK], size_t ch, size_t n, SAMPLE *restrict d)
{
    size_t i;
    int r;
    for (i = 0; i < n; i++) {
        SAMPLE v[25];
#define CMP(p, q) SORT2(v[p], v[q]);
        for (r = 0; r < 5; r++) {
            v[r] = col[r][i];
            v[5 + r] = col[r][i + ch];
            v[10 + r] = col[r][i + 2 * ch];
            v[15 + r] = col[r][i + 3 * ch];
            v[20 + r] = col[r][i + 4 * ch];
        }
        /* 85 comparators, checked on all 7776 column-sorted 0-1 inputs */
        CMP(4, 5) CMP(14, 15) CMP(5, 7) CMP(8, 10) CMP(9, 11) CMP(12, 14) CMP(5, 6)
        CMP(9, 10) CMP(13, 14) CMP(0, 4) CMP(1, 5) CMP(2, 6) CMP(8, 12) CMP(10, 14)
        CMP(11, 15) CMP(16, 20) CMP(17, 21) CMP(18, 22) CMP(19, 23) CMP(2, 4) CMP(3, 5)
        CMP(10, 12) CMP(11, 13) CMP(18, 20) CMP(19, 21) CMP(1, 2) CMP(3, 4) CMP(5, 6)
        CMP(9, 10) CMP(11, 12) CMP(13, 14) CMP(17, 18) CMP(19, 20) CMP(21, 22)
        CMP(0, 8) CMP(1, 9) CMP(2, 10) CMP(3, 11) CMP(4, 12) CMP(5, 13) CMP(6, 14)
        CMP(7, 15) CMP(4, 8) CMP(5, 9) CMP(6, 10) CMP(7, 11) CMP(20, 24) CMP(2, 4)
        CMP(3, 5) CMP(6, 8) CMP(7, 9) CMP(10, 12) CMP(11, 13) CMP(22, 24) CMP(1, 2)
        CMP(3, 4) CMP(5, 6) CMP(7, 8) CMP(9, 10) CMP(11, 12) CMP(13, 14) CMP(21, 22)
        CMP(23, 24) CMP(0, 16) CMP(1, 17) CMP(2, 18) CMP(3, 19) CMP(4, 20) CMP(5, 21)
        CMP(6, 22) CMP(7, 23) CMP(8, 24) CMP(8, 16) CMP(9, 17) CMP(10, 18) CMP(11, 19)
        CMP(12, 20) CMP(13, 21) CMP(6, 10) CMP(7, 11) CMP(12, 16) CMP(13, 17)
        CMP(10, 12) CMP(11, 13) CMP(11, 12)
#undef CMP
        d[i] = v[12];
    }
}

/* A chunk's outputs: straight into the row when they fill whole vectors,
 * else through `spare` (the sorted columns past the chunk were zeroed). */
#define NET_OUTPUT(COMBINE_CALL, d, n, spare)                                       \
    do {                                                                           \
        const size_t whole_ = ((n) + NET_VECTOR - 1) & ~(size_t)(NET_VECTOR - 1);  \
        if (whole_ == (n)) {                                                       \
            SAMPLE *out_ = (d);                                                    \
            COMBINE_CALL;                                                          \
        } else {                                                                   \
            SAMPLE *out_ = (spare);                                                \
            COMBINE_CALL;                                                          \
            memcpy((d), (spare), (n) * sizeof(SAMPLE));                            \
        }                                                                          \
    } while (0)

/* The median of the 3x3 window of output sample i (pixel i / ch, channel
 * i % ch) where the window leaves the row: its columns as the border names
 * them (zero: 0).  Rows of one or two pixels only. */
static SAMPLE EDGE3(const net_job *job, const SAMPLE *const rows[3], size_t i)
{
    const size_t ch = (size_t)job->src->channels;
    const int x = (int)(i / ch), c = (int)(i % ch), w = job->src->width;
    SAMPLE v[9], t;
    int dx, r, a, b;
    for (r = 0; r < 3; r++)
        for (dx = -1; dx <= 1; dx++) {
            const int m = jf_border_index(x + dx, w, job->border);
            v[r * 3 + dx + 1] = m < 0 ? 0 : rows[r][(size_t)m * ch + (size_t)c];
        }
    for (a = 1; a < 9; a++) /* insertion sort: nine values */
        for (b = a; b > 0 && v[b - 1] > v[b]; b--) {
            t = v[b];
            v[b] = v[b - 1];
            v[b - 1] = t;
        }
    return v[4];
}

/* The median of samples 0, ch, 2ch of three rows. */
NET_INLINE SAMPLE MED9(const SAMPLE *r0, const SAMPLE *r1, const SAMPLE *r2, size_t ch)
{
    SAMPLE lo[3], mid[3], hi[3];
    size_t o;
    for (o = 0; o < 3; o++) {
        const SAMPLE p = r0[o * ch], q = r1[o * ch], c = r2[o * ch];
        const SAMPLE t0 = MIN_(p, q), t1 = MAX_(p, q);
        lo[o] = MIN_(t0, c);
        hi[o] = MAX_(t1, c);
        mid[o] = MAX_(t0, MIN_(t1, c));
    }
    return MED3(MAX_(MAX_(lo[0], lo[1]), lo[2]), MED3(mid[0], mid[1], mid[2]),
                MIN_(MIN_(hi[0], hi[1]), hi[2]));
}

/* The inside of one output row (restrict: the vectoriser needs to know
 * the output is not the rows). */
NET_INLINE void ROW3_INSIDE(const SAMPLE *restrict r0, const SAMPLE *restrict r1,
                            const SAMPLE *restrict r2, SAMPLE *restrict d, size_t ch, size_t out_n)
{
    size_t i;
    for (i = ch; i < out_n - ch; i++) /* the sorted columns i - ch, i, i + ch */
        d[i] = MED9(r0 + i - ch, r1 + i - ch, r2 + i - ch, ch);
}

/* The first and last pixel of an output row from source rows a, b, c:
 * their border pixels beside them (rows of three pixels or more). */
static void ROW3_EDGES(const net_job *job, const SAMPLE *a, const SAMPLE *b, const SAMPLE *c,
                       SAMPLE *d, size_t out_n)
{
    const size_t ch = (size_t)job->src->channels, px = ch * sizeof(SAMPLE);
    const SAMPLE *rows[3];
    SAMPLE left[3][12], right[3][12]; /* 3 pixels of at most 4 channels */
    size_t i;
    int r;
    rows[0] = a;
    rows[1] = b;
    rows[2] = c;
    for (r = 0; r < 3; r++) {
        jf_pad_row_border((const unsigned char *)(const void *)rows[r], job->src->width, px, 1,
                          job->border, (unsigned char *)(void *)left[r],
                          (unsigned char *)(void *)(right[r] + 2 * ch));
        memcpy(left[r] + ch, rows[r], 2 * px);
        memcpy(right[r], rows[r] + out_n - 2 * ch, 2 * px);
    }
    for (i = 0; i < ch; i++) {
        d[i] = MED9(left[0] + i, left[1] + i, left[2] + i, ch);
        d[out_n - ch + i] = MED9(right[0] + i, right[1] + i, right[2] + i, ch);
    }
}

/* k = 3: each output from its nine samples read in place, the three
 * columns sorted and combined in registers (no sorted columns stored: the
 * stores and reloads cost more than sorting each column three times). */
JF_WIDE_SIMD static void ROWS3(void *arg, int y0, int y1, int worker)
{
    const net_job *job = (const net_job *)arg;
    const size_t ch = (size_t)job->src->channels;
    const size_t out_n = (size_t)job->dst->width * ch;
    size_t i;
    int y;

    (void)worker;
    for (y = y0; y < y1; y++) {
        const SAMPLE *rows[3], *r0, *r1, *r2;
        SAMPLE *d = (SAMPLE *)(void *)(job->dst->data + (size_t)y * job->dst->stride);
        rows[0] = r0 = (const SAMPLE *)(const void *)source_row(job, y);
        rows[1] = r1 = (const SAMPLE *)(const void *)source_row(job, y + 1);
        rows[2] = r2 = (const SAMPLE *)(const void *)source_row(job, y + 2);
        if (out_n <= 2 * ch) { /* one or two pixels: every window leaves the row */
            for (i = 0; i < out_n; i++)
                d[i] = EDGE3(job, rows, i);
            continue;
        }
        ROW3_EDGES(job, r0, r1, r2, d, out_n);
        ROW3_INSIDE(r0, r1, r2, d, ch, out_n);
    }
}

JF_WIDEST_INT_SIMD static void ROWS5(void *arg, int y0, int y1, int worker)
{
    const net_job *job = (const net_job *)arg;
    const size_t ch = (size_t)job->src->channels;
    const size_t out_n = (size_t)job->dst->width * ch, chunk = CHUNK - CHUNK % (ch * NET_VECTOR);
    SAMPLE col[5][CHUNK + NET_SLACK]; /* col[r][i]: the r-th smallest of column i */
    SAMPLE spare[CHUNK];
    size_t at, i, n, i0, i1, whole;
    int y, r;

    (void)worker;
    for (y = y0; y < y1; y++) {
        const SAMPLE *row[5];
        SAMPLE *d = (SAMPLE *)(void *)(job->dst->data + (size_t)y * job->dst->stride);
        for (r = 0; r < 5; r++)
            row[r] = (const SAMPLE *)(const void *)source_row(job, y + r);
        for (at = 0; at < out_n; at += chunk) {
            n = out_n - at < chunk ? out_n - at : chunk;
            whole = (n + NET_VECTOR - 1) & ~(size_t)(NET_VECTOR - 1);
            direct_range(at, n, 2 * ch, out_n, &i0, &i1);
            {
                const size_t s0 = at + i0 - 2 * ch, m = i1 - i0;
                const SAMPLE *restrict a0 = row[0] + s0, *restrict a1 = row[1] + s0,
                             *restrict a2 = row[2] + s0, *restrict a3 = row[3] + s0,
                             *restrict a4 = row[4] + s0;
                SAMPLE *restrict c0 = col[0] + i0, *restrict c1 = col[1] + i0,
                       *restrict c2 = col[2] + i0, *restrict c3 = col[3] + i0,
                       *restrict c4 = col[4] + i0;
                for (i = 0; i < m; i++) { /* sort each vertical 5-tuple */
                    SAMPLE a = a0[i], b = a1[i], c = a2[i], e = a3[i], f = a4[i];
                    SORT2(a, b); SORT2(e, f); SORT2(c, f); SORT2(c, e); SORT2(a, e);
                    SORT2(a, c); SORT2(b, f); SORT2(b, e); SORT2(b, c);
                    c0[i] = a; c1[i] = b; c2[i] = c; c3[i] = e; c4[i] = f;
                }
            }
            border_columns(job, col, sizeof col[0], 5, sizeof(SAMPLE), (ptrdiff_t)(at - 2 * ch), i0,
                           i1, n + 4 * ch);
            for (r = 0; whole > n && r < 5; r++)
                memset(col[r] + n + 4 * ch, 0, (whole - n) * sizeof(SAMPLE));
            NET_OUTPUT(COMBINE5(col, ch, whole, out_), d + at, n, spare);
        }
    }
}

/* The names are the includer's to define again for the next type. */
#undef SAMPLE
#undef MED3
#undef EDGE3
#undef MED9
#undef ROW3_EDGES
#undef ROW3_INSIDE
#undef COMBINE5
#undef ROWS3
#undef ROWS5
#undef NET_OUTPUT
