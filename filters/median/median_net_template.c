/*
 * The k = 3 and 5 row loops of median_cpu_net.c, written once for both
 * sample types: included there with SAMPLE (the sample type) and the names
 * MED3, ROWS3, ROWS5 defined.  Not compiled on its own.
 */

static inline SAMPLE MED3(SAMPLE a, SAMPLE b, SAMPLE c)
{
    return MAX_(MIN_(a, b), MIN_(MAX_(a, b), c));
}

JF_WIDE_SIMD static void ROWS3(void *arg, int y0, int y1, int worker)
{
    const net_job *job = (const net_job *)arg;
    const int ch = job->src->channels;
    const size_t out_n = (size_t)job->dst->width * (size_t)ch;
    SAMPLE lo[CHUNK + 8], mid[CHUNK + 8], hi[CHUNK + 8];
    size_t at, i, n;
    int y;

    for (y = y0; y < y1; y++) {
        const unsigned char *rows[3];
        const SAMPLE *r0, *r1, *r2;
        SAMPLE *d = (SAMPLE *)(void *)(job->dst->data + (size_t)y * job->dst->stride);
        ring_rows(job, worker, y, y0, rows);
        r0 = (const SAMPLE *)(const void *)rows[0];
        r1 = (const SAMPLE *)(const void *)rows[1];
        r2 = (const SAMPLE *)(const void *)rows[2];
        for (at = 0; at < out_n; at += CHUNK) {
            n = out_n - at < CHUNK ? out_n - at : CHUNK;
            for (i = 0; i < n + 2 * (size_t)ch; i++) { /* sort each vertical triple */
                const SAMPLE a = r0[at + i], b = r1[at + i], c = r2[at + i];
                const SAMPLE t0 = MIN_(a, b), t1 = MAX_(a, b);
                lo[i] = MIN_(t0, c);
                hi[i] = MAX_(t1, c);
                mid[i] = MAX_(t0, MIN_(t1, c));
            }
            for (i = 0; i < n; i++) {
                const SAMPLE l = MAX_(MAX_(lo[i], lo[i + ch]), lo[i + 2 * ch]);
                const SAMPLE h = MIN_(MIN_(hi[i], hi[i + ch]), hi[i + 2 * ch]);
                const SAMPLE m = MED3(mid[i], mid[i + ch], mid[i + 2 * ch]);
                d[at + i] = MED3(l, m, h);
            }
        }
    }
}

JF_WIDE_SIMD static void ROWS5(void *arg, int y0, int y1, int worker)
{
    const net_job *job = (const net_job *)arg;
    const int ch = job->src->channels;
    const size_t out_n = (size_t)job->dst->width * (size_t)ch;
    SAMPLE col[5][CHUNK + 16]; /* col[r][i]: the r-th smallest of column i */
    size_t at, i, n;
    int y, r;

    for (y = y0; y < y1; y++) {
        const unsigned char *rows[5];
        const SAMPLE *row[5];
        SAMPLE *d = (SAMPLE *)(void *)(job->dst->data + (size_t)y * job->dst->stride);
        ring_rows(job, worker, y, y0, rows);
        for (r = 0; r < 5; r++)
            row[r] = (const SAMPLE *)(const void *)rows[r];
        for (at = 0; at < out_n; at += CHUNK) {
            n = out_n - at < CHUNK ? out_n - at : CHUNK;
            for (i = 0; i < n + 4 * (size_t)ch; i++) { /* sort each vertical 5-tuple */
                SAMPLE a = row[0][at + i], b = row[1][at + i], c = row[2][at + i],
                       e = row[3][at + i], f = row[4][at + i];
                SORT2(a, b); SORT2(e, f); SORT2(c, f); SORT2(c, e); SORT2(a, e);
                SORT2(a, c); SORT2(b, f); SORT2(b, e); SORT2(b, c);
                col[0][i] = a; col[1][i] = b; col[2][i] = c; col[3][i] = e; col[4][i] = f;
            }
            for (i = 0; i < n; i++) {
                SAMPLE v[25];
#define CMP(p, q) SORT2(v[p], v[q]);
                for (r = 0; r < 5; r++) {
                    v[r] = col[r][i];
                    v[5 + r] = col[r][i + (size_t)ch];
                    v[10 + r] = col[r][i + 2 * (size_t)ch];
                    v[15 + r] = col[r][i + 3 * (size_t)ch];
                    v[20 + r] = col[r][i + 4 * (size_t)ch];
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
                d[at + i] = v[12];
            }
        }
    }
}
