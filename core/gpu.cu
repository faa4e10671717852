/*
 * The CUDA side of a context: device and stream, buffers kept between calls,
 * moving images to and from the device, event timers that become stats, the
 * convolution weights, and the launch limits every kernel is checked against.
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
#include "core/stats.h"
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

jf_status jf_cuda_fail(const char *call, const char *file, int line, cudaError_t err)
{
    const char *base = strrchr(file, '/');
    return jf_fail(JF_ERR_CUDA, "%s failed (%s:%d): %s", call, base ? base + 1 : file, line,
                   cudaGetErrorString(err));
}

jf_device_scope::jf_device_scope(const jf_context *ctx) : prev(-1), status(JF_OK)
{
    prev = jf_gpu_enter(ctx, &status);
}

jf_device_scope::~jf_device_scope() { jf_gpu_leave(prev); }

static jf_status make_timers(struct jf_gpu *g)
{
    int i;
    for (i = 0; i < JF_MAX_TIMERS; i++) {
        JF_CUDA_TRY(cudaEventCreate(&g->timers[i].start));
        JF_CUDA_TRY(cudaEventCreate(&g->timers[i].stop));
        g->timers_made = i + 1;
    }
    return JF_OK;
}

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
    if (opt->stream) {
        g->stream = (cudaStream_t)opt->stream;
    } else {
        JF_CUDA_TRY(cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking));
        g->own_stream = 1;
    }
    g->memory = opt->memory != JF_MEMORY_AUTO ? opt->memory
              : g->info.integrated ? JF_MEMORY_MANAGED : JF_MEMORY_COPY;
    ctx->memory = g->memory;
    JF_CUDA_TRY(cudaEventCreateWithFlags(&g->weights_copied, cudaEventDisableTiming));
    if (opt->stats > 0 && (st = make_timers(g)) != JF_OK)
        return st;
    return JF_OK;
}

static void buffer_release(jf_buffer *b)
{
    if (!b->ptr)
        return;
    if (b->kind == JF_BUF_PINNED)
        cudaFreeHost(b->ptr);
    else
        cudaFree(b->ptr);
    memset(b, 0, sizeof *b);
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
            buffer_release(&g->buf[i]);
        for (i = 0; i < g->timers_made; i++) {
            cudaEventDestroy(g->timers[i].start);
            cudaEventDestroy(g->timers[i].stop);
        }
        if (g->weights_copied)
            cudaEventDestroy(g->weights_copied);
        cudaFree(g->d_weights);
        cudaFreeHost(g->h_weights);
        if (g->own_stream && g->stream)
            cudaStreamDestroy(g->stream);
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

/* ---- timers -------------------------------------------------------------- */

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

static jf_status collect_all(jf_context *ctx)
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
static jf_status host_timer(jf_context *ctx, const char *name, const jf_image *shape, double ms,
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

extern "C" jf_status jf_gpu_sync(jf_context *ctx)
{
    jf_device_scope scope(ctx);
    if (scope.status != JF_OK)
        return scope.status;
    JF_CUDA_TRY(cudaStreamSynchronize(ctx->gpu->stream));
    return collect_all(ctx);
}

/* ---- buffers and transfers ------------------------------------------------- */

jf_status jf_gpu_buffer(jf_context *ctx, int slot, size_t width_bytes, size_t rows, int kind,
                        jf_dview *view)
{
    struct jf_gpu *g = ctx->gpu;
    jf_buffer *b = &g->buf[slot];
    if (width_bytes == 0) width_bytes = 1;
    if (rows == 0) rows = 1;
    if (!b->ptr || b->kind != kind || b->pitch < width_bytes || b->rows < rows) {
        size_t pitch = b->ptr && b->kind == kind && b->pitch > width_bytes ? b->pitch : width_bytes;
        size_t nrows = b->ptr && b->kind == kind && b->rows > rows ? b->rows : rows;
        void *p = NULL;
        /* the old buffer may still be read by queued work on our stream */
        JF_CUDA_TRY(cudaStreamSynchronize(g->stream));
        buffer_release(b);
        if (kind == JF_BUF_DEVICE) {
            JF_CUDA_TRY(cudaMallocPitch(&p, &b->pitch, pitch, nrows));
        } else {
            /* rows 128-byte aligned so kernels read them coalesced */
            pitch = (pitch + 127) & ~(size_t)127;
            if (kind == JF_BUF_PINNED) {
                JF_CUDA_TRY(cudaHostAlloc(&p, pitch * nrows, cudaHostAllocDefault));
            } else {
                cudaError_t e;
                JF_CUDA_TRY(cudaMallocManaged(&p, pitch * nrows, cudaMemAttachHost));
                if ((e = cudaStreamAttachMemAsync(g->stream, p, 0, cudaMemAttachSingle)) != cudaSuccess) {
                    cudaFree(p);
                    return jf_cuda_fail("cudaStreamAttachMemAsync", __FILE__, __LINE__, e);
                }
            }
            b->pitch = pitch;
        }
        b->ptr = (unsigned char *)p;
        b->rows = nrows;
        b->kind = kind;
    }
    view->ptr = b->ptr;
    view->pitch = b->pitch;
    return JF_OK;
}

void jf_gpu_begin(jf_context *ctx) { ctx->gpu->must_sync = 0; }

/* Device pointer for an image the GPU can address directly. */
static jf_status direct_view(const jf_image *img, jf_dview *view, int *direct)
{
    *direct = 0;
    view->pitch = img->stride;
    if (img->location == JF_LOC_DEVICE || img->location == JF_LOC_MANAGED) {
        view->ptr = img->data;
        *direct = 1;
    } else if (img->location == JF_LOC_MAPPED) {
        JF_CUDA_TRY(cudaHostGetDevicePointer((void **)&view->ptr, img->data, 0));
        *direct = 1;
    }
    return JF_OK;
}

/* Is this host image one of the context's page-locked frames?  Then the
 * copy engine reads or writes it directly: no staging copy. */
static int pinned_frame(const struct jf_gpu *g, const jf_image *img)
{
    int s;
    if (img->location != JF_LOC_HOST)
        return 0;
    for (s = JF_SLOT_FRAME0; s <= JF_SLOT_FRAME1; s++) {
        const jf_buffer *b = &g->buf[s];
        if (b->ptr && b->kind == JF_BUF_PINNED && img->data >= b->ptr &&
            img->data + (size_t)(img->height - 1) * img->stride +
                    jf_row_bytes(img) <= b->ptr + b->pitch * b->rows)
            return 1;
    }
    return 0;
}

static void copy_rows(unsigned char *dst, size_t dst_pitch, const unsigned char *src,
                      size_t src_pitch, size_t row_bytes, int rows)
{
    int y;
    for (y = 0; y < rows; y++)
        memcpy(dst + (size_t)y * dst_pitch, src + (size_t)y * src_pitch, row_bytes);
}

jf_status jf_gpu_input(jf_context *ctx, const jf_image *src, int slot, jf_dview *view)
{
    struct jf_gpu *g = ctx->gpu;
    size_t row = jf_row_bytes(src);
    uint64_t bytes = (uint64_t)row * (uint64_t)src->height;
    jf_dview stage;
    jf_status st;
    int direct, id;
    double t0;

    if ((st = direct_view(src, view, &direct)) != JF_OK || direct)
        return st;
    g->must_sync = 1;
    t0 = jf_now_ms();
    if (g->memory == JF_MEMORY_MANAGED) {
        if ((st = jf_gpu_buffer(ctx, slot, row, (size_t)src->height, JF_BUF_MANAGED, view)) != JF_OK)
            return st;
        JF_CUDA_TRY(cudaStreamSynchronize(g->stream)); /* the CPU may touch it now */
        copy_rows(view->ptr, view->pitch, src->data, src->stride, row, src->height);
        return host_timer(ctx, "upload", src, jf_now_ms() - t0, bytes, bytes);
    }
    if (pinned_frame(g, src)) { /* straight from the decoder's buffer */
        if ((st = jf_gpu_buffer(ctx, slot, row, (size_t)src->height, JF_BUF_DEVICE, view)) != JF_OK ||
            (st = jf_gpu_timer_start(ctx, &id)) != JF_OK)
            return st;
        JF_CUDA_TRY(cudaMemcpy2DAsync(view->ptr, view->pitch, src->data, src->stride, row,
                                      (size_t)src->height, cudaMemcpyHostToDevice, g->stream));
        return jf_gpu_timer_stop(ctx, id, "upload", "pinned", 0, src, bytes, bytes);
    }
    if ((st = jf_gpu_buffer(ctx, JF_SLOT_STAGE_IN, row, (size_t)src->height, JF_BUF_PINNED, &stage)) != JF_OK ||
        (st = jf_gpu_buffer(ctx, slot, row, (size_t)src->height, JF_BUF_DEVICE, view)) != JF_OK)
        return st;
    JF_CUDA_TRY(cudaStreamSynchronize(g->stream)); /* staging buffer free again */
    copy_rows(stage.ptr, stage.pitch, src->data, src->stride, row, src->height);
    if ((st = host_timer(ctx, "stage", src, jf_now_ms() - t0, bytes, bytes)) != JF_OK ||
        (st = jf_gpu_timer_start(ctx, &id)) != JF_OK)
        return st;
    JF_CUDA_TRY(cudaMemcpy2DAsync(view->ptr, view->pitch, stage.ptr, stage.pitch, row,
                                  (size_t)src->height, cudaMemcpyHostToDevice, g->stream));
    return jf_gpu_timer_stop(ctx, id, "upload", "pinned", 0, src, bytes, bytes);
}

jf_status jf_gpu_output(jf_context *ctx, const jf_image *dst, jf_dview *view)
{
    size_t row = jf_row_bytes(dst);
    jf_status st;
    int direct;
    if ((st = direct_view(dst, view, &direct)) != JF_OK || direct)
        return st;
    ctx->gpu->must_sync = 1;
    return jf_gpu_buffer(ctx, JF_SLOT_OUT, row, (size_t)dst->height,
                         ctx->gpu->memory == JF_MEMORY_MANAGED ? JF_BUF_MANAGED : JF_BUF_DEVICE, view);
}

jf_status jf_gpu_finish(jf_context *ctx, jf_image *dst, const jf_dview *view)
{
    struct jf_gpu *g = ctx->gpu;
    jf_status st;
    int id;
    if (dst && view && dst->location == JF_LOC_HOST) {
        size_t row = jf_row_bytes(dst);
        uint64_t bytes = (uint64_t)row * (uint64_t)dst->height;
        double t0;
        if (g->memory == JF_MEMORY_MANAGED) {
            JF_CUDA_TRY(cudaStreamSynchronize(g->stream));
            t0 = jf_now_ms();
            copy_rows(dst->data, dst->stride, view->ptr, view->pitch, row, dst->height);
            if ((st = host_timer(ctx, "download", dst, jf_now_ms() - t0, bytes, bytes)) != JF_OK)
                return st;
        } else if (pinned_frame(g, dst)) { /* straight into the encoder's buffer */
            if ((st = jf_gpu_timer_start(ctx, &id)) != JF_OK)
                return st;
            JF_CUDA_TRY(cudaMemcpy2DAsync(dst->data, dst->stride, view->ptr, view->pitch, row,
                                          (size_t)dst->height, cudaMemcpyDeviceToHost, g->stream));
            if ((st = jf_gpu_timer_stop(ctx, id, "download", "pinned", 0, dst, bytes, bytes)) != JF_OK)
                return st;
        } else {
            jf_dview stage;
            if ((st = jf_gpu_buffer(ctx, JF_SLOT_STAGE_OUT, row, (size_t)dst->height, JF_BUF_PINNED,
                                    &stage)) != JF_OK ||
                (st = jf_gpu_timer_start(ctx, &id)) != JF_OK)
                return st;
            JF_CUDA_TRY(cudaMemcpy2DAsync(stage.ptr, stage.pitch, view->ptr, view->pitch, row,
                                          (size_t)dst->height, cudaMemcpyDeviceToHost, g->stream));
            if ((st = jf_gpu_timer_stop(ctx, id, "download", "pinned", 0, dst, bytes, bytes)) != JF_OK)
                return st;
            JF_CUDA_TRY(cudaStreamSynchronize(g->stream));
            t0 = jf_now_ms();
            copy_rows(dst->data, dst->stride, stage.ptr, stage.pitch, row, dst->height);
            if ((st = host_timer(ctx, "unstage", dst, jf_now_ms() - t0, bytes, bytes)) != JF_OK)
                return st;
        }
    }
    if (!g->must_sync)
        return JF_OK; /* device images only: the work stays queued */
    JF_CUDA_TRY(cudaStreamSynchronize(g->stream));
    return collect_all(ctx);
}

/* ---- convolution weights ----------------------------------------------------- */

jf_status jf_gpu_weights(jf_context *ctx, const float *w, int k, const float **d_weights)
{
    struct jf_gpu *g = ctx->gpu;
    const size_t n = sizeof(float) * (size_t)k * (size_t)k;
    const size_t cap = sizeof(float) * JF_CONV_MAX_KSIZE * JF_CONV_MAX_KSIZE;
    if (!g->d_weights) {
        void *d = NULL, *h = NULL;
        JF_CUDA_TRY(cudaMalloc(&d, cap));
        g->d_weights = (float *)d;
        JF_CUDA_TRY(cudaHostAlloc(&h, cap, cudaHostAllocDefault));
        g->h_weights = (float *)h;
    }
    *d_weights = g->d_weights;
    if (g->weights_k == k && memcmp(g->h_weights, w, n) == 0)
        return JF_OK; /* a batch with one kernel uploads once */
    /* the staging buffer may still be read by our previous upload */
    JF_CUDA_TRY(cudaEventSynchronize(g->weights_copied));
    memcpy(g->h_weights, w, n);
    g->weights_k = 0;
    JF_CUDA_TRY(cudaMemcpyAsync(g->d_weights, g->h_weights, n, cudaMemcpyHostToDevice, g->stream));
    JF_CUDA_TRY(cudaEventRecord(g->weights_copied, g->stream));
    g->weights_k = k;
    return JF_OK;
}

/* ---- launch limits ---------------------------------------------------------- */

static jf_status kernel_attr(jf_context *ctx, const void *func, jf_kernel_attr **out)
{
    struct jf_gpu *g = ctx->gpu;
    cudaFuncAttributes a;
    int i;
    for (i = 0; i < g->nkernels; i++)
        if (g->kernels[i].func == func) {
            *out = &g->kernels[i];
            return JF_OK;
        }
    JF_CUDA_TRY(cudaFuncGetAttributes(&a, func));
    i = g->nkernels < JF_MAX_KERNELS ? g->nkernels++ : JF_MAX_KERNELS - 1;
    g->kernels[i].func = func;
    g->kernels[i].regs = a.numRegs;
    g->kernels[i].max_threads = a.maxThreadsPerBlock;
    g->kernels[i].static_smem = a.sharedSizeBytes;
    *out = &g->kernels[i];
    return JF_OK;
}

/* Registers a block of `threads` takes: whole warps, 256-register units per
 * warp (the allocation granularity from Maxwell to Hopper). */
static long block_registers(int regs, int threads)
{
    long per_warp = ((long)regs * 32 + 255) / 256 * 256;
    return per_warp * ((threads + 31) / 32);
}

static jf_status check_launch(jf_context *ctx, const void *func, const char *what, int threads,
                              size_t dyn_smem, int record)
{
    const jf_device_info *d = &ctx->gpu->info;
    jf_kernel_attr *a = NULL;
    jf_status st;
    size_t smem;
    if ((st = kernel_attr(ctx, func, &a)) != JF_OK)
        return st;
    smem = a->static_smem + dyn_smem;
    if (threads > a->max_threads || threads > d->max_threads_per_block ||
        block_registers(a->regs, threads) > d->registers_per_block)
        return record ? jf_fail(JF_ERR_ARG, "%s: a block of %d threads needs %ld registers "
                                "(%d per thread); this device allows %d per block and %d threads; "
                                "use a smaller block", what, threads,
                                block_registers(a->regs, threads), a->regs, d->registers_per_block,
                                a->max_threads < d->max_threads_per_block ? a->max_threads
                                                                         : d->max_threads_per_block)
                      : JF_ERR_ARG;
    if (smem > (size_t)d->shared_per_block_optin)
        return record ? jf_fail(JF_ERR_ARG, "%s: needs %zu bytes of shared memory per block; this "
                                "device allows %d; use a smaller block", what, smem,
                                d->shared_per_block_optin)
                      : JF_ERR_ARG;
    /* always the device's whole opt-in, so concurrent launches never lower
     * the limit under each other */
    if (smem > (size_t)d->shared_per_block)
        JF_CUDA_TRY(cudaFuncSetAttribute(func, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         d->shared_per_block_optin - (int)a->static_smem));
    return JF_OK;
}

jf_status jf_gpu_launch_fits(jf_context *ctx, const void *func, const char *what, int threads,
                             size_t dyn_smem)
{
    return check_launch(ctx, func, what, threads, dyn_smem, 1);
}

int jf_gpu_launch_ok(jf_context *ctx, const void *func, int threads, size_t dyn_smem)
{
    return check_launch(ctx, func, "", threads, dyn_smem, 0) == JF_OK;
}

/* ---- images on the device ---------------------------------------------------- */

extern "C" jf_status jf_gpu_image_alloc(jf_context *ctx, jf_image *img, int w, int h, int ch,
                                        jf_sample sample, jf_location loc)
{
    size_t row = (size_t)w * (size_t)ch * jf_sample_size(sample), pitch = row;
    void *p = NULL;
    cudaError_t e;
    jf_device_scope scope(ctx);
    if (scope.status != JF_OK)
        return scope.status;
    memset(img, 0, sizeof *img);
    switch (loc) {
    case JF_LOC_DEVICE:
        JF_CUDA_TRY(cudaMallocPitch(&p, &pitch, row, (size_t)h));
        break;
    case JF_LOC_MAPPED:
        JF_CUDA_TRY(cudaHostAlloc(&p, row * (size_t)h, cudaHostAllocMapped));
        break;
    case JF_LOC_MANAGED:
        JF_CUDA_TRY(cudaMallocManaged(&p, row * (size_t)h, cudaMemAttachHost));
        if ((e = cudaStreamAttachMemAsync(ctx->gpu->stream, p, 0, cudaMemAttachSingle)) != cudaSuccess ||
            (e = cudaStreamSynchronize(ctx->gpu->stream)) != cudaSuccess) {
            cudaFree(p);
            return jf_cuda_fail("cudaStreamAttachMemAsync", __FILE__, __LINE__, e);
        }
        break;
    default:
        return jf_fail(JF_ERR_ARG, "jf_image_alloc_on: unknown location %d", (int)loc);
    }
    img->data = (unsigned char *)p;
    img->width = w;
    img->height = h;
    img->channels = ch;
    img->stride = pitch;
    img->location = loc;
    img->owned = 1;
    img->sample = sample;
    img->device = ctx->gpu->device;
    return JF_OK;
}

/* An image over one of the context's slots, after the slot's last user on
 * our stream is done. */
static jf_status slot_image(jf_context *ctx, int slot, int kind, jf_location loc, int w, int h,
                            int ch, jf_sample sample, jf_image *img)
{
    jf_dview view;
    jf_status st;
    JF_CUDA_TRY(cudaStreamSynchronize(ctx->gpu->stream));
    if ((st = jf_gpu_buffer(ctx, slot, (size_t)w * (size_t)ch * jf_sample_size(sample), (size_t)h,
                            kind, &view)) != JF_OK)
        return st;
    memset(img, 0, sizeof *img);
    img->data = view.ptr;
    img->width = w;
    img->height = h;
    img->channels = ch;
    img->stride = view.pitch;
    img->location = loc;
    img->sample = sample;
    img->device = ctx->gpu->device;
    return JF_OK;
}

/* A frame: the context's FRAME slot; 0 and 1 pinned (copy mode) or managed
 * and attached to our stream (managed mode), 2 and 3 device memory. */
extern "C" jf_status jf_gpu_frame(jf_context *ctx, int which, int w, int h, int ch,
                                  jf_sample sample, jf_image *img)
{
    const int managed = ctx->gpu->memory == JF_MEMORY_MANAGED;
    jf_status st;
    jf_device_scope scope(ctx);
    if (scope.status != JF_OK)
        return scope.status;
    if (which >= 2)
        return slot_image(ctx, JF_SLOT_FRAME0 + which, JF_BUF_DEVICE, JF_LOC_DEVICE, w, h, ch,
                          sample, img);
    if ((st = slot_image(ctx, JF_SLOT_FRAME0 + which, managed ? JF_BUF_MANAGED : JF_BUF_PINNED,
                         managed ? JF_LOC_MANAGED : JF_LOC_HOST, w, h, ch, sample, img)) != JF_OK)
        return st;
    if (managed) /* attached to our stream: the CPU may use it while it is idle */
        JF_CUDA_TRY(cudaStreamSynchronize(ctx->gpu->stream));
    return JF_OK;
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

extern "C" void jf_gpu_image_free(jf_image *img)
{
    if (img->location == JF_LOC_MAPPED)
        cudaFreeHost(img->data);
    else
        cudaFree(img->data);
}

extern "C" jf_status jf_gpu_transfer(jf_context *ctx, const jf_image *src, jf_image *dst)
{
    size_t row = jf_row_bytes(src);
    jf_device_scope scope(ctx);
    if (scope.status != JF_OK)
        return scope.status;
    JF_CUDA_TRY(cudaMemcpy2DAsync(dst->data, dst->stride, src->data, src->stride, row,
                                  (size_t)src->height, cudaMemcpyDefault, ctx->gpu->stream));
    JF_CUDA_TRY(cudaStreamSynchronize(ctx->gpu->stream));
    return collect_all(ctx);
}

/* Device-to-device copy of `bytes`, timed with events; median of reps. */
extern "C" jf_status jf_gpu_copy_ceiling(jf_context *ctx, size_t bytes, int reps, double *gbps)
{
    struct jf_gpu *g = ctx->gpu;
    void *a = NULL, *b = NULL;
    cudaEvent_t e0 = NULL, e1 = NULL;
    double ms[64];
    float one;
    cudaError_t e;
    int i;
    jf_device_scope scope(ctx);
    if (scope.status != JF_OK)
        return scope.status;
    if (reps < 1) reps = 1;
    if (reps > 64) reps = 64;
    if ((e = cudaMalloc(&a, bytes)) != cudaSuccess || (e = cudaMalloc(&b, bytes)) != cudaSuccess ||
        (e = cudaEventCreate(&e0)) != cudaSuccess || (e = cudaEventCreate(&e1)) != cudaSuccess)
        goto done;
    /* never zeros: fill with a pattern first */
    e = cudaMemsetAsync(a, 0x5A, bytes, g->stream);
    for (i = -2; i < reps && e == cudaSuccess; i++) {
        if ((e = cudaEventRecord(e0, g->stream)) != cudaSuccess ||
            (e = cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, g->stream)) != cudaSuccess ||
            (e = cudaEventRecord(e1, g->stream)) != cudaSuccess ||
            (e = cudaEventSynchronize(e1)) != cudaSuccess)
            break;
        if (i >= 0 && (e = cudaEventElapsedTime(&one, e0, e1)) == cudaSuccess)
            ms[i] = one;
    }
done:
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    cudaFree(a);
    cudaFree(b);
    if (e != cudaSuccess)
        return jf_cuda_fail("copy ceiling (cudaMalloc/cudaMemcpyAsync)", __FILE__, __LINE__, e);
    *gbps = 2.0 * (double)bytes / (jf_sort_median(ms, reps) * 1e6);
    return JF_OK;
}
