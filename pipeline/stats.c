/* Stats sink: one record per timed stage or kernel. */
#include "pipeline/context.h"
#include "pipeline/errors.h"

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
