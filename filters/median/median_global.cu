/*
 * Median, global memory (the seed report's first kernel, with its bubble sort
 * replaced by jf_median_select).  One thread per output pixel of one channel;
 * the window is read straight from the padded plane in global memory, so
 * neighbouring threads re-read the same bytes through L1/L2.
 */
#include "filters/filter_cuda.cuh"
#include "filters/median/median.h"
#include "filters/median/median_select.cuh"

__global__ void median_global_kernel(const unsigned char *__restrict__ planes, size_t pitch,
                                     int plane_rows, int w, int h, int ch, int k,
                                     unsigned char *__restrict__ out, size_t out_pitch)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    const int c = blockIdx.z;
    if (x >= w || y >= h)
        return;
    out[(size_t)y * out_pitch + (size_t)x * ch + c] =
        jf_median_select(planes + ((size_t)c * plane_rows + y) * pitch + x, pitch, k);
}

jf_status jf_median_global_launch(jf_context *ctx, const jf_dview *planes, int plane_rows,
                                  const jf_image *shape, int k, int bx, int by,
                                  const jf_dview *out)
{
    jf_status st;
    int id;
    if (bx == 0 && by == 0) {
        bx = 32;
        by = 8;
    }
    const dim3 block((unsigned)bx, (unsigned)by);
    if ((st = jf_gpu_launch_fits(ctx, (const void *)median_global_kernel, "median global",
                                 bx * by, 0)) != JF_OK ||
        (st = jf_gpu_timer_start(ctx, &id)) != JF_OK)
        return st;
    median_global_kernel<<<jf_grid(shape->width, shape->height, shape->channels, block), block, 0,
                           ctx->gpu->stream>>>(planes->ptr, planes->pitch, plane_rows,
                                               shape->width, shape->height, shape->channels, k,
                                               out->ptr, out->pitch);
    return jf_gpu_filter_done(ctx, id, "median_global_kernel", "median", "global", k, shape);
}
