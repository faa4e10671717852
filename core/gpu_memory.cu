/* Buffers a context keeps between calls (grown as jf_buffer_shape says),
 * images allocated on the device, and the context's reusable frames. */
#include "core/gpu.cuh"
#include "core/util.h"

#include <string.h>

void jf_gpu_buffer_release(jf_buffer *b)
{
    if (!b->ptr)
        return;
    if (b->kind == JF_BUF_PINNED)
        cudaFreeHost(b->ptr);
    else
        cudaFree(b->ptr);
    memset(b, 0, sizeof *b);
}

jf_status jf_gpu_buffer(jf_context *ctx, int slot, size_t width_bytes, size_t rows, int kind,
                        jf_dview *view)
{
    struct jf_gpu *g = ctx->gpu;
    jf_buffer *b = &g->buf[slot];
    if (width_bytes == 0) width_bytes = 1;
    if (rows == 0) rows = 1;
    const int same_kind = b->ptr && b->kind == kind;
    size_t pitch, nrows;
    const int fits = jf_buffer_shape(same_kind ? b->pitch : 0, same_kind ? b->rows : 0, width_bytes,
                                     rows, &pitch, &nrows);
    if (!fits) {
        void *p = NULL;
        /* the old buffer may still be read by queued work on our stream */
        JF_CUDA_TRY(cudaStreamSynchronize(g->stream));
        jf_gpu_buffer_release(b);
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

extern "C" void jf_gpu_image_free(jf_image *img)
{
    if (img->location == JF_LOC_MAPPED)
        cudaFreeHost(img->data);
    else
        cudaFree(img->data);
}
