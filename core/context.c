/* Context: backend choice, CPU thread pool and scratch, CUDA state, stats. */
#include "core/context.h"
#include "core/profile.h"
#include "core/errors.h"
#include "core/gpu.h"
#include "core/image.h"
#include "core/options.h"
#include "core/stats.h"
#include "core/util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

jf_context_options jf_context_defaults(void)
{
    jf_context_options o = JF_CONTEXT_OPTIONS_INIT;
    return o;
}

/* Choose the backend: CUDA when asked or (AUTO) when a device exists. */
static jf_status choose_backend(jf_context *ctx, const jf_context_options *opt)
{
    int devices;
    ctx->backend = JF_BACKEND_CPU;
    if (opt->backend == JF_BACKEND_CPU)
        return JF_OK;
    devices = jf_device_count();
    if (devices > opt->device) {
        ctx->backend = JF_BACKEND_CUDA;
        return JF_OK;
    }
    if (opt->backend == JF_BACKEND_CUDA)
        return devices == 0 ? JF_ERR_NO_DEVICE
                            : jf_fail(JF_ERR_NO_DEVICE, "CUDA device %d requested but only %d present",
                                      opt->device, devices);
    snprintf(ctx->note, sizeof ctx->note, "%s; using the CPU",
             devices == 0 ? jf_last_error() : "requested CUDA device is absent");
    return JF_OK;
}

jf_status jf_context_create(const jf_context_options *user, jf_context **out)
{
    jf_context_options opt = jf_context_defaults();
    jf_context *ctx;
    jf_status st;

    if (!out)
        return jf_fail(JF_ERR_ARG, "jf_context_create: out is NULL");
    *out = NULL;
    if ((st = jf_options_read("jf_context_create", "jf_context_defaults", &opt, sizeof opt,
                              user)) != JF_OK)
        return st;
    if ((unsigned)opt.backend >= JF_BACKEND_COUNT || opt.threads < 0 || opt.threads > 4096 ||
        opt.device < 0 || (unsigned)opt.memory >= JF_MEMORY_COUNT || !(opt.peak_gbps >= 0.0) ||
        opt.stats < 0 || opt.stats > (1 << 24) || (unsigned)opt.codec >= JF_CODEC_COUNT)
        return jf_fail(JF_ERR_ARG, "jf_context_create: invalid options (backend %d, device %d, "
                       "threads %d, memory %d, stats %d, codec %d)", (int)opt.backend, opt.device,
                       opt.threads, (int)opt.memory, opt.stats, (int)opt.codec);
    ctx = (jf_context *)calloc(1, sizeof *ctx);
    if (!ctx)
        return jf_fail(JF_ERR_NOMEM, "jf_context_create: out of memory");
    ctx->threads = opt.threads ? opt.threads : jf_cpu_count();
    ctx->device = opt.device;
    ctx->memory = JF_MEMORY_COPY;
    ctx->codec = opt.codec;
    if ((st = choose_backend(ctx, &opt)) != JF_OK || (st = jf_stats_init(ctx, opt.stats)) != JF_OK)
        goto fail;
#ifdef JF_HAVE_CUDA
    if (ctx->backend == JF_BACKEND_CUDA && (st = jf_gpu_create(ctx, &opt)) != JF_OK)
        goto fail;
#endif
    *out = ctx;
    return JF_OK;
fail:
    jf_context_destroy(ctx);
    return st;
}

jf_status jf_context_temporary(jf_context **out)
{
    jf_context_options o = jf_context_defaults();
    o.backend = JF_BACKEND_CPU;
    return jf_context_create(&o, out);
}

void jf_context_destroy(jf_context *ctx)
{
    int i;
    if (!ctx)
        return;
    if (ctx->codec_state_free)
        ctx->codec_state_free(ctx);
#ifdef JF_HAVE_CUDA
    jf_gpu_destroy(ctx);
#endif
    jf_pool_destroy(ctx->pool);
    jf_profile_free(ctx->profile);
    free(ctx->profile);
    for (i = 0; i < JF_SCRATCH_COUNT; i++)
        free(ctx->scratch[i].ptr);
    jf_stats_release(ctx);
    free(ctx);
}

jf_status jf_context_sync(jf_context *ctx)
{
    if (!ctx)
        return JF_OK;
#ifdef JF_HAVE_CUDA
    if (ctx->gpu)
        return jf_gpu_sync(ctx);
#endif
    return JF_OK;
}

jf_status jf_context_set_stream(jf_context *ctx, void *stream)
{
    if (!ctx)
        return jf_fail(JF_ERR_ARG, "jf_context_set_stream: ctx is NULL");
#ifdef JF_HAVE_CUDA
    if (ctx->gpu)
        return jf_gpu_set_stream(ctx, stream);
#endif
    return stream ? jf_fail(JF_ERR_NO_DEVICE, "jf_context_set_stream: a CPU context has no stream")
                  : JF_OK;
}

jf_status jf_context_order(jf_context *ctx, void *stream)
{
    if (!ctx)
        return jf_fail(JF_ERR_ARG, "jf_context_order: ctx is NULL");
#ifdef JF_HAVE_CUDA
    if (ctx->gpu)
        return jf_gpu_order(ctx, stream);
#endif
    (void)stream;
    return JF_OK;
}

jf_status jf_context_frame(jf_context *ctx, int which, int width, int height, int channels,
                           jf_image *img)
{
    return jf_context_frame_as(ctx, which, width, height, channels, JF_SAMPLE_U8, img);
}

jf_status jf_context_frame_as(jf_context *ctx, int which, int width, int height, int channels,
                              jf_sample sample, jf_image *img)
{
    jf_status st;
    void *p;
    if (!ctx || !img || which < 0 || which > 3)
        return jf_fail(JF_ERR_ARG, "jf_context_frame: %s", !ctx ? "ctx is NULL" : !img
                       ? "img is NULL" : "which must be 0 to 3");
    if (which >= 2 && !ctx->gpu)
        return jf_fail(JF_ERR_NO_DEVICE, "jf_context_frame: frames 2 and 3 are device memory; "
                       "this context runs on the CPU");
    if (width < 1 || height < 1)
        return jf_fail(JF_ERR_ARG, "jf_context_frame: invalid size %dx%d", width, height);
    if (!jf_sample_size(sample))
        return jf_fail(JF_ERR_ARG, "jf_context_frame: unknown sample type %d", (int)sample);
    if ((st = jf_check_dims("jf_context_frame", (uint64_t)width, (uint64_t)height, channels)) != JF_OK)
        return st;
#ifdef JF_HAVE_CUDA
    if (ctx->gpu)
        return jf_gpu_frame(ctx, which, width, height, channels, sample, img);
#endif
    if (!(p = jf_scratch_get(ctx, JF_SCRATCH_FRAME0 + which,
                             (size_t)width * (size_t)channels * jf_sample_size(sample) *
                                 (size_t)height)))
        return JF_ERR_NOMEM;
    *img = jf_image_wrap_as(p, width, height, channels, 0, sample);
    return JF_OK;
}

/* The buffer handed out starts on a 64-byte boundary (a cache line, and
 * every vector width the CPU loops use), which malloc's 16 does not give:
 * `ptr` is malloc's block, 63 bytes longer than `size`. */
void *jf_scratch_get(jf_context *ctx, int slot, size_t bytes)
{
    jf_scratch *s = &ctx->scratch[slot];
    if (bytes == 0)
        bytes = 1;
    if (s->size < bytes) {
        free(s->ptr); /* contents are not kept: no copy */
        s->ptr = bytes <= SIZE_MAX - 63 ? malloc(bytes + 63) : NULL;
        s->size = s->ptr ? bytes : 0;
        if (!s->ptr) {
            jf_fail(JF_ERR_NOMEM, "out of memory for %zu bytes of scratch", bytes);
            return NULL;
        }
    }
    return (void *)(((uintptr_t)s->ptr + 63) & ~(uintptr_t)63);
}

jf_backend jf_context_backend(const jf_context *ctx)
{
    return ctx ? ctx->backend : JF_BACKEND_CPU;
}

const char *jf_context_note(const jf_context *ctx) { return ctx ? ctx->note : ""; }

jf_memory jf_context_memory(const jf_context *ctx) { return ctx ? ctx->memory : JF_MEMORY_COPY; }

int jf_context_threads(const jf_context *ctx)
{
    return ctx ? ctx->threads : jf_cpu_count(); /* made with threads resolved */
}
