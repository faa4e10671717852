/* Images to and from the device for one call: a view of the input the
 * kernels read (the image itself where the GPU can address it, else an
 * upload), where the output goes, and bringing it back to a host image. */
#include "core/gpu.cuh"
#include "core/util.h"

#include <string.h>

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

void jf_copy_rows(unsigned char *dst, size_t dst_pitch, const unsigned char *src,
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
        jf_copy_rows(view->ptr, view->pitch, src->data, src->stride, row, src->height);
        return jf_gpu_host_timer(ctx, "upload", src, jf_now_ms() - t0, bytes, bytes);
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
    jf_copy_rows(stage.ptr, stage.pitch, src->data, src->stride, row, src->height);
    if ((st = jf_gpu_host_timer(ctx, "stage", src, jf_now_ms() - t0, bytes, bytes)) != JF_OK ||
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
            jf_copy_rows(dst->data, dst->stride, view->ptr, view->pitch, row, dst->height);
            if ((st = jf_gpu_host_timer(ctx, "download", dst, jf_now_ms() - t0, bytes, bytes)) != JF_OK)
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
            jf_copy_rows(dst->data, dst->stride, stage.ptr, stage.pitch, row, dst->height);
            if ((st = jf_gpu_host_timer(ctx, "unstage", dst, jf_now_ms() - t0, bytes, bytes)) != JF_OK)
                return st;
        }
    }
    if (!g->must_sync)
        return JF_OK; /* device images only: the work stays queued */
    JF_CUDA_TRY(cudaStreamSynchronize(g->stream));
    return jf_gpu_collect(ctx);
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
    return jf_gpu_collect(ctx);
}
