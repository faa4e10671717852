/*
 * The CUDA side of a context: device and stream, buffers kept between calls,
 * moving images to and from the device, and event timers that become stats.
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
 */
#include "pipeline/gpu.cuh"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

jf_status jf_cuda_fail(const char *call, const char *file, int line, cudaError_t err)
{
    const char *base = strrchr(file, '/');
    return jf_fail(JF_ERR_CUDA, "%s failed (%s:%d): %s", call, base ? base + 1 : file, line,
                   cudaGetErrorString(err));
}

extern "C" const char *jf_memory_name(jf_memory m)
{
    static const char *const names[JF_MEMORY_COUNT] = {"auto", "copy", "managed"};
    return (unsigned)m < JF_MEMORY_COUNT ? names[m] : "?";
}

extern "C" jf_status jf_gpu_create(jf_context *ctx, const jf_context_options *opt)
{
    struct jf_gpu *g = (struct jf_gpu *)calloc(1, sizeof *g);
    jf_status st;
    int i;
    if (!g)
        return jf_fail(JF_ERR_NOMEM, "jf_context_create: out of memory");
    ctx->gpu = g;
    g->device = opt->device;
    if ((st = jf_device_query(opt->device, &g->info)) != JF_OK)
        return st;
    if (opt->peak_gbps > 0) {
        g->info.theoretical_gbps = opt->peak_gbps;
        snprintf(g->info.theoretical_source, sizeof g->info.theoretical_source, "--peak-gbps");
    }
    JF_CUDA_TRY(cudaSetDevice(opt->device));
    if (cudaDeviceGetAttribute(&g->smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin,
                               opt->device) != cudaSuccess || g->smem_optin < 48 * 1024) {
        cudaGetLastError();
        g->smem_optin = 48 * 1024;
    }
    if (opt->stream) {
        g->stream = (cudaStream_t)opt->stream;
    } else {
        JF_CUDA_TRY(cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking));
        g->own_stream = 1;
    }
    g->memory = opt->memory != JF_MEMORY_AUTO ? opt->memory
              : g->info.integrated ? JF_MEMORY_MANAGED : JF_MEMORY_COPY;
    ctx->memory = g->memory;
    for (i = 0; i < JF_MAX_TIMERS; i++) {
        JF_CUDA_TRY(cudaEventCreate(&g->timers[i].start));
        JF_CUDA_TRY(cudaEventCreate(&g->timers[i].stop));
    }
    return JF_OK;
}

static void buffer_release(jf_buffer *b)
{
    if (!b->ptr)
        return;
    if (b->kind == 1)
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
    cudaSetDevice(g->device);
    if (g->stream)
        cudaStreamSynchronize(g->stream);
    for (i = 0; i < JF_SLOT_COUNT; i++)
        buffer_release(&g->buf[i]);
    for (i = 0; i < JF_MAX_TIMERS; i++) {
        if (g->timers[i].start) cudaEventDestroy(g->timers[i].start);
        if (g->timers[i].stop) cudaEventDestroy(g->timers[i].stop);
    }
    if (g->own_stream && g->stream)
        cudaStreamDestroy(g->stream);
    free(g);
    ctx->gpu = NULL;
}

extern "C" jf_status jf_context_device(const jf_context *ctx, jf_device_info *info)
{
    if (!ctx || !ctx->gpu || !info)
        return jf_fail(JF_ERR_NO_DEVICE, "jf_context_device: not a CUDA context");
    *info = ctx->gpu->info;
    return JF_OK;
}

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
        JF_CUDA_TRY(cudaStreamSynchronize(g->stream)); /* the old buffer may be in use */
        buffer_release(b);
        if (kind == 0) {
            JF_CUDA_TRY(cudaMallocPitch((void **)&b->ptr, &b->pitch, pitch, nrows));
        } else {
            /* rows 128-byte aligned so kernels read them coalesced */
            pitch = (pitch + 127) & ~(size_t)127;
            if (kind == 1) {
                JF_CUDA_TRY(cudaHostAlloc((void **)&b->ptr, pitch * nrows, cudaHostAllocDefault));
            } else {
                JF_CUDA_TRY(cudaMallocManaged((void **)&b->ptr, pitch * nrows, cudaMemAttachHost));
                JF_CUDA_TRY(cudaStreamAttachMemAsync(g->stream, b->ptr, 0, cudaMemAttachSingle));
            }
            b->pitch = pitch;
        }
        b->rows = nrows;
        b->kind = kind;
    }
    view->ptr = b->ptr;
    view->pitch = b->pitch;
    return JF_OK;
}

jf_status jf_gpu_shared_limit(jf_context *ctx, const char *what, int bx, int by, int k,
                              size_t bytes)
{
    if (bytes > (size_t)ctx->gpu->smem_optin)
        return jf_fail(JF_ERR_ARG, "%s: a %dx%d block with k = %d needs %zu bytes of shared "
                       "memory; this device allows %d per block; use a smaller block", what, bx,
                       by, k, bytes, ctx->gpu->smem_optin);
    return JF_OK;
}

jf_status jf_gpu_filter_setup(jf_context *ctx, const jf_image *src, const jf_image *dst, int k,
                              jf_border border, jf_dview *planes, int *plane_rows, jf_dview *out)
{
    jf_dview in;
    jf_status st;
    if ((st = jf_gpu_begin(ctx)) != JF_OK || (st = jf_gpu_input(ctx, src, JF_SLOT_IN, &in)) != JF_OK ||
        (st = jf_gpu_output(ctx, dst, out)) != JF_OK)
        return st;
    return jf_gpu_pad_planes(ctx, &in, src->width, src->height, src->channels, k / 2, border,
                             planes, plane_rows);
}

jf_status jf_gpu_filter_done(jf_context *ctx, int id, const char *kernel, const char *name,
                             const char *variant, int k, const jf_image *shape)
{
    cudaError_t e = cudaPeekAtLastError();
    if (e != cudaSuccess)
        return jf_cuda_fail(kernel, __FILE__, __LINE__, e);
    return jf_gpu_timer_stop(ctx, id, name, variant, k, shape,
                             (uint64_t)(shape->width + k - 1) * (shape->height + k - 1) * shape->channels,
                             (uint64_t)shape->width * shape->height * shape->channels);
}

jf_status jf_gpu_begin(jf_context *ctx)
{
    ctx->gpu->ntimers = 0;
    JF_CUDA_TRY(cudaSetDevice(ctx->gpu->device));
    return JF_OK;
}

jf_status jf_gpu_timer_start(jf_context *ctx, int *id)
{
    struct jf_gpu *g = ctx->gpu;
    if (g->ntimers == JF_MAX_TIMERS)
        return jf_fail(JF_ERR_INTERNAL, "too many timed steps in one operation");
    *id = g->ntimers++;
    memset(g->timers[*id].name, 0, sizeof g->timers[*id].name);
    g->timers[*id].host = 0;
    JF_CUDA_TRY(cudaEventRecord(g->timers[*id].start, g->stream));
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
    timer_fill(&g->timers[id], name, variant, ksize, shape, r, w);
    JF_CUDA_TRY(cudaEventRecord(g->timers[id].stop, g->stream));
    return JF_OK;
}

/* Host-side step (copies through managed memory): CPU clock. */
static void host_timer(jf_context *ctx, const char *name, const jf_image *shape, double ms,
                       uint64_t r, uint64_t w)
{
    struct jf_gpu *g = ctx->gpu;
    jf_timer *t;
    if (g->ntimers == JF_MAX_TIMERS)
        return;
    t = &g->timers[g->ntimers++];
    timer_fill(t, name, jf_memory_name(g->memory), 0, shape, r, w);
    t->host = 1;
    t->host_ms = ms;
}

/* Device pointer for an image the GPU can address directly, else NULL. */
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
    size_t row = (size_t)src->width * (size_t)src->channels;
    uint64_t bytes = (uint64_t)row * (uint64_t)src->height;
    jf_dview stage;
    jf_status st;
    int direct, id;
    double t0;

    if ((st = direct_view(src, view, &direct)) != JF_OK || direct)
        return st;
    t0 = jf_now_ms();
    if (g->memory == JF_MEMORY_MANAGED) {
        if ((st = jf_gpu_buffer(ctx, slot, row, (size_t)src->height, 2, view)) != JF_OK)
            return st;
        JF_CUDA_TRY(cudaStreamSynchronize(g->stream)); /* the CPU may touch it now */
        copy_rows(view->ptr, view->pitch, src->data, src->stride, row, src->height);
        host_timer(ctx, "upload", src, jf_now_ms() - t0, bytes, bytes);
        return JF_OK;
    }
    if ((st = jf_gpu_buffer(ctx, JF_SLOT_STAGE_IN, row, (size_t)src->height, 1, &stage)) != JF_OK ||
        (st = jf_gpu_buffer(ctx, slot, row, (size_t)src->height, 0, view)) != JF_OK)
        return st;
    JF_CUDA_TRY(cudaStreamSynchronize(g->stream)); /* staging buffer free again */
    copy_rows(stage.ptr, stage.pitch, src->data, src->stride, row, src->height);
    host_timer(ctx, "stage", src, jf_now_ms() - t0, bytes, bytes);
    if ((st = jf_gpu_timer_start(ctx, &id)) != JF_OK)
        return st;
    JF_CUDA_TRY(cudaMemcpy2DAsync(view->ptr, view->pitch, stage.ptr, stage.pitch, row,
                                  (size_t)src->height, cudaMemcpyHostToDevice, g->stream));
    return jf_gpu_timer_stop(ctx, id, "upload", "pinned", 0, src, bytes, bytes);
}

jf_status jf_gpu_output(jf_context *ctx, const jf_image *dst, jf_dview *view)
{
    size_t row = (size_t)dst->width * (size_t)dst->channels;
    jf_status st;
    int direct;
    if ((st = direct_view(dst, view, &direct)) != JF_OK || direct)
        return st;
    return jf_gpu_buffer(ctx, JF_SLOT_OUT, row, (size_t)dst->height,
                         ctx->gpu->memory == JF_MEMORY_MANAGED ? 2 : 0, view);
}

jf_status jf_gpu_finish(jf_context *ctx, jf_image *dst, const jf_dview *view)
{
    struct jf_gpu *g = ctx->gpu;
    jf_status st;
    int i, id;
    if (dst && view && dst->location == JF_LOC_HOST) {
        size_t row = (size_t)dst->width * (size_t)dst->channels;
        uint64_t bytes = (uint64_t)row * (uint64_t)dst->height;
        double t0;
        if (g->memory == JF_MEMORY_MANAGED) {
            JF_CUDA_TRY(cudaStreamSynchronize(g->stream));
            t0 = jf_now_ms();
            copy_rows(dst->data, dst->stride, view->ptr, view->pitch, row, dst->height);
            host_timer(ctx, "download", dst, jf_now_ms() - t0, bytes, bytes);
        } else {
            jf_dview stage;
            if ((st = jf_gpu_buffer(ctx, JF_SLOT_STAGE_OUT, row, (size_t)dst->height, 1, &stage)) != JF_OK ||
                (st = jf_gpu_timer_start(ctx, &id)) != JF_OK)
                return st;
            JF_CUDA_TRY(cudaMemcpy2DAsync(stage.ptr, stage.pitch, view->ptr, view->pitch, row,
                                          (size_t)dst->height, cudaMemcpyDeviceToHost, g->stream));
            if ((st = jf_gpu_timer_stop(ctx, id, "download", "pinned", 0, dst, bytes, bytes)) != JF_OK)
                return st;
            JF_CUDA_TRY(cudaStreamSynchronize(g->stream));
            t0 = jf_now_ms();
            copy_rows(dst->data, dst->stride, stage.ptr, stage.pitch, row, dst->height);
            host_timer(ctx, "unstage", dst, jf_now_ms() - t0, bytes, bytes);
        }
    }
    JF_CUDA_TRY(cudaStreamSynchronize(g->stream));
    for (i = 0; i < g->ntimers; i++) {
        jf_timer *t = &g->timers[i];
        jf_stat s;
        float ms = 0.0f;
        if (!t->name[0])
            continue;
        if (t->host)
            ms = (float)t->host_ms;
        else
            JF_CUDA_TRY(cudaEventElapsedTime(&ms, t->start, t->stop));
        memset(&s, 0, sizeof s);
        memcpy(s.name, t->name, sizeof s.name);
        memcpy(s.variant, t->variant, sizeof s.variant);
        s.ksize = t->ksize;
        s.width = t->width;
        s.height = t->height;
        s.channels = t->channels;
        s.ms = ms;
        s.bytes_read = t->bytes_read;
        s.bytes_written = t->bytes_written;
        s.peak_gbps = t->host ? 0.0 : g->info.theoretical_gbps;
        jf_stats_add(ctx, &s);
    }
    g->ntimers = 0;
    return JF_OK;
}

extern "C" jf_status jf_gpu_image_alloc(jf_context *ctx, jf_image *img, int w, int h, int ch,
                                        jf_location loc)
{
    size_t row = (size_t)w * (size_t)ch, pitch = row;
    void *p = NULL;
    memset(img, 0, sizeof *img);
    JF_CUDA_TRY(cudaSetDevice(ctx->gpu->device));
    switch (loc) {
    case JF_LOC_DEVICE:
        JF_CUDA_TRY(cudaMallocPitch(&p, &pitch, row, (size_t)h));
        break;
    case JF_LOC_MAPPED:
        JF_CUDA_TRY(cudaHostAlloc(&p, row * (size_t)h, cudaHostAllocMapped));
        break;
    case JF_LOC_MANAGED:
        JF_CUDA_TRY(cudaMallocManaged(&p, row * (size_t)h, cudaMemAttachHost));
        JF_CUDA_TRY(cudaStreamAttachMemAsync(ctx->gpu->stream, p, 0, cudaMemAttachSingle));
        JF_CUDA_TRY(cudaStreamSynchronize(ctx->gpu->stream));
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
    return JF_OK;
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
    size_t row = (size_t)src->width * (size_t)src->channels;
    JF_CUDA_TRY(cudaSetDevice(ctx->gpu->device));
    JF_CUDA_TRY(cudaStreamSynchronize(ctx->gpu->stream));
    JF_CUDA_TRY(cudaMemcpy2DAsync(dst->data, dst->stride, src->data, src->stride, row,
                                  (size_t)src->height, cudaMemcpyDefault, ctx->gpu->stream));
    JF_CUDA_TRY(cudaStreamSynchronize(ctx->gpu->stream));
    return JF_OK;
}

/* Device-to-device copy of `bytes`, timed with events; median of reps. */
extern "C" jf_status jf_gpu_copy_ceiling(jf_context *ctx, size_t bytes, int reps, double *gbps)
{
    struct jf_gpu *g = ctx->gpu;
    void *a = NULL, *b = NULL;
    double ms[64];
    float one;
    cudaError_t e;
    int i;
    if (reps < 1) reps = 1;
    if (reps > 64) reps = 64;
    JF_CUDA_TRY(cudaSetDevice(g->device));
    if ((e = cudaMalloc(&a, bytes)) != cudaSuccess || (e = cudaMalloc(&b, bytes)) != cudaSuccess) {
        cudaFree(a);
        return jf_cuda_fail("cudaMalloc(copy ceiling)", __FILE__, __LINE__, e);
    }
    /* never zeros: fill with a pattern first */
    e = cudaMemsetAsync(a, 0x5A, bytes, g->stream);
    for (i = -2; i < reps && e == cudaSuccess; i++) {
        if ((e = cudaEventRecord(g->timers[0].start, g->stream)) != cudaSuccess ||
            (e = cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, g->stream)) != cudaSuccess ||
            (e = cudaEventRecord(g->timers[0].stop, g->stream)) != cudaSuccess ||
            (e = cudaEventSynchronize(g->timers[0].stop)) != cudaSuccess)
            break;
        if (i >= 0 && (e = cudaEventElapsedTime(&one, g->timers[0].start, g->timers[0].stop)) == cudaSuccess)
            ms[i] = one;
    }
    cudaFree(a);
    cudaFree(b);
    if (e != cudaSuccess)
        return jf_cuda_fail("cudaMemcpyAsync(copy ceiling)", __FILE__, __LINE__, e);
    *gbps = 2.0 * (double)bytes / (jf_sort_median(ms, reps) * 1e6);
    return JF_OK;
}
