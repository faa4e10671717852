/* Stats: a ring of the last records (bounded memory in a frame loop) and
 * running totals per stage that never drop anything. */
#include "core/stats.h"
#include "core/context.h"
#include "core/errors.h"
#include "core/gpu.h"
#include "core/util.h"

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

jf_status jf_stats_init(jf_context *ctx, int capacity)
{
    if (capacity <= 0)
        return JF_OK;
    ctx->stats.ring = (jf_stat *)calloc((size_t)capacity, sizeof *ctx->stats.ring);
    if (!ctx->stats.ring)
        return jf_fail(JF_ERR_NOMEM, "jf_context_create: no memory for %d stats records", capacity);
    ctx->stats.cap = (size_t)capacity;
    return JF_OK;
}

void jf_stats_release(jf_context *ctx)
{
    free(ctx->stats.ring);
    memset(&ctx->stats, 0, sizeof ctx->stats);
}

int jf_stats_on(const jf_context *ctx) { return ctx && ctx->stats.cap > 0; }

size_t jf_stats_count(const jf_context *ctx) { return ctx ? ctx->stats.count : 0; }

const jf_stat *jf_stats_at(const jf_context *ctx, size_t i)
{
    if (!ctx || i >= ctx->stats.count)
        return NULL;
    return &ctx->stats.ring[(ctx->stats.start + i) % ctx->stats.cap];
}

uint64_t jf_stats_dropped(const jf_context *ctx) { return ctx ? ctx->stats.dropped : 0; }

size_t jf_stats_totals(const jf_context *ctx, jf_stat_total *out, size_t max)
{
    size_t n;
    if (!ctx)
        return 0;
    n = ctx->stats.ntotals;
    if (out)
        memcpy(out, ctx->stats.totals, (n < max ? n : max) * sizeof *out);
    return n;
}

void jf_stats_clear(jf_context *ctx)
{
    if (!ctx)
        return;
    ctx->stats.start = ctx->stats.count = 0;
    ctx->stats.dropped = 0;
    ctx->stats.ntotals = 0;
    ctx->stats.epoch++;
}

static void add_total(jf_stats *s, const jf_stat *r)
{
    jf_stat_total *t = NULL;
    size_t i;
    for (i = 0; i < s->ntotals; i++)
        if (strcmp(s->totals[i].name, r->name) == 0 && strcmp(s->totals[i].variant, r->variant) == 0) {
            t = &s->totals[i];
            break;
        }
    if (!t) {
        if (s->ntotals == JF_STAT_TOTALS)
            return;
        t = &s->totals[s->ntotals++];
        memset(t, 0, sizeof *t);
        memcpy(t->name, r->name, sizeof t->name);
        memcpy(t->variant, r->variant, sizeof t->variant);
        t->min_ms = r->ms;
        t->max_ms = r->ms;
    }
    t->calls++;
    t->ms += r->ms;
    t->min_ms = r->ms < t->min_ms ? r->ms : t->min_ms;
    t->max_ms = r->ms > t->max_ms ? r->ms : t->max_ms;
    t->bytes_read += r->bytes_read;
    t->bytes_written += r->bytes_written;
    t->peak_gbps = r->peak_gbps;
}

void jf_stats_add(jf_context *ctx, const jf_stat *stat)
{
    jf_stats *s;
    if (!jf_stats_on(ctx) || !stat)
        return;
    s = &ctx->stats;
    if (s->count == s->cap) { /* full: the oldest record goes */
        s->start = (s->start + 1) % s->cap;
        s->count--;
        s->dropped++;
    }
    s->ring[(s->start + s->count) % s->cap] = *stat;
    s->count++;
    add_total(s, stat);
}

void jf_record(jf_context *ctx, const char *name, const char *variant, int ksize,
               const jf_image *img, double ms, uint64_t bytes_read, uint64_t bytes_written)
{
    jf_stat s;
    if (!jf_stats_on(ctx))
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

jf_status jf_measure_copy_gbps(jf_context *ctx, size_t bytes, int reps, double *gbps)
{
    double t[64];
    unsigned char *a, *b;
    int i;
    (void)ctx;
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
