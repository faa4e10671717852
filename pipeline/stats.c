/* Stats sink: one record per timed stage or kernel. */
#include "pipeline/context.h"
#include "pipeline/errors.h"
#include "pipeline/gpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double jf_stat_gbps(const jf_stat *s)
{
    if (!s || s->ms <= 0.0)
        return 0.0;
    return (double)(s->bytes_read + s->bytes_written) / (s->ms * 1e6);
}

double jf_stat_percent(const jf_stat *s)
{
    return s && s->peak_gbps > 0.0 ? 100.0 * jf_stat_gbps(s) / s->peak_gbps : 0.0;
}

size_t jf_stats_count(const jf_context *ctx) { return ctx ? ctx->stats_count : 0; }

const jf_stat *jf_stats_at(const jf_context *ctx, size_t i)
{
    return ctx && i < ctx->stats_count ? &ctx->stats[i] : NULL;
}

void jf_stats_clear(jf_context *ctx)
{
    if (ctx)
        ctx->stats_count = 0;
}

jf_status jf_stats_add(jf_context *ctx, const jf_stat *stat)
{
    if (!ctx || !stat)
        return jf_fail(JF_ERR_ARG, "jf_stats_add: NULL argument");
    if (ctx->stats_count == ctx->stats_cap) {
        size_t cap = ctx->stats_cap ? ctx->stats_cap * 2 : 32;
        jf_stat *grown = (jf_stat *)realloc(ctx->stats, cap * sizeof *grown);
        if (!grown)
            return jf_fail(JF_ERR_NOMEM, "jf_stats_add: out of memory");
        ctx->stats = grown;
        ctx->stats_cap = cap;
    }
    ctx->stats[ctx->stats_count++] = *stat;
    return JF_OK;
}

void jf_record(jf_context *ctx, const char *name, const char *variant, int ksize,
               const jf_image *img, double ms, uint64_t bytes_read,
               uint64_t bytes_written)
{
    jf_stat s;
    if (!ctx)
        return;
    memset(&s, 0, sizeof s);
    snprintf(s.name, sizeof s.name, "%s", name);
    snprintf(s.variant, sizeof s.variant, "%s", variant ? variant : "");
    s.ksize = ksize;
    if (img) {
        s.width = img->width;
        s.height = img->height;
        s.channels = img->channels;
    }
    s.ms = ms;
    s.bytes_read = bytes_read;
    s.bytes_written = bytes_written;
    jf_stats_add(ctx, &s);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double jf_sort_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}

jf_status jf_measure_copy_gbps(jf_context *ctx, size_t bytes, int reps, double *gbps)
{
    double t[64];
    unsigned char *a, *b;
    int i;
    if (!gbps || bytes == 0)
        return jf_fail(JF_ERR_ARG, "jf_measure_copy_gbps: invalid arguments");
    if (reps < 1) reps = 1;
    if (reps > 64) reps = 64;
#ifdef JF_HAVE_CUDA
    if (jf_context_backend(ctx) == JF_BACKEND_CUDA)
        return jf_gpu_copy_ceiling(ctx, bytes, reps, gbps);
#endif
    a = (unsigned char *)malloc(bytes);
    b = (unsigned char *)malloc(bytes);
    if (!a || !b) {
        free(a);
        free(b);
        return jf_fail(JF_ERR_NOMEM, "jf_measure_copy_gbps: cannot allocate 2 x %zu bytes", bytes);
    }
    memset(a, 0x5A, bytes);
    memset(b, 0xA5, bytes); /* touch every page before timing */
    for (i = -1; i < reps; i++) {
        double t0 = jf_now_ms();
        memcpy(b, a, bytes);
        if (i >= 0)
            t[i] = jf_now_ms() - t0;
        a[(size_t)i % bytes] ^= b[bytes / 2]; /* keep the copies observable */
    }
    free(a);
    free(b);
    *gbps = 2.0 * (double)bytes / (jf_sort_median(t, reps) * 1e6);
    return JF_OK;
}
