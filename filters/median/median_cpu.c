/*
 * Median filter, CPU reference.
 *
 * k = 3 to 9: min/max networks over rows (median_cpu_net.c).
 *
 * k >= 11: constant time per pixel (Perreault and Hebert's idea, written
 * here from the paper's description).  Every column keeps a histogram of
 * its k samples, moved down one row by one removal and one addition; the
 * window's histogram moves right by adding one column's histogram and
 * subtracting another's.  Histograms are two-level: 16 coarse bins (the
 * high nibble) kept current at every step, and 16 x 16 fine bins of which
 * only the segment the median falls in is brought up to date, and only
 * when it is reached (in photos the median's coarse bin rarely changes from
 * one pixel to the next).  Counts are 16-bit: k^2 <= 65025.  With the
 * histograms cumulative and counted in vectors (below) it overtook Huang's
 * sliding histogram, which it replaced, from k = 7 (docs/kernels/studies.md,
 * "Large k on the CPU").
 *
 * Each thread owns a band of rows, made strip by strip of columns (whose
 * column histograms stay in the cache); each channel of an interleaved image
 * has its own histograms.
 */
#include "filters/median/median.h"
#include "filters/filters.h"
#include "core/context.h"
#include "core/image.h"

#include <stdint.h>
#include <string.h>

typedef struct median_job {
    const jf_image *src; /* padded by k/2 */
    jf_image *dst;
    int ksize;
    int strip;           /* output columns a strip makes (JF_MEDIAN_CTM_STRIP, or the width) */
    void *scratch;       /* per band: column histograms of a strip */
} median_job;

/* A column's (or the window's) two-level histogram, kept cumulative: each
 * bin holds the samples below it, so the median's bin is the number of
 * bins whose count is at most its rank, less one (a count over 16 lanes,
 * no search and no branch), and the samples below it are that bin's
 * count.  A sample in or out adds or takes 1 from the bins above its own
 * (16 lanes, where a plain histogram changed one). */
typedef struct ctm_hist {
    uint16_t coarse[16];    /* samples whose high nibble is below each bin's */
    uint16_t fine[16][16];  /* per high nibble: samples whose low nibble is below each */
} ctm_hist;

/* g_above[i][l]: 1 where bin l is above bin i. */
static const uint16_t g_above[16][16] = {
#define ABOVE(i) {0 > (i), 1 > (i), 2 > (i), 3 > (i), 4 > (i), 5 > (i), 6 > (i), 7 > (i), \
                  8 > (i), 9 > (i), 10 > (i), 11 > (i), 12 > (i), 13 > (i), 14 > (i), 15 > (i)}
    ABOVE(0), ABOVE(1), ABOVE(2), ABOVE(3), ABOVE(4), ABOVE(5), ABOVE(6), ABOVE(7),
    ABOVE(8), ABOVE(9), ABOVE(10), ABOVE(11), ABOVE(12), ABOVE(13), ABOVE(14), ABOVE(15)
#undef ABOVE
};

/* 16 bins as one vector of 16 (GCC's and clang's vector extensions: one
 * AVX2 register in the AVX2 copy of the loops, two SSE2 or NEON registers
 * elsewhere); the compilers left these loops scalar. */
typedef uint16_t u16x16 __attribute__((vector_size(32)));
typedef int16_t i16x16 __attribute__((vector_size(32)));

/* (No vector-typed parameters or results: their ABI differs between the
 * two copies.) */
#define LD16(v, p) memcpy(&(v), (p), sizeof(v))
#define ST16(p, v) memcpy((p), &(v), sizeof(v))

static inline void ctm_add(uint16_t *acc, const uint16_t *plus)
{
    u16x16 a, b;
    LD16(a, acc);
    LD16(b, plus);
    a += b;
    ST16(acc, a);
}

static inline void ctm_sub(uint16_t *acc, const uint16_t *minus)
{
    u16x16 a, b;
    LD16(a, acc);
    LD16(b, minus);
    a -= b;
    ST16(acc, a);
}

/* One padded row into (add) or out of every column histogram. */
static inline void ctm_row(ctm_hist *cols, int n, const unsigned char *row, int ch, int add)
{
    int x;
    for (x = 0; x < n; x++) {
        const unsigned v = row[(size_t)x * ch];
        if (add) {
            ctm_add(cols[x].coarse, g_above[v >> 4]);
            ctm_add(cols[x].fine[v >> 4], g_above[v & 15]);
        } else {
            ctm_sub(cols[x].coarse, g_above[v >> 4]);
            ctm_sub(cols[x].fine[v >> 4], g_above[v & 15]);
        }
    }
}

static inline void ctm_add16(uint16_t *acc, const uint16_t *plus, const uint16_t *minus)
{
    u16x16 a, b, c;
    LD16(a, acc);
    LD16(b, plus);
    LD16(c, minus);
    a += b - c;
    ST16(acc, a);
}

/* The bins whose cumulative count is at most r (bin 0's, 0, always is). */
static inline int ctm_at_most(const uint16_t *cum, unsigned r)
{
    const u16x16 rv = {(uint16_t)r, (uint16_t)r, (uint16_t)r, (uint16_t)r, (uint16_t)r, (uint16_t)r,
                       (uint16_t)r, (uint16_t)r, (uint16_t)r, (uint16_t)r, (uint16_t)r, (uint16_t)r,
                       (uint16_t)r, (uint16_t)r, (uint16_t)r, (uint16_t)r};
    /* each lane -1 where a bin is at most r, so 1 once negated; the lanes
     * summed as four 64-bit words, each of four lanes, and a multiply that
     * adds a word's lanes into its top one */
    u16x16 c;
    i16x16 m;
    uint64_t w[4];
    LD16(c, cum);
    m = -(i16x16)(c <= rv);
    memcpy(w, &m, sizeof w);
    return (int)(((w[0] + w[1] + w[2] + w[3]) * 0x0001000100010001ull) >> 48);
}

/* Output columns a strip makes: its column histograms (544 bytes each, k - 1
 * more than the strip) then stay in a core's L2 cache from row to row, where
 * a whole 4K row's would not; -DJF_MEDIAN_CTM_STRIP=N moves it for a
 * measurement. */
#ifndef JF_MEDIAN_CTM_STRIP
#define JF_MEDIAN_CTM_STRIP 384
#endif

/* Output columns [x0, x1) of rows [y0, y1) for channel c. */
JF_WIDE_SIMD static void median_ctm_strip(const median_job *job, ctm_hist *cols, int y0, int y1,
                                          int c, int x0, int x1)
{
    const jf_image *s = job->src;
    const int k = job->ksize, ch = s->channels, w = x1 - x0, n = w + k - 1;
    const int rank = (k * k) / 2;
    const unsigned char *src = s->data + (size_t)x0 * ch + c;
    _Alignas(32) uint16_t coarse[16];
    _Alignas(32) uint16_t fine[16][16];
    int fresh[16]; /* the x each fine segment is current for; -1: never */
    int y, x, j, b, f;

    memset(cols, 0, sizeof *cols * (size_t)n);
    for (j = 0; j < k - 1; j++)
        ctm_row(cols, n, src + (size_t)(y0 + j) * s->stride, ch, 1);
    for (y = y0; y < y1; y++) {
        unsigned char *d = job->dst->data + (size_t)y * job->dst->stride + (size_t)x0 * ch + c;
        ctm_row(cols, n, src + (size_t)(y + k - 1) * s->stride, ch, 1);
        memset(coarse, 0, sizeof coarse);
        for (x = 0; x < k; x++)
            ctm_add(coarse, cols[x].coarse);
        for (b = 0; b < 16; b++)
            fresh[b] = -1;
        for (x = 0; x < w; x++) {
            int below;
            if (x > 0)
                ctm_add16(coarse, cols[x + k - 1].coarse, cols[x - 1].coarse);
            b = ctm_at_most(coarse, (unsigned)rank) - 1;
            below = coarse[b];
            if (x > 0 && fresh[b] == x - 1) { /* usually: current one pixel ago */
                ctm_add16(fine[b], cols[x + k - 1].fine[b], cols[x - 1].fine[b]);
            } else if (fresh[b] < 0 || x - fresh[b] >= k) { /* rebuild from the k columns */
                memset(fine[b], 0, sizeof fine[b]);
                for (j = x; j < x + k; j++)
                    ctm_add(fine[b], cols[j].fine[b]);
            } else { /* catch up from where it was last used */
                for (j = fresh[b] + 1; j <= x; j++)
                    ctm_add16(fine[b], cols[j + k - 1].fine[b], cols[j - 1].fine[b]);
            }
            fresh[b] = x;
            f = ctm_at_most(fine[b], (unsigned)(rank - below)) - 1;
            d[(size_t)x * ch] = (unsigned char)(b * 16 + f);
        }
        ctm_row(cols, n, src + (size_t)y * s->stride, ch, 0);
    }
}

static void median_ctm_rows(void *arg, int y0, int y1, int worker)
{
    median_job *job = (median_job *)arg;
    const int w = job->dst->width, strip = job->strip;
    /* the scratch starts a cache line and a histogram is 544 bytes: each
     * 32-byte vector of bins lies in one line */
    ctm_hist *cols = (ctm_hist *)job->scratch + (size_t)worker * (size_t)(strip + job->ksize - 1);
    int c, x0;
    for (c = 0; c < job->src->channels; c++)
        for (x0 = 0; x0 < w; x0 += strip)
            median_ctm_strip(job, cols, y0, y1, c, x0, x0 + strip < w ? x0 + strip : w);
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

jf_status jf_median_cpu(jf_context *ctx, const jf_image *padded, int ksize, jf_image *dst)
{
    median_job job = make_job(padded, dst, ksize);
    if (ksize == 1)
        return jf_image_copy(padded, dst);
    job.strip = dst->width < JF_MEDIAN_CTM_STRIP ? dst->width : JF_MEDIAN_CTM_STRIP;
    {
        const size_t per_band = sizeof(ctm_hist) * (size_t)(job.strip + ksize - 1);
        if (!(job.scratch = jf_scratch_get(ctx, JF_SCRATCH_BANDS,
                                           per_band * (size_t)jf_parallel_bands(ctx, dst->height))))
            return JF_ERR_NOMEM;
    }
    jf_parallel_for(ctx, dst->height, median_ctm_rows, &job);
    return JF_OK;
}
