/* Context: backend choice, CPU threads, CUDA stream, stats sink. */
#include "pipeline/context.h"
#include "pipeline/errors.h"
#include "pipeline/gpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *jf_backend_name(jf_backend backend)
{
    static const char *const names[JF_BACKEND_COUNT] = {"auto", "cpu", "cuda"};
    return (unsigned)backend < JF_BACKEND_COUNT ? names[backend] : "?";
}

const char *jf_border_name(jf_border border)
{
    static const char *const names[JF_BORDER_COUNT] = {"zero", "replicate", "reflect", "mirror"};
    return (unsigned)border < JF_BORDER_COUNT ? names[border] : "?";
}

const char *jf_variant_name(jf_variant variant)
{
    static const char *const names[JF_VARIANT_COUNT] = {"auto", "cpu", "global", "shared", "fast"};
    return (unsigned)variant < JF_VARIANT_COUNT ? names[variant] : "?";
}

jf_status jf_context_create(const jf_context_options *opt, jf_context **out)
{
    jf_context_options defaults = {JF_BACKEND_AUTO, 0, 0, NULL, JF_MEMORY_AUTO, 0.0};
    jf_context *ctx;
    int devices;

    if (!out)
        return jf_fail(JF_ERR_ARG, "jf_context_create: out is NULL");
    *out = NULL;
    if (!opt)
        opt = &defaults;
    if ((unsigned)opt->backend >= JF_BACKEND_COUNT || opt->threads < 0 || opt->device < 0 ||
        (unsigned)opt->memory >= JF_MEMORY_COUNT || !(opt->peak_gbps >= 0.0))
        return jf_fail(JF_ERR_ARG, "jf_context_create: invalid options");
    ctx = (jf_context *)calloc(1, sizeof *ctx);
    if (!ctx)
        return jf_fail(JF_ERR_NOMEM, "jf_context_create: out of memory");
    ctx->threads = opt->threads ? opt->threads : jf_cpu_count();
    ctx->device = opt->device;
    ctx->stream = opt->stream;
    ctx->backend = JF_BACKEND_CPU;
    ctx->memory = JF_MEMORY_COPY;

    if (opt->backend != JF_BACKEND_CPU) {
        devices = jf_device_count();
        if (devices > opt->device) {
            ctx->backend = JF_BACKEND_CUDA;
        } else if (opt->backend == JF_BACKEND_CUDA) {
            jf_status st = devices == 0
                ? JF_ERR_NO_DEVICE
                : jf_fail(JF_ERR_NO_DEVICE, "CUDA device %d requested but only %d present",
                          opt->device, devices);
            free(ctx);
            return st;
        } else {
            snprintf(ctx->note, sizeof ctx->note, "%s; using the CPU",
                     devices == 0 ? jf_last_error() : "requested CUDA device is absent");
        }
    }
#ifdef JF_HAVE_CUDA
    if (ctx->backend == JF_BACKEND_CUDA) {
        jf_status st = jf_gpu_create(ctx, opt);
        if (st != JF_OK) {
            jf_context_destroy(ctx);
            return st;
        }
    }
#endif
    *out = ctx;
    return JF_OK;
}

void jf_context_destroy(jf_context *ctx)
{
    if (!ctx)
        return;
#ifdef JF_HAVE_CUDA
    jf_gpu_destroy(ctx);
#endif
    free(ctx->stats);
    free(ctx);
}

jf_backend jf_context_backend(const jf_context *ctx)
{
    return ctx ? ctx->backend : JF_BACKEND_CPU;
}

const char *jf_context_note(const jf_context *ctx) { return ctx ? ctx->note : ""; }

jf_memory jf_context_memory(const jf_context *ctx) { return ctx ? ctx->memory : JF_MEMORY_COPY; }

int jf_context_threads(const jf_context *ctx) { return jf_threads_of(ctx); }

int jf_threads_of(const jf_context *ctx)
{
    return ctx && ctx->threads > 0 ? ctx->threads : jf_cpu_count();
}
