/*
 * Median, global memory (the seed report's first kernel, with its bubble sort
 * replaced by jf_median_select).  One thread per output pixel of one channel;
 * the window is read straight from the padded plane in global memory (the
 * pad pass runs for it: jf_gpu_filter_planes), so
 * neighbouring threads re-read the same bytes through L1/L2.  8- and 16-bit
 * samples, and float32 through order-keeping keys (the one GPU median
 * variant for floats).
 */
#include "filters/filter_cuda.cuh"
#include "filters/median/median.h"
#include "filters/median/median_select.cuh"

template <typename T>
__global__ void median_global_kernel(const T *__restrict__ planes, size_t pitch, int plane_rows,
                                     int w, int h, int ch, int k, T *__restrict__ out,
                                     size_t out_pitch)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    const int c = blockIdx.z;
    if (x >= w || y >= h)
        return;
    out[(size_t)y * out_pitch + (size_t)x * ch + c] =
        jf_median_select(planes + ((size_t)c * plane_rows + y) * pitch + x, pitch, k);
}

/* Pitches in samples of T: bytes / sizeof(T) (every pitch here is even). */
template <typename T>
static jf_status launch(jf_context *ctx, const jf_filter_in *in, int k, dim3 block,
                        const jf_dview *out)
{
    const jf_image *shape = in->shape;
    jf_dview planes_view, *planes = &planes_view;
    jf_status st;
    int id, plane_rows;
    if ((st = jf_gpu_filter_planes(ctx, in, planes, &plane_rows)) != JF_OK ||
        (st = jf_gpu_launch_fits(ctx, (const void *)median_global_kernel<T>, "median global",
                                 (int)(block.x * block.y), 0)) != JF_OK ||
        (st = jf_gpu_timer_start(ctx, &id)) != JF_OK)
        return st;
    median_global_kernel<T><<<jf_grid(shape->width, shape->height, shape->channels, block), block,
                              0, ctx->gpu->stream>>>(
        (const T *)planes->ptr, planes->pitch / sizeof(T), plane_rows, shape->width,
        shape->height, shape->channels, k, (T *)out->ptr, out->pitch / sizeof(T));
    return jf_gpu_filter_done(ctx, id, "median_global_kernel", "median", "global", k, shape, 1);
}

jf_status jf_median_global_launch(jf_context *ctx, const jf_filter_in *in, int k, const jf_choice *c,
                                  const jf_dview *out)
{
    const dim3 block((unsigned)c->block_x, (unsigned)c->block_y);
    return in->shape->sample == JF_SAMPLE_F32   ? launch<float>(ctx, in, k, block, out)
           : in->shape->sample == JF_SAMPLE_U16 ? launch<unsigned short>(ctx, in, k, block, out)
                                                : launch<unsigned char>(ctx, in, k, block, out);
}
