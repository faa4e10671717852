/* Event timers around a context's GPU work, turned into stats once the
 * work is known to be done, and host-side steps timed on the CPU clock. */
#include "core/gpu.cuh"
#include "core/stats.h"

#include <stdio.h>
#include <string.h>

jf_status jf_gpu_timers_make(struct jf_gpu *g)
{
    int i;
    for (i = 0; i < JF_MAX_TIMERS; i++) {
        JF_CUDA_TRY(cudaEventCreate(&g->timers[i].start));
        JF_CUDA_TRY(cudaEventCreate(&g->timers[i].stop));
        g->timers_made = i + 1;
    }
    return JF_OK;
}

/* Turn the oldest pending timer into a stats record (its work is done). */
static jf_status collect_oldest(jf_context *ctx)
{
    struct jf_gpu *g = ctx->gpu;
    jf_timer *t = &g->timers[g->timer_head];
    jf_stat s;
    float ms = 0.0f;
    if (!t->host) {
        JF_CUDA_TRY(cudaEventSynchronize(t->stop));
        JF_CUDA_TRY(cudaEventElapsedTime(&ms, t->start, t->stop));
    }
    memset(&s, 0, sizeof s);
    memcpy(s.name, t->name, sizeof s.name);
    memcpy(s.variant, t->variant, sizeof s.variant);
    s.ksize = t->ksize;
    s.width = t->width;
    s.height = t->height;
    s.channels = t->channels;
    s.ms = t->host ? t->host_ms : (double)ms;
    s.bytes_read = t->bytes_read;
    s.bytes_written = t->bytes_written;
    s.peak_gbps = t->host ? 0.0 : g->info.theoretical_gbps;
    if (t->epoch == ctx->stats.epoch) /* else started before a jf_stats_clear */
        jf_stats_add(ctx, &s);
    g->timer_head = (g->timer_head + 1) % JF_MAX_TIMERS;
    g->timer_pending--;
    return JF_OK;
}

jf_status jf_gpu_collect(jf_context *ctx)
{
    jf_status st;
    while (ctx->gpu->timer_pending > 0)
        if ((st = collect_oldest(ctx)) != JF_OK)
            return st;
    return JF_OK;
}

/* The next free timer; when all are pending the oldest is collected first
 * (a wait on our own earlier work only, and only with stats on). */
static jf_status next_timer(jf_context *ctx, int *id)
{
    struct jf_gpu *g = ctx->gpu;
    jf_status st;
    if (g->timer_pending == JF_MAX_TIMERS && (st = collect_oldest(ctx)) != JF_OK)
        return st;
    *id = (g->timer_head + g->timer_pending) % JF_MAX_TIMERS;
    g->timer_pending++;
    memset(g->timers[*id].name, 0, sizeof g->timers[*id].name);
    g->timers[*id].host = 0;
    g->timers[*id].epoch = ctx->stats.epoch;
    return JF_OK;
}

jf_status jf_gpu_timer_start(jf_context *ctx, int *id)
{
    jf_status st;
    *id = -1;
    if (!jf_stats_on(ctx) || !ctx->gpu->timers_made)
        return JF_OK;
    if ((st = next_timer(ctx, id)) != JF_OK)
        return st;
    JF_CUDA_TRY(cudaEventRecord(ctx->gpu->timers[*id].start, ctx->gpu->stream));
    return JF_OK;
}

static void timer_fill(jf_timer *t, const char *name, const char *variant, int ksize,
                       const jf_image *shape, uint64_t r, uint64_t w)
{
    snprintf(t->name, sizeof t->name, "%s", name);
    snprintf(t->variant, sizeof t->variant, "%s", variant ? variant : "");
    t->ksize = ksize;
    t->width = shape ? shape->width : 0;
    t->height = shape ? shape->height : 0;
    t->channels = shape ? shape->channels : 0;
    t->bytes_read = r;
    t->bytes_written = w;
}

jf_status jf_gpu_timer_stop(jf_context *ctx, int id, const char *name, const char *variant,
                            int ksize, const jf_image *shape, uint64_t r, uint64_t w)
{
    struct jf_gpu *g = ctx->gpu;
    if (id < 0)
        return JF_OK;
    timer_fill(&g->timers[id], name, variant, ksize, shape, r, w);
    JF_CUDA_TRY(cudaEventRecord(g->timers[id].stop, g->stream));
    return JF_OK;
}

/* Host-side step (copies through staging or managed memory): CPU clock. */
jf_status jf_gpu_host_timer(jf_context *ctx, const char *name, const jf_image *shape, double ms,
                            uint64_t r, uint64_t w)
{
    struct jf_gpu *g = ctx->gpu;
    jf_status st;
    int id;
    if (!jf_stats_on(ctx) || !g->timers_made)
        return JF_OK;
    if ((st = next_timer(ctx, &id)) != JF_OK)
        return st;
    timer_fill(&g->timers[id], name, jf_memory_name(g->memory), 0, shape, r, w);
    g->timers[id].host = 1;
    g->timers[id].host_ms = ms;
    return JF_OK;
}
