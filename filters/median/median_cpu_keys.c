/*
 * Medians on the CPU through 32-bit keys: float32 images, and the median of
 * the valid samples of a window (jf_median_options.ignore) at any depth.
 *
 * Floats are ordered totally, as NumPy sorts them: -inf < ... < -0 < +0 <
 * ... < +inf < NaN, every NaN alike (an output NaN is 0x7fffffff).  Each
 * sample becomes a 32-bit signed key whose order is that order (a
 * positive float's bits as they are, a negative's with all but the sign
 * flipped, NaN the largest key), +0 being key 0 as the zero border's zero
 * bytes are; the integer code runs on the keys and the keys become floats
 * again.  At k = 3, 5 and 7 that code
 * is the min/max networks (median_cpu_net.c); elsewhere a selection in
 * each window (Hoare's, as scipy.ndimage's median_filter does): k^2 work
 * a sample, where the integer images' histograms take k.
 *
 * The valid samples' median: the lower of the two middle ones when their
 * count is even (always one of the samples), the source sample itself
 * where the window holds none.  The border's samples count as any other
 * (a zero border's zeros are ignored when the value ignored is 0).
 */
#include "filters/median/median.h"
#include "filters/filters.h"
#include "filters/ops.h"
#include "filters/pad/pad.h"
#include "core/context.h"
#include "core/errors.h"
#include "core/image.h"
#include "core/util.h"

#include <math.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#define KEY_NAN INT32_MAX

static inline int32_t key_of_float(float f)
{
    int32_t b;
    memcpy(&b, &f, sizeof b);
    if ((b & 0x7fffffff) > 0x7f800000)
        return KEY_NAN;
    return b < 0 ? b ^ 0x7fffffff : b;
}

static inline float float_of_key(int32_t k)
{
    const int32_t b = k < 0 ? k ^ 0x7fffffff : k;
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

/* Samples [0, n) of a row as keys (in place when `from` is `to`). */
static void keys_of_row(const unsigned char *from, jf_sample sample, int32_t *to, size_t n)
{
    size_t i;
    if (sample == JF_SAMPLE_F32)
        for (i = 0; i < n; i++)
            to[i] = key_of_float(((const float *)(const void *)from)[i]);
    else if (sample == JF_SAMPLE_U16)
        for (i = n; i-- > 0;) /* backwards: in place widens */
            to[i] = ((const uint16_t *)(const void *)from)[i];
    else
        for (i = n; i-- > 0;)
            to[i] = from[i];
}

static void row_of_keys(const int32_t *from, jf_sample sample, unsigned char *to, size_t n)
{
    size_t i;
    if (sample == JF_SAMPLE_F32)
        for (i = 0; i < n; i++)
            ((float *)(void *)to)[i] = float_of_key(from[i]);
    else if (sample == JF_SAMPLE_U16)
        for (i = 0; i < n; i++)
            ((uint16_t *)(void *)to)[i] = (uint16_t)from[i];
    else
        for (i = 0; i < n; i++)
            to[i] = (unsigned char)from[i];
}

/* The element of rank `r` of v[0, n) (v reordered): Hoare's selection. */
static int32_t select_rank(int32_t *v, size_t n, size_t r)
{
    size_t lo = 0, hi = n - 1;
    while (hi > lo) {
        const int32_t a = v[lo], b = v[lo + (hi - lo) / 2], c = v[hi];
        const int32_t pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
        size_t i = lo, j = hi;
        while (i <= j) {
            while (v[i] < pivot)
                i++;
            while (v[j] > pivot)
                j--;
            if (i <= j) {
                const int32_t t = v[i];
                v[i] = v[j];
                v[j] = t;
                i++;
                if (j == 0)
                    break;
                j--;
            }
        }
        if (r <= j)
            hi = j;
        else if (r >= i)
            lo = i;
        else
            return v[r];
    }
    return v[r];
}

/* ---- float32 at k = 3, 5 and 7: the networks on keys ----------------------- */

jf_status jf_median_float_networks(jf_context *ctx, const jf_image *src, int k, jf_border border,
                                   jf_image *dst)
{
    const size_t n = (size_t)src->width * (size_t)src->channels;
    jf_image keys = *src;
    jf_status st;
    int y;
    keys.stride = n * sizeof(int32_t);
    keys.owned = 0;
    if (!(keys.data = (unsigned char *)malloc(keys.stride * (size_t)src->height)))
        return jf_fail(JF_ERR_NOMEM, "jf_median: no memory for a %dx%d float image's keys",
                       src->width, src->height);
    for (y = 0; y < src->height; y++)
        keys_of_row(src->data + (size_t)y * src->stride, JF_SAMPLE_F32,
                    (int32_t *)(void *)(keys.data + (size_t)y * keys.stride), n);
    st = jf_median_cpu_small(ctx, &keys, k, border, dst); /* keys into dst */
    for (y = 0; st == JF_OK && y < dst->height; y++) {
        unsigned char *row = dst->data + (size_t)y * dst->stride;
        row_of_keys((const int32_t *)(const void *)row, JF_SAMPLE_F32, row, n);
    }
    free(keys.data);
    return st;
}

/* ---- a selection in every window ------------------------------------------ */

typedef struct select_job {
    const jf_image *src;
    const jf_image *padded; /* the source padded by k/2, as keys (a copy: the output
                               may be the source) */
    jf_image *dst;
    int k;
    int ignore;           /* JF_IGNORE_* */
    int32_t invalid[2];  /* the keys ignored (two: +0 and -0 of a float 0) */
    int32_t *work;       /* k^2 keys a worker */
} select_job;

static int is_invalid(const select_job *j, int32_t key)
{
    return j->ignore != JF_IGNORE_NONE && (key == j->invalid[0] || key == j->invalid[1]);
}

static void select_rows(void *arg, int y0, int y1, int worker)
{
    const select_job *j = (const select_job *)arg;
    const int k = j->k, ch = j->src->channels, w = j->src->width;
    const size_t n = (size_t)w * (size_t)ch;
    int32_t *v = j->work + (size_t)worker * (size_t)k * (size_t)k;
    int y, dy, dx;
    size_t i;
    for (y = y0; y < y1; y++) {
        unsigned char *d = j->dst->data + (size_t)y * j->dst->stride;
        for (i = 0; i < n; i++) {
            const size_t x = i / (size_t)ch, c = i % (size_t)ch;
            size_t m = 0;
            int32_t r;
            for (dy = 0; dy < k; dy++) {
                const int32_t *row =
                    (const int32_t *)(const void *)(j->padded->data + (size_t)(y + dy) * j->padded->stride) +
                    x * (size_t)ch + c;
                for (dx = 0; dx < k; dx++) {
                    const int32_t key = row[(size_t)dx * (size_t)ch];
                    if (!is_invalid(j, key))
                        v[m++] = key;
                }
            }
            if (m == 0) /* nothing valid: the sample kept (the window's centre) */
                r = ((const int32_t *)(const void *)(j->padded->data +
                                                     (size_t)(y + k / 2) * j->padded->stride))
                    [(x + (size_t)(k / 2)) * (size_t)ch + c];
            else
                r = select_rank(v, m, (m - 1) / 2);
            row_of_keys(&r, j->dst->sample, d + i * jf_bps(j->dst), 1);
        }
    }
}

static jf_status run_selection(jf_context *ctx, const jf_image *src, int k, jf_border border,
                               jf_image *dst, select_job *job)
{
    const int bands = jf_parallel_bands(ctx, src->height);
    jf_image padded;
    jf_status st;
    int y;
    if ((st = jf_pad_scratch(ctx, src, k / 2, border, &padded)) != JF_OK)
        return st;
    if (jf_bps(src) < sizeof(int32_t)) { /* keys are wider than the samples: a copy of keys */
        jf_image wide = padded;
        const size_t n = (size_t)padded.width * (size_t)padded.channels;
        wide.stride = n * sizeof(int32_t);
        wide.sample = JF_SAMPLE_F32; /* four bytes a sample */
        if (!(wide.data = (unsigned char *)jf_scratch_get(ctx, JF_SCRATCH_ROWS,
                                                          wide.stride * (size_t)padded.height)))
            return JF_ERR_NOMEM;
        for (y = 0; y < padded.height; y++)
            keys_of_row(padded.data + (size_t)y * padded.stride, src->sample,
                        (int32_t *)(void *)(wide.data + (size_t)y * wide.stride), n);
        padded = wide;
    } else {
        for (y = 0; y < padded.height; y++) {
            int32_t *row = (int32_t *)(void *)(padded.data + (size_t)y * padded.stride);
            keys_of_row((const unsigned char *)row, src->sample, row,
                        (size_t)padded.width * (size_t)padded.channels);
        }
    }
    job->src = src;
    job->padded = &padded;
    job->dst = dst;
    job->k = k;
    if (!(job->work = (int32_t *)jf_scratch_get(ctx, JF_SCRATCH_BANDS,
                                                 (size_t)(bands > 0 ? bands : 1) * (size_t)k *
                                                     (size_t)k * sizeof(int32_t))))
        return JF_ERR_NOMEM;
    jf_parallel_for(ctx, src->height, select_rows, job);
    return JF_OK;
}

jf_status jf_median_select_cpu(jf_cpu_call *c)
{
    select_job job;
    memset(&job, 0, sizeof job);
    job.ignore = JF_IGNORE_NONE;
    c->t0 = jf_now_ms();
    return run_selection(c->ctx, c->src, c->k, c->border, c->dst, &job);
}

jf_status jf_median_valid_cpu(jf_context *ctx, const jf_image *src, int k, jf_border border,
                              int ignore, double value, jf_image *dst)
{
    select_job job;
    memset(&job, 0, sizeof job);
    job.ignore = ignore;
    if (ignore == JF_IGNORE_NAN) {
        job.invalid[0] = job.invalid[1] = KEY_NAN;
    } else if (src->sample == JF_SAMPLE_F32) {
        job.invalid[0] = key_of_float((float)value);
        job.invalid[1] = key_of_float(-(float)value); /* 0 stands for -0 too */
        if (value != 0)
            job.invalid[1] = job.invalid[0];
    } else {
        job.invalid[0] = job.invalid[1] = (int32_t)value;
    }
    return run_selection(ctx, src, k, border, dst, &job);
}
