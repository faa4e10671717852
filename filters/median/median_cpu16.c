/*
 * Median filter at 16 bits, CPU reference.
 *
 * k = 3 to 9 run the min/max networks (median_cpu_net.c).  Larger k:
 * Huang's sliding histogram with three levels: 256 coarse bins (the high
 * byte), 4,096 middle bins (the top 12 bits) and 65,536 fine bins (the
 * whole value), counts 16-bit (k^2 <= 65025).  Moving one pixel right
 * removes one column of k samples and adds another, so a pixel costs 2k
 * updates (three counts each) plus the search: the coarse marker (which
 * high byte holds the median) moves a few bins at most between neighbours
 * in a photo, then at most 16 middle and 16 fine bins are counted inside
 * it.  With two levels the fine walk covered up to 256 bins whenever the
 * median's high byte changed, which in real 16-bit data (noise in the low
 * bits) it does at most pixels (RESULTS.md, "16-bit on the CPU").  Cost
 * linear in k at every k; the window is never sorted.
 *
 * The histograms (136 KiB) are per thread and per channel in turn; a row
 * ends by taking its last window back out, so nothing is cleared per row.
 */
#include "filters/median/median.h"
#include "filters/filters.h"
#include "core/context.h"
#include "core/image.h"

#include <stdint.h>
#include <string.h>

typedef struct median16_job {
    const jf_image *src; /* padded by k/2 */
    jf_image *dst;
    int ksize;
    uint16_t *scratch;   /* per band: fine, middle and coarse counts */
} median16_job;

#define FINE_BINS 65536  /* the whole value */
#define MID_BINS 4096    /* its top 12 bits */
#define COARSE_BINS 256  /* its top 8 bits */
#define HIST_COUNTS (FINE_BINS + MID_BINS + COARSE_BINS)

/* A window's histograms and its coarse marker. */
typedef struct hist16 {
    uint16_t *fine, *mid, *coarse;
    int mc, below_c; /* coarse marker, samples whose high byte is below it */
} hist16;

static inline void hist_put(hist16 *h, unsigned v, int delta)
{
    h->fine[v] = (uint16_t)(h->fine[v] + delta);
    h->mid[v >> 4] = (uint16_t)(h->mid[v >> 4] + delta);
    h->coarse[v >> 8] = (uint16_t)(h->coarse[v >> 8] + delta);
    h->below_c += (int)(v >> 8) < h->mc ? delta : 0;
}

/* The sample of 0-based rank `rank`: the coarse marker moves from where it
 * was (a few bins between neighbours), then at most 16 middle and 16 fine
 * bins are counted inside it. */
static inline unsigned hist_select(hist16 *h, int rank)
{
    const uint16_t *m, *f;
    int need, j = 0, i = 0;
    while (h->below_c > rank)
        h->below_c -= h->coarse[--h->mc];
    while (h->below_c + h->coarse[h->mc] <= rank)
        h->below_c += h->coarse[h->mc++];
    need = rank - h->below_c;
    m = h->mid + ((size_t)h->mc << 4);
    while (need >= m[j])
        need -= m[j++];
    f = h->fine + ((size_t)h->mc << 8) + ((size_t)j << 4);
    while (need >= f[i])
        need -= f[i++];
    return ((unsigned)h->mc << 8) | ((unsigned)j << 4) | (unsigned)i;
}

static void median16_channel(const median16_job *job, hist16 *h, int y0, int y1, int c)
{
    const jf_image *s = job->src;
    const int k = job->ksize, ch = s->channels, w = job->dst->width;
    const int rank = (k * k) / 2;
    int y, x, j, i;
    for (y = y0; y < y1; y++) {
        const uint16_t *top = (const uint16_t *)(const void *)(s->data + (size_t)y * s->stride) + c;
        uint16_t *d = (uint16_t *)(void *)(job->dst->data + (size_t)y * job->dst->stride) + c;
        const size_t step = s->stride / 2; /* samples from one row to the next */
        h->mc = h->below_c = 0;
        for (j = 0; j < k; j++)
            for (i = 0; i < k; i++)
                hist_put(h, top[(size_t)j * step + (size_t)i * ch], 1);
        d[0] = (uint16_t)hist_select(h, rank);
        for (x = 1; x < w; x++) {
            const uint16_t *out_col = top + (size_t)(x - 1) * ch;
            const uint16_t *in_col = top + (size_t)(x + k - 1) * ch;
            for (j = 0; j < k; j++) {
                hist_put(h, out_col[(size_t)j * step], -1);
                hist_put(h, in_col[(size_t)j * step], 1);
            }
            d[(size_t)x * ch] = (uint16_t)hist_select(h, rank);
        }
        for (j = 0; j < k; j++) /* empty again for the next row */
            for (i = 0; i < k; i++)
                hist_put(h, top[(size_t)j * step + (size_t)(w - 1 + i) * ch], -1);
    }
}

static void median16_rows(void *arg, int y0, int y1, int worker)
{
    const median16_job *job = (const median16_job *)arg;
    hist16 h;
    int c;
    h.fine = job->scratch + (size_t)worker * HIST_COUNTS;
    h.mid = h.fine + FINE_BINS;
    h.coarse = h.mid + MID_BINS;
    for (c = 0; c < job->src->channels; c++)
        median16_channel(job, &h, y0, y1, c);
}

jf_status jf_median_cpu16(jf_context *ctx, const jf_image *padded, int ksize, jf_image *dst)
{
    median16_job job;
    const size_t per_band = HIST_COUNTS * sizeof(uint16_t);
    const int bands = jf_parallel_bands(ctx, dst->height);
    if (ksize == 1)
        return jf_image_copy(padded, dst);
    memset(&job, 0, sizeof job);
    job.src = padded;
    job.dst = dst;
    job.ksize = ksize;
    if (!(job.scratch = (uint16_t *)jf_scratch_get(ctx, JF_SCRATCH_BANDS, per_band * (size_t)bands)))
        return JF_ERR_NOMEM;
    memset(job.scratch, 0, per_band * (size_t)bands); /* the rows leave it zero again */
    jf_parallel_for(ctx, dst->height, median16_rows, &job);
    return JF_OK;
}
