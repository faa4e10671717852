/*
 * Median filter, CPU reference.
 *
 * k = 3: the 9-element median by columns.  Each vertical triple is sorted
 * once (lo <= mid <= hi); the median of the 3x3 window is then
 * med3(max of the three lo, med3 of the three mid, min of the three hi).
 * Everything is byte min/max over whole rows, which the compiler vectorises.
 *
 * k = 5: the same idea one size up.  Each vertical 5-tuple is sorted once
 * (9 comparators) and shared by the five windows it belongs to; a window's
 * median then comes from its five sorted columns through a fixed network
 * of 85 comparators (scripts/median_network.py derives it from Batcher's
 * sort, drops what sorted columns make useless and what cannot reach the
 * median, and checks it on every 0-1 input).  Byte min/max again, over
 * whole rows: 16 or 32 pixels per instruction.
 *
 * k = 7 to JF_MEDIAN_CTM_MIN_K - 2: Huang's sliding histogram.  Moving one
 * pixel right removes one column of k values and adds another, so the cost
 * per pixel is 2k histogram updates plus a short walk of the median marker:
 * linear in k, where sorting the window grows with k^2 log k.
 *
 * k >= JF_MEDIAN_CTM_MIN_K: constant time per pixel (Perreault and Hebert's
 * idea, written here from the paper's description).  Every column keeps a
 * histogram of its k samples, moved down one row by one removal and one
 * addition; the window's histogram moves right by adding one column's
 * histogram and subtracting another's.  Histograms are two-level: 16 coarse
 * bins (the high nibble) kept current at every step, and 16 x 16 fine bins
 * of which only the segment the median falls in is brought up to date, and
 * only when the search reaches it (in photos the median's coarse bin rarely
 * changes from one pixel to the next).  Counts are 16-bit: k^2 <= 65025.
 *
 * Each thread owns a band of rows; each channel of an interleaved image has
 * its own histograms.
 */
#include "filters/median/median.h"
#include "filters/filters.h"
#include "core/context.h"
#include "core/image.h"

#include <stdint.h>
#include <string.h>

typedef struct median_job {
    const jf_image *src; /* padded for k >= 7; for k = 3 and 5 the image itself */
    jf_image *dst;
    int ksize;
    jf_border border;    /* k = 3, 5: each band pads its own rows */
    void *scratch;       /* per band: column histograms (k >= 15), or k padded rows (3, 5) */
    size_t row_bytes;    /* k = 3, 5: one padded row in the scratch */
} median_job;

/* k = 3 and 5 pad as they go: each band keeps its last k padded rows in a
 * ring (a few KB, in cache) instead of reading a padded copy of the whole
 * image, which cost as much as the median itself at k = 3 (4K RGB: pad
 * 3.6 ms, median 4.7 ms).  Padded row py lands in slot py % k. */
static void pad_row(const median_job *job, int py, unsigned char *out)
{
    const jf_image *s = job->src;
    const int r = job->ksize / 2, ch = s->channels, w = s->width;
    const int sy = jf_border_index(py - r, s->height, job->border);
    const unsigned char *row;
    int x;
    if (sy < 0) {
        memset(out, 0, (size_t)(w + 2 * r) * ch);
        return;
    }
    row = s->data + (size_t)sy * s->stride;
    memcpy(out + (size_t)r * ch, row, (size_t)w * ch);
    for (x = 1; x <= r; x++) {
        const int left = jf_border_index(-x, w, job->border);
        const int right = jf_border_index(w - 1 + x, w, job->border);
        if (left < 0)
            memset(out + (size_t)(r - x) * ch, 0, (size_t)ch);
        else
            memcpy(out + (size_t)(r - x) * ch, row + (size_t)left * ch, (size_t)ch);
        if (right < 0)
            memset(out + (size_t)(r + w - 1 + x) * ch, 0, (size_t)ch);
        else
            memcpy(out + (size_t)(r + w - 1 + x) * ch, row + (size_t)right * ch, (size_t)ch);
    }
}

/* The k padded rows output row y reads, filling what the ring lacks. */
static void ring_rows(const median_job *job, int worker, int y, int y0,
                      const unsigned char **rows)
{
    const int k = job->ksize;
    unsigned char *ring = (unsigned char *)job->scratch + (size_t)worker * k * job->row_bytes;
    int j;
    for (j = y == y0 ? 0 : k - 1; j < k; j++)
        pad_row(job, y + j, ring + (size_t)((y + j) % k) * job->row_bytes);
    for (j = 0; j < k; j++)
        rows[j] = ring + (size_t)((y + j) % k) * job->row_bytes;
}

/* From this k on, the constant-time median is faster than Huang's on the
 * 2-core VM (benchmarks/RESULTS.md, "Large k on the CPU": Huang wins at 9
 * and 11, they tie near 15); -DJF_MEDIAN_CTM_MIN_K=N at build time moves it
 * for a measurement. */
#ifndef JF_MEDIAN_CTM_MIN_K
#define JF_MEDIAN_CTM_MIN_K 15
#endif

/* On x86-64 the byte min/max loops below are also compiled for AVX2 (32
 * bytes per instruction instead of SSE2's 16) and the loader picks the copy
 * the CPU runs; elsewhere (NEON on the Nano) there is one version. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 6
#define JF_WIDE_SIMD __attribute__((target_clones("avx2", "default")))
#else
#define JF_WIDE_SIMD
#endif

#define MIN8(a, b) ((a) < (b) ? (a) : (b))
#define MAX8(a, b) ((a) > (b) ? (a) : (b))

static inline unsigned char med3(unsigned char a, unsigned char b, unsigned char c)
{
    return MAX8(MIN8(a, b), MIN8(MAX8(a, b), c));
}

/* Rows are processed in chunks so the sorted triples fit in a stack buffer. */
#define CHUNK 2048

JF_WIDE_SIMD static void median3_rows(void *arg, int y0, int y1, int worker)
{
    median_job *job = (median_job *)arg;
    const int ch = job->src->channels;
    const size_t out_n = (size_t)job->dst->width * (size_t)ch;
    unsigned char lo[CHUNK + 8], mid[CHUNK + 8], hi[CHUNK + 8];
    size_t at, i, n;
    int y;

    for (y = y0; y < y1; y++) {
        const unsigned char *rows[3], *r0, *r1, *r2;
        unsigned char *d = job->dst->data + (size_t)y * job->dst->stride;
        ring_rows(job, worker, y, y0, rows);
        r0 = rows[0], r1 = rows[1], r2 = rows[2];
        for (at = 0; at < out_n; at += CHUNK) {
            n = out_n - at < CHUNK ? out_n - at : CHUNK;
            for (i = 0; i < n + 2 * (size_t)ch; i++) { /* sort each vertical triple */
                unsigned char a = r0[at + i], b = r1[at + i], c = r2[at + i];
                unsigned char t0 = MIN8(a, b), t1 = MAX8(a, b);
                lo[i] = MIN8(t0, c);
                hi[i] = MAX8(t1, c);
                mid[i] = MAX8(t0, MIN8(t1, c));
            }
            for (i = 0; i < n; i++) {
                unsigned char l = MAX8(MAX8(lo[i], lo[i + ch]), lo[i + 2 * ch]);
                unsigned char h = MIN8(MIN8(hi[i], hi[i + ch]), hi[i + 2 * ch]);
                unsigned char m = med3(mid[i], mid[i + ch], mid[i + 2 * ch]);
                d[at + i] = med3(l, m, h);
            }
        }
    }
}

#define SORT2(a, b)                                                           \
    do {                                                                      \
        unsigned char lo_ = MIN8(a, b), hi_ = MAX8(a, b);                     \
        a = lo_;                                                              \
        b = hi_;                                                              \
    } while (0)

JF_WIDE_SIMD static void median5_rows(void *arg, int y0, int y1, int worker)
{
    median_job *job = (median_job *)arg;
    const int ch = job->src->channels;
    const size_t out_n = (size_t)job->dst->width * (size_t)ch;
    unsigned char col[5][CHUNK + 16]; /* col[r][i]: the r-th smallest of column i */
    size_t at, i, n;
    int y, r;

    for (y = y0; y < y1; y++) {
        const unsigned char *row[5];
        unsigned char *d = job->dst->data + (size_t)y * job->dst->stride;
        ring_rows(job, worker, y, y0, row);
        for (at = 0; at < out_n; at += CHUNK) {
            n = out_n - at < CHUNK ? out_n - at : CHUNK;
            for (i = 0; i < n + 4 * (size_t)ch; i++) { /* sort each vertical 5-tuple */
                unsigned char a = row[0][at + i], b = row[1][at + i], c = row[2][at + i],
                              e = row[3][at + i], f = row[4][at + i];
                SORT2(a, b); SORT2(e, f); SORT2(c, f); SORT2(c, e); SORT2(a, e);
                SORT2(a, c); SORT2(b, f); SORT2(b, e); SORT2(b, c);
                col[0][i] = a; col[1][i] = b; col[2][i] = c; col[3][i] = e; col[4][i] = f;
            }
            for (i = 0; i < n; i++) {
                unsigned char v[25];
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

static void median_histogram_rows(void *arg, int y0, int y1, int worker)
{
    median_job *job = (median_job *)arg;
    const jf_image *s = job->src;
    const int k = job->ksize, ch = s->channels, w = job->dst->width;
    const int rank = (k * k) / 2; /* 0-based rank of the median */
    int hist[4][256];
    int m[4], lt[4];
    int y, x, c, j;
    (void)worker;

    for (y = y0; y < y1; y++) {
        const unsigned char *top = s->data + (size_t)y * s->stride;
        unsigned char *d = job->dst->data + (size_t)y * job->dst->stride;
        memset(hist, 0, sizeof hist);
        for (j = 0; j < k; j++) {
            const unsigned char *row = top + (size_t)j * s->stride;
            for (x = 0; x < k; x++)
                for (c = 0; c < ch; c++)
                    hist[c][row[x * ch + c]]++;
        }
        for (c = 0; c < ch; c++) {
            m[c] = 0;
            lt[c] = 0;
            while (lt[c] + hist[c][m[c]] <= rank)
                lt[c] += hist[c][m[c]++];
            d[c] = (unsigned char)m[c];
        }
        for (x = 1; x < w; x++) {
            /* slide: drop column x-1, add column x+k-1 */
            const unsigned char *out_col = top + (size_t)(x - 1) * ch;
            const unsigned char *in_col = top + (size_t)(x + k - 1) * ch;
            for (c = 0; c < ch; c++) {
                int *h = hist[c], mc = m[c], l = lt[c];
                for (j = 0; j < k; j++) {
                    int vo = out_col[(size_t)j * s->stride + c];
                    int vi = in_col[(size_t)j * s->stride + c];
                    h[vo]--;
                    h[vi]++;
                    l += (vi < mc) - (vo < mc);
                }
                while (l > rank)
                    l -= h[--mc];
                while (l + h[mc] <= rank)
                    l += h[mc++];
                m[c] = mc;
                lt[c] = l;
                d[(size_t)x * ch + c] = (unsigned char)mc;
            }
        }
    }
}

/* A column's (or the window's) two-level histogram. */
typedef struct ctm_hist {
    uint16_t coarse[16];
    uint16_t fine[16][16];
} ctm_hist;

static inline void ctm_count(ctm_hist *h, unsigned v, int delta)
{
    h->coarse[v >> 4] = (uint16_t)(h->coarse[v >> 4] + delta);
    h->fine[v >> 4][v & 15] = (uint16_t)(h->fine[v >> 4][v & 15] + delta);
}

/* One padded row into (delta 1) or out of (-1) every column histogram. */
static void ctm_row(ctm_hist *cols, int n, const unsigned char *row, int ch, int delta)
{
    int x;
    for (x = 0; x < n; x++)
        ctm_count(&cols[x], row[(size_t)x * ch], delta);
}

static inline void ctm_add16(uint16_t *acc, const uint16_t *plus, const uint16_t *minus)
{
    int i;
    for (i = 0; i < 16; i++)
        acc[i] = (uint16_t)(acc[i] + plus[i] - minus[i]);
}

static void median_ctm_channel(const median_job *job, ctm_hist *cols, int y0, int y1, int c)
{
    const jf_image *s = job->src;
    const int k = job->ksize, ch = s->channels, w = job->dst->width, n = w + k - 1;
    const int rank = (k * k) / 2;
    uint16_t coarse[16], fine[16][16];
    int fresh[16]; /* the x each fine segment is current for; -1: never */
    int y, x, j, b, f;

    memset(cols, 0, sizeof *cols * (size_t)n);
    for (j = 0; j < k - 1; j++)
        ctm_row(cols, n, s->data + (size_t)(y0 + j) * s->stride + c, ch, 1);
    for (y = y0; y < y1; y++) {
        unsigned char *d = job->dst->data + (size_t)y * job->dst->stride + c;
        ctm_row(cols, n, s->data + (size_t)(y + k - 1) * s->stride + c, ch, 1);
        memset(coarse, 0, sizeof coarse);
        for (x = 0; x < k; x++)
            for (b = 0; b < 16; b++)
                coarse[b] = (uint16_t)(coarse[b] + cols[x].coarse[b]);
        for (b = 0; b < 16; b++)
            fresh[b] = -1;
        for (x = 0; x < w; x++) {
            int below = 0;
            if (x > 0)
                ctm_add16(coarse, cols[x + k - 1].coarse, cols[x - 1].coarse);
            for (b = 0; below + coarse[b] <= rank; b++)
                below += coarse[b];
            if (fresh[b] < 0 || x - fresh[b] >= k) { /* rebuild from the k columns */
                memset(fine[b], 0, sizeof fine[b]);
                for (j = x; j < x + k; j++)
                    for (f = 0; f < 16; f++)
                        fine[b][f] = (uint16_t)(fine[b][f] + cols[j].fine[b][f]);
            } else { /* catch up from where it was last used */
                for (j = fresh[b] + 1; j <= x; j++)
                    ctm_add16(fine[b], cols[j + k - 1].fine[b], cols[j - 1].fine[b]);
            }
            fresh[b] = x;
            for (f = 0; below + fine[b][f] <= rank; f++)
                below += fine[b][f];
            d[(size_t)x * ch] = (unsigned char)(b * 16 + f);
        }
        ctm_row(cols, n, s->data + (size_t)y * s->stride + c, ch, -1);
    }
}

static void median_ctm_rows(void *arg, int y0, int y1, int worker)
{
    median_job *job = (median_job *)arg;
    ctm_hist *cols = (ctm_hist *)job->scratch + (size_t)worker * (size_t)(job->dst->width + job->ksize - 1);
    int c;
    for (c = 0; c < job->src->channels; c++)
        median_ctm_channel(job, cols, y0, y1, c);
}

static median_job make_job(const jf_image *src, jf_image *dst, int ksize)
{
    median_job job;
    memset(&job, 0, sizeof job);
    job.src = src;
    job.dst = dst;
    job.ksize = ksize;
    return job;
}

jf_status jf_median_cpu_small(jf_context *ctx, const jf_image *src, int ksize, jf_border border,
                              jf_image *dst)
{
    median_job job = make_job(src, dst, ksize);
    job.border = border;
    job.row_bytes = ((size_t)(src->width + ksize - 1) * (size_t)src->channels + 63) & ~(size_t)63;
    if (!(job.scratch = jf_scratch_get(ctx, JF_SCRATCH_BANDS, job.row_bytes * (size_t)ksize *
                                       (size_t)jf_parallel_bands(ctx, dst->height))))
        return JF_ERR_NOMEM;
    jf_parallel_for(ctx, dst->height, ksize == 3 ? median3_rows : median5_rows, &job);
    return JF_OK;
}

jf_status jf_median_cpu(jf_context *ctx, const jf_image *padded, int ksize, jf_image *dst)
{
    median_job job = make_job(padded, dst, ksize);
    if (ksize == 1)
        return jf_image_copy(padded, dst);
    if (ksize >= JF_MEDIAN_CTM_MIN_K) {
        const size_t per_band = sizeof(ctm_hist) * (size_t)(dst->width + ksize - 1);
        if (!(job.scratch = jf_scratch_get(ctx, JF_SCRATCH_BANDS,
                                           per_band * (size_t)jf_parallel_bands(ctx, dst->height))))
            return JF_ERR_NOMEM;
    }
    jf_parallel_for(ctx, dst->height,
                    ksize < JF_MEDIAN_CTM_MIN_K ? median_histogram_rows : median_ctm_rows, &job);
    return JF_OK;
}
