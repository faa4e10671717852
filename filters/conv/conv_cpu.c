/*
 * Convolution (correlation), CPU reference.
 *
 * Direct: for each output row, one float accumulator per byte of the row;
 * each of the k*k weights adds weight * (shifted source row) to it.  The
 * inner loop runs along the row, so it vectorises and reads memory in order.
 * Separable: a horizontal pass into float rows, then a vertical pass, k + k
 * multiplies per value instead of k*k.  Both convert with jf_saturate_round
 * (jf_saturate_round16 at 16 bits: the same loops, wider loads and stores).
 */
#include "filters/conv/conv.h"
#include "filters/filters.h"
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

/* acc[x] += wv * p[x] over a row of 8- or 16-bit samples */
static void axpy_row(float *acc, const unsigned char *p, float wv, size_t n, int wide)
{
    size_t x;
    if (wide) {
        const uint16_t *q = (const uint16_t *)(const void *)p;
        for (x = 0; x < n; x++)
            acc[x] += wv * (float)q[x];
    } else {
        for (x = 0; x < n; x++)
            acc[x] += wv * (float)p[x];
    }
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
    const jf_image *src; /* padded */
    jf_image *dst;
    int ksize;
    const float *weights, *col, *row;
    float *tmp;          /* separable: horizontal pass, padded height x out bytes */
    float *acc;          /* one row of accumulators per band */
} conv_job;

static void conv_direct_rows(void *arg, int y0, int y1, int band)
{
    conv_job *job = (conv_job *)arg;
    const jf_image *s = job->src;
    const int k = job->ksize, ch = s->channels, wide = s->sample == JF_SAMPLE_U16;
    const size_t n = (size_t)job->dst->width * (size_t)ch, px = (size_t)ch * jf_bps(s);
    float *acc = job->acc + (size_t)band * n;
    int y, i, j;

    for (y = y0; y < y1; y++) {
        unsigned char *d = job->dst->data + (size_t)y * job->dst->stride;
        memset(acc, 0, n * sizeof *acc);
        for (j = 0; j < k; j++) {
            const unsigned char *r = s->data + (size_t)(y + j) * s->stride;
            for (i = 0; i < k; i++) {
                const float wv = job->weights[j * k + i];
                if (wv != 0.0f)
                    axpy_row(acc, r + (size_t)i * px, wv, n, wide);
            }
        }
        store_row(d, acc, n, wide);
    }
}

static void conv_horizontal_rows(void *arg, int y0, int y1, int band)
{
    conv_job *job = (conv_job *)arg;
    const jf_image *s = job->src;
    const int k = job->ksize, ch = s->channels, wide = s->sample == JF_SAMPLE_U16;
    const size_t n = (size_t)job->dst->width * (size_t)ch, px = (size_t)ch * jf_bps(s);
    int y, i;
    (void)band;
    for (y = y0; y < y1; y++) {
        const unsigned char *r = s->data + (size_t)y * s->stride;
        float *t = job->tmp + (size_t)y * n;
        memset(t, 0, n * sizeof *t);
        for (i = 0; i < k; i++)
            axpy_row(t, r + (size_t)i * px, job->row[i], n, wide);
    }
}

static void conv_vertical_rows(void *arg, int y0, int y1, int band)
{
    conv_job *job = (conv_job *)arg;
    const int k = job->ksize;
    const size_t n = (size_t)job->dst->width * (size_t)job->dst->channels;
    float *acc = job->acc + (size_t)band * n;
    int y, j;
    size_t x;
    for (y = y0; y < y1; y++) {
        unsigned char *d = job->dst->data + (size_t)y * job->dst->stride;
        memset(acc, 0, n * sizeof *acc);
        for (j = 0; j < k; j++) {
            const float wv = job->col[j];
            const float *t = job->tmp + (size_t)(y + j) * n;
            for (x = 0; x < n; x++)
                acc[x] += wv * t[x];
        }
        store_row(d, acc, n, job->dst->sample == JF_SAMPLE_U16);
    }
}

jf_status jf_conv_cpu(jf_context *ctx, const jf_image *padded, int ksize, const float *weights,
                      const float *col, const float *row, jf_image *dst)
{
    const size_t n = (size_t)dst->width * (size_t)dst->channels;
    const int bands = jf_parallel_bands(ctx, dst->height);
    conv_job job;
    memset(&job, 0, sizeof job);
    job.src = padded;
    job.dst = dst;
    job.ksize = ksize;
    job.weights = weights;
    job.col = col;
    job.row = row;
    if (!(job.acc = (float *)jf_scratch_get(ctx, JF_SCRATCH_BANDS, n * (size_t)bands * sizeof(float))))
        return JF_ERR_NOMEM;
    if (col && row) {
        job.tmp = (float *)jf_scratch_get(ctx, JF_SCRATCH_ROWS,
                                          n * (size_t)padded->height * sizeof(float));
        if (!job.tmp)
            return JF_ERR_NOMEM;
        jf_parallel_for(ctx, padded->height, conv_horizontal_rows, &job);
        jf_parallel_for(ctx, dst->height, conv_vertical_rows, &job);
    } else {
        jf_parallel_for(ctx, dst->height, conv_direct_rows, &job);
    }
    return JF_OK;
}
