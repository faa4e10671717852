/*
 * Median filter, CPU reference.
 *
 * k = 3: the 9-element median by columns.  Each vertical triple is sorted
 * once (lo <= mid <= hi); the median of the 3x3 window is then
 * med3(max of the three lo, med3 of the three mid, min of the three hi).
 * Everything is byte min/max over whole rows, which the compiler vectorises.
 *
 * k >= 5: Huang's sliding histogram.  Moving one pixel right removes one
 * column of k values and adds another, so the cost per pixel is 2k histogram
 * updates plus a short walk of the median marker: linear in k, where sorting
 * the window grows with k^2 log k.  Each thread owns a band of rows; each
 * channel of an interleaved image has its own histogram.
 */
#include "filters/median/median.h"
#include "core/context.h"
#include "core/image.h"

#include <string.h>

typedef struct median_job {
    const jf_image *src; /* padded */
    jf_image *dst;
    int ksize;
} median_job;

#define MIN8(a, b) ((a) < (b) ? (a) : (b))
#define MAX8(a, b) ((a) > (b) ? (a) : (b))

static inline unsigned char med3(unsigned char a, unsigned char b, unsigned char c)
{
    return MAX8(MIN8(a, b), MIN8(MAX8(a, b), c));
}

/* Rows are processed in chunks so the sorted triples fit in a stack buffer. */
#define CHUNK 2048

static void median3_rows(void *arg, int y0, int y1, int worker)
{
    median_job *job = (median_job *)arg;
    const jf_image *s = job->src;
    const int ch = s->channels;
    const size_t out_n = (size_t)job->dst->width * (size_t)ch;
    unsigned char lo[CHUNK + 8], mid[CHUNK + 8], hi[CHUNK + 8];
    size_t at, i, n;
    int y;
    (void)worker;

    for (y = y0; y < y1; y++) {
        const unsigned char *r0 = s->data + (size_t)y * s->stride;
        const unsigned char *r1 = r0 + s->stride, *r2 = r1 + s->stride;
        unsigned char *d = job->dst->data + (size_t)y * job->dst->stride;
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

jf_status jf_median_cpu(jf_context *ctx, const jf_image *padded, int ksize, jf_image *dst)
{
    median_job job;
    memset(&job, 0, sizeof job);
    job.src = padded;
    job.dst = dst;
    job.ksize = ksize;
    if (ksize == 1)
        return jf_image_copy(padded, dst);
    jf_parallel_for(ctx, dst->height, ksize == 3 ? median3_rows : median_histogram_rows, &job);
    return JF_OK;
}
