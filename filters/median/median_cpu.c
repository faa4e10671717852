/*
 * Median filter, CPU reference.
 *
 * k = 3 and 5: min/max networks over rows (median_cpu_net.c).
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
    const jf_image *src; /* padded by k/2 */
    jf_image *dst;
    int ksize;
    void *scratch;       /* per band: column histograms (k >= JF_MEDIAN_CTM_MIN_K) */
} median_job;

/* From this k on, the constant-time median is faster than Huang's on the
 * 2-core VM (docs/kernels/studies.md, "Large k on the CPU": Huang wins at 9
 * and 11, they tie near 15); -DJF_MEDIAN_CTM_MIN_K=N at build time moves it
 * for a measurement. */
#ifndef JF_MEDIAN_CTM_MIN_K
#define JF_MEDIAN_CTM_MIN_K 15
#endif

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
