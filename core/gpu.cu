/*
 * The CUDA side of a context: its device and stream, made and released,
 * the device scope every call runs in, and waiting for the stream.  The
 * rest of the context's CUDA state has a file per concern: timers
 * (gpu_timers.cu), buffers and frames (gpu_memory.cu), images to and from
 * the device (gpu_transfer.cu), launch limits (gpu_launch.cu), small arrays
 * kernels read (gpu_params.cu), the copy ceiling (gpu_ceiling.cu).
 *
 * Memory modes (see DESIGN.md):
 *  COPY     device buffers; host images go through pinned staging buffers
 *           and cudaMemcpy2DAsync on the context's stream (discrete GPUs).
 *  MANAGED  buffers from cudaMallocManaged attached to the context's stream,
 *           which CPU and GPU both address.  On an integrated GPU (Jetson) no
 *           bytes move; managed memory stays cached for the CPU, where pinned
 *           memory on the Nano (compute capability 5.3, no I/O coherency) is
 *           uncached.  Attaching to the stream lets the CPU touch the buffer
 *           while other streams run kernels, which devices without
 *           concurrentManagedAccess (the Nano) otherwise forbid.
 *
 * Nothing here waits for the whole device: every copy and every wait is on
 * the context's own stream or on one of its own events.
 */
#include "core/gpu.cuh"
#include "core/profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

jf_status jf_cuda_fail(const char *call, const char *file, int line, cudaError_t err)
{
    const char *base = strrchr(file, '/');
    /* a failed call (an allocation) also leaves its error pending, where the
     * next launch check would report it again under a kernel's name */
    (void)cudaGetLastError();
    return jf_fail(JF_ERR_CUDA, "%s failed (%s:%d): %s", call, base ? base + 1 : file, line,
                   cudaGetErrorString(err));
}

jf_device_scope::jf_device_scope(const jf_context *ctx) : prev(-1), status(JF_OK)
{
    prev = jf_gpu_enter(ctx, &status);
}

jf_device_scope::~jf_device_scope() { jf_gpu_leave(prev); }

extern "C" jf_status jf_gpu_create(jf_context *ctx, const jf_context_options *opt)
{
    struct jf_gpu *g = (struct jf_gpu *)calloc(1, sizeof *g);
    jf_status st;
    if (!g)
        return jf_fail(JF_ERR_NOMEM, "jf_context_create: out of memory");
    ctx->gpu = g;
    g->device = opt->device;
    if ((st = jf_device_query(opt->device, &g->info)) != JF_OK)
        return st;
    jf_profile_attach(ctx, &g->info);
    if (opt->peak_gbps > 0) {
        g->info.theoretical_gbps = opt->peak_gbps;
        snprintf(g->info.theoretical_source, sizeof g->info.theoretical_source, "--peak-gbps");
    }
    jf_device_scope scope(ctx);
    if (scope.status != JF_OK)
        return scope.status;
    g->info.code_cc = jf_device_code_cc();
    if (opt->stream) {
        g->stream = (cudaStream_t)opt->stream;
    } else {
        JF_CUDA_TRY(cudaStreamCreateWithFlags(&g->home, cudaStreamNonBlocking));
        g->stream = g->home;
    }
    g->memory = opt->memory != JF_MEMORY_AUTO ? opt->memory
              : g->info.integrated ? JF_MEMORY_MANAGED : JF_MEMORY_COPY;
    ctx->memory = g->memory;
    JF_CUDA_TRY(cudaEventCreateWithFlags(&g->weights_copied, cudaEventDisableTiming));
    if (opt->stats > 0 && (st = jf_gpu_timers_make(g)) != JF_OK)
        return st;
    return JF_OK;
}

extern "C" void jf_gpu_destroy(jf_context *ctx)
{
    struct jf_gpu *g = ctx->gpu;
    int i;
    if (!g)
        return;
    {
        jf_device_scope scope(ctx);
        if (g->stream)
            cudaStreamSynchronize(g->stream);
        for (i = 0; i < JF_SLOT_COUNT; i++)
            jf_gpu_buffer_release(&g->buf[i]);
        for (i = 0; i < g->timers_made; i++) {
            cudaEventDestroy(g->timers[i].start);
            cudaEventDestroy(g->timers[i].stop);
        }
        if (g->weights_copied)
            cudaEventDestroy(g->weights_copied);
        if (g->handoff)
            cudaEventDestroy(g->handoff);
        cudaFree(g->d_weights);
        cudaFreeHost(g->h_weights);
        if (g->home)
            cudaStreamDestroy(g->home);
        cudaGetLastError(); /* leave no sticky-free error behind for the caller */
    }
    free(g);
    ctx->gpu = NULL;
}

extern "C" const jf_device_info *jf_gpu_info(const jf_context *ctx)
{
    return ctx && ctx->gpu ? &ctx->gpu->info : NULL;
}

extern "C" jf_status jf_context_device(const jf_context *ctx, jf_device_info *info)
{
    if (!ctx || !ctx->gpu || !info)
        return jf_fail(JF_ERR_NO_DEVICE, "jf_context_device: not a CUDA context");
    *info = ctx->gpu->info;
    return JF_OK;
}

extern "C" void *jf_context_stream(const jf_context *ctx)
{
    return ctx && ctx->gpu ? (void *)ctx->gpu->stream : NULL;
}

extern "C" jf_status jf_gpu_set_stream(jf_context *ctx, void *stream)
{
    struct jf_gpu *g = ctx->gpu;
    cudaStream_t next;
    int i;
    jf_device_scope scope(ctx);
    if (scope.status != JF_OK)
        return scope.status;
    if (!stream && !g->home)
        JF_CUDA_TRY(cudaStreamCreateWithFlags(&g->home, cudaStreamNonBlocking));
    next = stream ? (cudaStream_t)stream : g->home;
    if (next == g->stream)
        return JF_OK;
    if (!g->handoff)
        JF_CUDA_TRY(cudaEventCreateWithFlags(&g->handoff, cudaEventDisableTiming));
    /* what was queued on the old stream comes first, with no host wait */
    JF_CUDA_TRY(cudaEventRecord(g->handoff, g->stream));
    JF_CUDA_TRY(cudaStreamWaitEvent(next, g->handoff, 0));
    /* managed buffers are attached to one stream (the Nano lets no other
     * stream's kernels touch them): they follow */
    for (i = 0; i < JF_SLOT_COUNT; i++)
        if (g->buf[i].ptr && g->buf[i].kind == JF_BUF_MANAGED)
            JF_CUDA_TRY(cudaStreamAttachMemAsync(next, g->buf[i].ptr, 0, cudaMemAttachSingle));
    g->stream = next;
    return JF_OK;
}

extern "C" jf_status jf_gpu_order(jf_context *ctx, void *stream)
{
    struct jf_gpu *g = ctx->gpu;
    jf_device_scope scope(ctx);
    if (scope.status != JF_OK)
        return scope.status;
    if ((cudaStream_t)stream == g->stream)
        return JF_OK;
    if (!g->handoff)
        JF_CUDA_TRY(cudaEventCreateWithFlags(&g->handoff, cudaEventDisableTiming));
    JF_CUDA_TRY(cudaEventRecord(g->handoff, g->stream));
    JF_CUDA_TRY(cudaStreamWaitEvent((cudaStream_t)stream, g->handoff, 0));
    return JF_OK;
}

extern "C" jf_status jf_gpu_sync(jf_context *ctx)
{
    jf_device_scope scope(ctx);
    if (scope.status != JF_OK)
        return scope.status;
    JF_CUDA_TRY(cudaStreamSynchronize(ctx->gpu->stream));
    return jf_gpu_collect(ctx);
}

extern "C" int jf_gpu_enter(const jf_context *ctx, jf_status *st)
{
    int prev = -1, want = ctx->gpu->device;
    cudaError_t e;
    *st = JF_OK;
    if (cudaGetDevice(&prev) != cudaSuccess) {
        cudaGetLastError();
        prev = -1;
    }
    if (prev != want && (e = cudaSetDevice(want)) != cudaSuccess)
        *st = jf_cuda_fail("cudaSetDevice", __FILE__, __LINE__, e);
    return prev;
}

extern "C" void jf_gpu_leave(int prev)
{
    int now = -1;
    if (prev >= 0 && cudaGetDevice(&now) == cudaSuccess && now != prev)
        cudaSetDevice(prev);
}
