/*
 * Convolution (correlation), CPU reference.
 *
 * No padded copy of the image and no float image: each band pads the rows
 * it reads (jf_pad_row), converts each to floats once, and keeps a ring of
 * the last k rows it needs (slot py % k), as the CPU median does.  The
 * memory is k rows a band whatever the image (a whole-image float pass was
 * 4 bytes a sample: 8K RGB, 400 MB), and the rows stay in cache.
 *
 * Both are sums of taps (sum_taps): each output is weight x (a row shifted
 * by the tap) summed over the taps in a fixed order.  Direct: the kernel's
 * non-zero weights row by row over the ring's padded rows.  Separable: each
 * padded row summed horizontally into the ring, then the ring's k rows
 * summed vertically: k + k multiplies per value instead of k*k, in the order
 * the GPU's separable kernel follows.  sum_taps keeps 64 outputs in vector
 * registers across all taps (on x86-64 also as AVX2; never fused
 * multiply-adds, so every build gives the same bits).  Both convert with
 * jf_saturate_round (jf_saturate_round16 at 16 bits); float32 images are
 * summed in float and stored as summed (no rounding, no clamping), every
 * tap counting as IEEE arithmetic has it: a NaN in the window, or an
 * infinity under a zero weight, makes the output NaN (as scipy.ndimage's
 * correlate).
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

/* A vector of 8 floats (GCC's vector extension: AVX2 registers, or two
 * SSE2 or NEON ones), and TAP_VECS of them as one block of outputs whose
 * accumulators stay in registers across all taps: each tap then costs a
 * load and a multiply and an add a value, instead of a pass over the row in
 * memory.  Written with vectors because the compiler left the plain loop
 * scalar for most taps. */
typedef float vf8 __attribute__((vector_size(32)));
#define TAP_VECS 8
#define TAP_BLOCK (8 * TAP_VECS)

/* out[x] = w[0] * in[0][x] + w[1] * in[1][x] + ... for x < n, summed from
 * tap 0 to the last (a fixed order: the separable GPU kernel's). */
JF_WIDE_SIMD static void sum_taps(float *restrict out, const float *const *in, const float *w,
                                  int taps, size_t n)
{
    size_t x0 = 0, x;
    int t, v;
    for (; x0 + TAP_BLOCK <= n; x0 += TAP_BLOCK) {
        vf8 a[TAP_VECS];
        for (v = 0; v < TAP_VECS; v++)
            a[v] = (vf8){0, 0, 0, 0, 0, 0, 0, 0};
        for (t = 0; t < taps; t++) {
            const float *r = in[t] + x0;
            const vf8 wv = (vf8){0, 0, 0, 0, 0, 0, 0, 0} + w[t];
            for (v = 0; v < TAP_VECS; v++) {
                vf8 rv;
                memcpy(&rv, r + 8 * v, sizeof rv); /* unaligned */
                a[v] += wv * rv;
            }
        }
        memcpy(out + x0, a, sizeof a);
    }
    for (x = x0; x < n; x++) {
        float a = 0.0f;
        for (t = 0; t < taps; t++)
            a += w[t] * in[t][x];
        out[x] = a;
    }
}

JF_WIDE_SIMD static void store_row(unsigned char *d, const float *acc, size_t n, jf_sample sample)
{
    size_t x;
    if (sample == JF_SAMPLE_F32) {
        memcpy(d, acc, n * sizeof(float));
    } else if (sample == JF_SAMPLE_U16) {
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
    float *tap_w;      /* the direct kernel's non-zero weights, row by row */
    int *tap_j, *tap_i; /* and where each sits (kernel row, column) */
    int taps;
    size_t n;          /* samples in an output row */
    size_t padded_n;   /* samples in a padded row */
    size_t slot;       /* floats in a ring slot: padded_n (direct) or n (separable) */
    size_t raw_bytes;  /* one padded row as samples */
    size_t band_bytes; /* raw row | padded float row | k slots | accumulators | tap rows */
    unsigned char *scratch; /* the taps, then a band_bytes part for each band */
} conv_job;

/* Pointers into one band's scratch. */
typedef struct band_rows {
    unsigned char *raw;
    float *padded, *ring, *acc;
    const float **in; /* the row each tap reads, for sum_taps */
} band_rows;

/* The direct kernel's taps: k*k weights, rows and columns, 64-byte aligned. */
static size_t taps_bytes(int k)
{
    return ((size_t)k * (size_t)k * (sizeof(float) + 2 * sizeof(int)) + 63) & ~(size_t)63;
}

/* The job's row lengths and one band's scratch for src: the slots hold
 * padded rows for the direct sum, output-width rows for the separable one. */
static void band_sizes(conv_job *job, const jf_image *src, int ksize, int separable)
{
    job->n = (size_t)src->width * (size_t)src->channels;
    job->padded_n = (size_t)(src->width + ksize - 1) * (size_t)src->channels;
    job->slot = ((separable ? job->n : job->padded_n) + 15) & ~(size_t)15; /* 64-byte rows */
    job->raw_bytes = (job->padded_n * jf_bps(src) + 63) & ~(size_t)63;
    job->band_bytes = job->raw_bytes +
                      (((job->padded_n + 15) & ~(size_t)15) + job->slot * (size_t)ksize +
                       ((job->n + 15) & ~(size_t)15)) * sizeof(float) +
                      (((size_t)ksize * (size_t)ksize * sizeof(float *) + 63) & ~(size_t)63);
}

size_t jf_conv_cpu_bytes(const jf_image *src, int ksize, int separable, int bands)
{
    conv_job job;
    band_sizes(&job, src, ksize, separable);
    return taps_bytes(ksize) + job.band_bytes * (size_t)bands;
}

static band_rows band_scratch(const conv_job *job, int band)
{
    band_rows b;
    unsigned char *base = job->scratch + taps_bytes(job->ksize) + (size_t)band * job->band_bytes;
    b.raw = base;
    b.padded = (float *)(void *)(base + job->raw_bytes);
    b.ring = b.padded + ((job->padded_n + 15) & ~(size_t)15);
    b.acc = b.ring + job->slot * (size_t)job->ksize;
    b.in = (const float **)(void *)(b.acc + ((job->n + 15) & ~(size_t)15));
    return b;
}

/* Padded row py of the source as floats (exact: every 8- and 16-bit level is one). */
static void padded_floats(const conv_job *job, const band_rows *b, int py, float *out)
{
    size_t x;
    jf_pad_row(job->src, job->ksize / 2, job->border, py, b->raw);
    if (job->src->sample == JF_SAMPLE_F32) {
        memcpy(out, b->raw, job->padded_n * sizeof(float));
    } else if (job->src->sample == JF_SAMPLE_U16) {
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
    for (i = 0; i < job->ksize; i++)
        b->in[i] = b->padded + (size_t)i * px;
    sum_taps(slot, b->in, job->row, job->ksize, job->n);
}

static void conv_rows(void *arg, int y0, int y1, int band)
{
    conv_job *job = (conv_job *)arg;
    const band_rows b = band_scratch(job, band);
    const int k = job->ksize;
    const size_t px = (size_t)job->src->channels;
    int y, j, t;
    for (y = y0; y < y1; y++) {
        for (j = y == y0 ? 0 : k - 1; j < k; j++)
            fill_slot(job, &b, y + j);
        if (job->col) {
            for (j = 0; j < k; j++)
                b.in[j] = b.ring + (size_t)((y + j) % k) * job->slot;
            sum_taps(b.acc, b.in, job->col, k, job->n);
        } else {
            for (t = 0; t < job->taps; t++)
                b.in[t] = b.ring + (size_t)((y + job->tap_j[t]) % k) * job->slot +
                          (size_t)job->tap_i[t] * px;
            sum_taps(b.acc, b.in, job->tap_w, job->taps, job->n);
        }
        store_row(job->dst->data + (size_t)y * job->dst->stride, b.acc, job->n, job->dst->sample);
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
    band_sizes(&job, src, ksize, job.col != NULL);
    if (!(job.scratch = (unsigned char *)jf_scratch_get(
              ctx, JF_SCRATCH_BANDS, taps_bytes(ksize) + job.band_bytes * (size_t)bands)))
        return JF_ERR_NOMEM;
    if (!job.col) { /* zero weights cost nothing (a Laplacian's corners, a cross), but
                       in float images, where 0 x NaN or infinity is NaN, every tap counts */
        const int every = src->sample == JF_SAMPLE_F32;
        int i, j;
        job.tap_w = (float *)(void *)job.scratch;
        job.tap_j = (int *)(void *)(job.tap_w + ksize * ksize);
        job.tap_i = job.tap_j + ksize * ksize;
        for (j = 0; j < ksize; j++)
            for (i = 0; i < ksize; i++)
                if (every || weights[j * ksize + i] != 0.0f) {
                    job.tap_w[job.taps] = weights[j * ksize + i];
                    job.tap_j[job.taps] = j;
                    job.tap_i[job.taps++] = i;
                }
    }
    jf_parallel_for(ctx, dst->height, conv_rows, &job);
    return JF_OK;
}
