/*
 * Convolution (correlation), CPU reference.
 *
 * No padded copy of the image and no float image: each band pads the rows
 * it reads (jf_pad_row), converts each to floats once, and keeps a ring of
 * the last k rows it needs (slot py % k), as the CPU median does.  The
 * memory is k rows a band whatever the image (a whole-image float pass was
 * 4 bytes a sample: 8K RGB, 400 MB), and the rows stay in cache.
 *
 * Direct: for each output row, one float accumulator per sample of the row;
 * each of the k*k weights adds weight * (shifted padded row) to it.
 * Separable: each padded row summed horizontally into the ring, then the
 * ring's k rows summed vertically: k + k multiplies per value instead of
 * k*k.  Sums run in a fixed order (each row left to right, then the rows top
 * to bottom), which the GPU's separable kernel follows.  The inner loops run
 * along the row, so they vectorise (on x86-64 also as AVX2: without fused
 * multiply-adds the results are the same bits).  Both convert with
 * jf_saturate_round (jf_saturate_round16 at 16 bits).
 */
#include "filters/conv/conv.h"
#include "filters/filters.h"
#include "filters/pad/pad.h"
#include "core/context.h"
#include "core/errors.h"
#include "core/image.h"

#include <math.h>
#include <string.h>

int jf_kernel_separate(const float *w, int k, float *col, float *row)
{
    int i, j, pr = 0, pc = 0;
    float maxabs = 0.0f, pivot;
    for (j = 0; j < k; j++)
        for (i = 0; i < k; i++)
            if (fabsf(w[j * k + i]) > maxabs) {
                maxabs = fabsf(w[j * k + i]);
                pr = j;
                pc = i;
            }
    if (maxabs == 0.0f)
        return 0;
    pivot = w[pr * k + pc];
    for (j = 0; j < k; j++)
        col[j] = w[j * k + pc];
    for (i = 0; i < k; i++)
        row[i] = w[pr * k + i] / pivot;
    for (j = 0; j < k; j++)
        for (i = 0; i < k; i++)
            if (fabsf(w[j * k + i] - col[j] * row[i]) > 1e-6f * maxabs)
                return 0;
    return 1;
}

/* acc[x] += wv * r[x] */
JF_WIDE_SIMD static void axpy(float *restrict acc, const float *restrict r, float wv, size_t n)
{
    size_t x;
    for (x = 0; x < n; x++)
        acc[x] += wv * r[x];
}

static void store_row(unsigned char *d, const float *acc, size_t n, int wide)
{
    size_t x;
    if (wide) {
        uint16_t *q = (uint16_t *)(void *)d;
        for (x = 0; x < n; x++)
            q[x] = jf_saturate_round16(acc[x]);
    } else {
        for (x = 0; x < n; x++)
            d[x] = jf_saturate_round(acc[x]);
    }
}

typedef struct conv_job {
    const jf_image *src; /* the image itself, unpadded */
    jf_image *dst;
    int ksize;
    jf_border border;
    const float *weights, *col, *row;
    size_t n;          /* samples in an output row */
    size_t padded_n;   /* samples in a padded row */
    size_t slot;       /* floats in a ring slot: padded_n (direct) or n (separable) */
    size_t raw_bytes;  /* one padded row as samples */
    size_t band_bytes; /* raw row | padded float row | k slots | accumulators */
    unsigned char *scratch;
} conv_job;

/* Pointers into one band's scratch. */
typedef struct band_rows {
    unsigned char *raw;
    float *padded, *ring, *acc;
} band_rows;

static band_rows band_scratch(const conv_job *job, int band)
{
    band_rows b;
    unsigned char *base = job->scratch + (size_t)band * job->band_bytes;
    b.raw = base;
    b.padded = (float *)(void *)(base + job->raw_bytes);
    b.ring = b.padded + ((job->padded_n + 15) & ~(size_t)15);
    b.acc = b.ring + job->slot * (size_t)job->ksize;
    return b;
}

/* Padded row py of the source as floats (exact: every 8- and 16-bit level is one). */
static void padded_floats(const conv_job *job, const band_rows *b, int py, float *out)
{
    size_t x;
    jf_pad_row(job->src, job->ksize / 2, job->border, py, b->raw);
    if (job->src->sample == JF_SAMPLE_U16) {
        const uint16_t *q = (const uint16_t *)(const void *)b->raw;
        for (x = 0; x < job->padded_n; x++)
            out[x] = (float)q[x];
    } else {
        for (x = 0; x < job->padded_n; x++)
            out[x] = (float)b->raw[x];
    }
}

/* Ring slot py % k gets padded row py: as floats (direct) or its horizontal
 * sum (separable). */
static void fill_slot(const conv_job *job, const band_rows *b, int py)
{
    float *slot = b->ring + (size_t)(py % job->ksize) * job->slot;
    const size_t px = (size_t)job->src->channels;
    int i;
    if (!job->col) {
        padded_floats(job, b, py, slot);
        return;
    }
    padded_floats(job, b, py, b->padded);
    memset(slot, 0, job->n * sizeof *slot);
    for (i = 0; i < job->ksize; i++)
        axpy(slot, b->padded + (size_t)i * px, job->row[i], job->n);
}

static void conv_rows(void *arg, int y0, int y1, int band)
{
    conv_job *job = (conv_job *)arg;
    const band_rows b = band_scratch(job, band);
    const int k = job->ksize, wide = job->dst->sample == JF_SAMPLE_U16;
    const size_t px = (size_t)job->src->channels;
    int y, i, j;
    for (y = y0; y < y1; y++) {
        for (j = y == y0 ? 0 : k - 1; j < k; j++)
            fill_slot(job, &b, y + j);
        memset(b.acc, 0, job->n * sizeof *b.acc);
        for (j = 0; j < k; j++) {
            const float *r = b.ring + (size_t)((y + j) % k) * job->slot;
            if (job->col) {
                axpy(b.acc, r, job->col[j], job->n);
                continue;
            }
            for (i = 0; i < k; i++) {
                const float wv = job->weights[j * k + i];
                if (wv != 0.0f)
                    axpy(b.acc, r + (size_t)i * px, wv, job->n);
            }
        }
        store_row(job->dst->data + (size_t)y * job->dst->stride, b.acc, job->n, wide);
    }
}

jf_status jf_conv_cpu(jf_context *ctx, const jf_image *src, int ksize, jf_border border,
                      const float *weights, const float *col, const float *row, jf_image *dst)
{
    const int bands = jf_parallel_bands(ctx, dst->height);
    conv_job job;
    memset(&job, 0, sizeof job);
    job.src = src;
    job.dst = dst;
    job.ksize = ksize;
    job.border = border;
    job.weights = weights;
    job.col = col && row ? col : NULL;
    job.row = row;
    job.n = (size_t)dst->width * (size_t)dst->channels;
    job.padded_n = (size_t)(src->width + ksize - 1) * (size_t)src->channels;
    job.slot = (((job.col ? job.n : job.padded_n)) + 15) & ~(size_t)15; /* 64-byte rows */
    job.raw_bytes = (job.padded_n * jf_bps(src) + 63) & ~(size_t)63;
    job.band_bytes = job.raw_bytes +
                     (((job.padded_n + 15) & ~(size_t)15) + job.slot * (size_t)ksize +
                      ((job.n + 15) & ~(size_t)15)) * sizeof(float);
    if (!(job.scratch = (unsigned char *)jf_scratch_get(ctx, JF_SCRATCH_BANDS,
                                                        job.band_bytes * (size_t)bands)))
        return JF_ERR_NOMEM;
    jf_parallel_for(ctx, dst->height, conv_rows, &job);
    return JF_OK;
}
