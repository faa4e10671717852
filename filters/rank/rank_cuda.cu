/* The rank filters on the CUDA backend, from the padded planes (the pad
 * pass runs first): `global` reads each output's k x k window; `fast` is
 * separable, the extreme along a row of k into a buffer of h + k - 1 rows
 * of each plane, then down a column of k from it (2k reads an output). */
#include "filters/filter_cuda.cuh"
#include "filters/rank/rank.h"
#include "filters/filters.h"
#include "filters/resolve.h"

template <typename T>
__global__ void rank_global_kernel(const T *__restrict__ planes, size_t pitch, int plane_rows, int w,
                                   int h, int ch, int k, int max, T *__restrict__ out, size_t out_pitch)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    const int c = blockIdx.z;
    const T *p = planes + ((size_t)c * plane_rows + y) * pitch + x;
    unsigned v;
    int i, j;
    if (x >= w || y >= h)
        return;
    v = p[0];
    for (j = 0; j < k; j++)
        for (i = 0; i < k; i++) {
            const unsigned s = p[(size_t)j * pitch + i];
            v = max ? (s > v ? s : v) : (s < v ? s : v);
        }
    out[(size_t)y * out_pitch + (size_t)x * ch + c] = (T)v;
}

template <typename T>
static jf_status launch(const jf_gpu_call *g, int max)
{
    const jf_image *shape = g->in->shape;
    const dim3 block((unsigned)g->choice->block_x, (unsigned)g->choice->block_y);
    jf_dview planes;
    jf_status st;
    int id, plane_rows;
    if ((st = jf_gpu_filter_planes(g->ctx, g->in, &planes, &plane_rows)) != JF_OK ||
        (st = jf_gpu_launch_fits(g->ctx, (const void *)rank_global_kernel<T>, "rank global",
                                 (int)(block.x * block.y), 0)) != JF_OK ||
        (st = jf_gpu_timer_start(g->ctx, &id)) != JF_OK)
        return st;
    rank_global_kernel<T><<<jf_grid(shape->width, shape->height, shape->channels, block), block, 0,
                            g->ctx->gpu->stream>>>((const T *)planes.ptr, planes.pitch / sizeof(T), plane_rows,
                                                   shape->width, shape->height, shape->channels, g->k, max,
                                                   (T *)g->out->ptr, g->out->pitch / sizeof(T));
    return jf_gpu_filter_done(g->ctx, id, "rank_global_kernel", max ? "dilate" : "erode", "global", g->k, shape, 1);
}

/* The row pass: sample x of padded row y of plane c, the extreme of
 * [x, x + k) of that row, into the buffer (w wide, plane_rows high). */
template <typename T>
__global__ void rank_rows_kernel(const T *__restrict__ planes, size_t pitch, int plane_rows, int w, int k,
                                 int max, T *__restrict__ rows, size_t rows_pitch)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    const int c = blockIdx.z;
    const T *p = planes + ((size_t)c * plane_rows + y) * pitch + x;
    unsigned v;
    int i;
    if (x >= w || y >= plane_rows)
        return;
    v = p[0];
    for (i = 1; i < k; i++) {
        const unsigned s = p[i];
        v = max ? (s > v ? s : v) : (s < v ? s : v);
    }
    rows[((size_t)c * plane_rows + y) * rows_pitch + x] = (T)v;
}

/* The column pass: output (x, y) of channel c, the extreme of rows [y, y + k). */
template <typename T>
__global__ void rank_columns_kernel(const T *__restrict__ rows, size_t rows_pitch, int plane_rows, int w,
                                    int h, int ch, int k, int max, T *__restrict__ out, size_t out_pitch)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    const int c = blockIdx.z;
    const T *p = rows + ((size_t)c * plane_rows + y) * rows_pitch + x;
    unsigned v;
    int j;
    if (x >= w || y >= h)
        return;
    v = p[0];
    for (j = 1; j < k; j++) {
        const unsigned s = p[(size_t)j * rows_pitch];
        v = max ? (s > v ? s : v) : (s < v ? s : v);
    }
    out[(size_t)y * out_pitch + (size_t)x * ch + c] = (T)v;
}

template <typename T>
static jf_status launch_separable(const jf_gpu_call *g, int max)
{
    const jf_image *shape = g->in->shape;
    const dim3 block((unsigned)g->choice->block_x, (unsigned)g->choice->block_y);
    jf_dview planes, rows;
    jf_status st;
    int id, plane_rows;
    if ((st = jf_gpu_filter_planes(g->ctx, g->in, &planes, &plane_rows)) != JF_OK ||
        (st = jf_gpu_buffer(g->ctx, JF_SLOT_WORK1, (size_t)shape->width * sizeof(T),
                            (size_t)plane_rows * (size_t)shape->channels, JF_BUF_DEVICE, &rows)) != JF_OK ||
        (st = jf_gpu_launch_fits(g->ctx, (const void *)rank_rows_kernel<T>, "rank rows",
                                 (int)(block.x * block.y), 0)) != JF_OK ||
        (st = jf_gpu_timer_start(g->ctx, &id)) != JF_OK)
        return st;
    rank_rows_kernel<T><<<jf_grid(shape->width, plane_rows, shape->channels, block), block, 0,
                          g->ctx->gpu->stream>>>((const T *)planes.ptr, planes.pitch / sizeof(T), plane_rows,
                                                 shape->width, g->k, max, (T *)rows.ptr, rows.pitch / sizeof(T));
    rank_columns_kernel<T><<<jf_grid(shape->width, shape->height, shape->channels, block), block, 0,
                             g->ctx->gpu->stream>>>((const T *)rows.ptr, rows.pitch / sizeof(T), plane_rows,
                                                    shape->width, shape->height, shape->channels, g->k, max,
                                                    (T *)g->out->ptr, g->out->pitch / sizeof(T));
    return jf_gpu_filter_done(g->ctx, id, "rank_columns_kernel", max ? "dilate" : "erode", "fast", g->k,
                              shape, 1);
}

extern "C" jf_status jf_rank_separable_run(const jf_gpu_call *g)
{
    const int max = ((const jf_rank_which *)g->args)->max;
    return g->in->shape->sample == JF_SAMPLE_U16 ? launch_separable<unsigned short>(g, max)
                                                 : launch_separable<unsigned char>(g, max);
}

extern "C" jf_status jf_rank_global_run(const jf_gpu_call *g)
{
    const int max = ((const jf_rank_which *)g->args)->max;
    return g->in->shape->sample == JF_SAMPLE_U16 ? launch<unsigned short>(g, max) : launch<unsigned char>(g, max);
}

extern "C" jf_status jf_rank_cuda(jf_context *ctx, const jf_image *src, jf_image *dst, int k,
                                  jf_border border, int max, const jf_choice *c)
{
    const jf_rank_which which = {max};
    jf_gpu_call call;
    memset(&call, 0, sizeof call);
    call.choice = c;
    call.k = k;
    call.args = &which;
    return jf_gpu_filter_rows(ctx, src, dst, border, call, max ? "dilate" : "erode");
}
