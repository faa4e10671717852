/*
 * Median filter at 16 bits, CPU reference.
 *
 * k = 3 and 5 run the min/max networks (median_cpu_net.c).  Larger k:
 * Huang's sliding histogram with two levels: 256 coarse bins (the high
 * byte) and 65,536 fine bins (the whole value), counts 16-bit (k^2 <=
 * 65025).  Moving one pixel right removes one column of k samples and adds
 * another, so a pixel costs 2k updates plus two short marker walks: the
 * coarse marker (which high byte holds the median) moves a few bins at
 * most between neighbours in a photo, and the fine marker inside it moves
 * from where it was, or starts afresh when the coarse bin changed.  Cost
 * linear in k at every k; the window is never sorted.
 *
 * The fine histogram (128 KiB) is per thread and per channel in turn; a row
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
    uint16_t *scratch;   /* per band: 65536 fine + 256 coarse counts */
} median16_job;

#define FINE_BINS 65536
#define COARSE_BINS 256

/* A window's histograms and its median markers. */
typedef struct hist16 {
    uint16_t *fine, *coarse;
    int mc, below_c; /* coarse marker, samples whose high byte is below it */
    int mf, below_f; /* fine marker in bin mc, samples of bin mc below it */
} hist16;

static inline void hist_put(hist16 *h, unsigned v, int delta)
{
    const int hi = (int)(v >> 8), lo = (int)(v & 255);
    h->fine[v] = (uint16_t)(h->fine[v] + delta);
    h->coarse[hi] = (uint16_t)(h->coarse[hi] + delta);
    if (hi < h->mc)
        h->below_c += delta;
    else if (hi == h->mc && lo < h->mf)
        h->below_f += delta;
}

/* Move the markers to the sample of 0-based rank `rank`; returns it. */
static inline unsigned hist_select(hist16 *h, int rank)
{
    const int old = h->mc;
    const uint16_t *f;
    int need;
    while (h->below_c > rank)
        h->below_c -= h->coarse[--h->mc];
    while (h->below_c + h->coarse[h->mc] <= rank)
        h->below_c += h->coarse[h->mc++];
    f = h->fine + ((size_t)h->mc << 8);
    if (h->mc != old) { /* a new bin: walk from the end nearer the old one */
        if (h->mc > old) {
            h->mf = 0;
            h->below_f = 0;
        } else {
            h->mf = 255;
            h->below_f = h->coarse[h->mc] - f[255];
        }
    }
    need = rank - h->below_c;
    while (h->below_f > need)
        h->below_f -= f[--h->mf];
    while (h->below_f + f[h->mf] <= need)
        h->below_f += f[h->mf++];
    return ((unsigned)h->mc << 8) | (unsigned)h->mf;
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
        h->mc = h->below_c = h->mf = h->below_f = 0;
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
    h.fine = job->scratch + (size_t)worker * (FINE_BINS + COARSE_BINS);
    h.coarse = h.fine + FINE_BINS;
    for (c = 0; c < job->src->channels; c++)
        median16_channel(job, &h, y0, y1, c);
}

jf_status jf_median_cpu16(jf_context *ctx, const jf_image *padded, int ksize, jf_image *dst)
{
    median16_job job;
    const size_t per_band = (FINE_BINS + COARSE_BINS) * sizeof(uint16_t);
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
