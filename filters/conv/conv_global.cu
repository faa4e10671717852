/*
 * Convolution, global memory.  One thread per output pixel of one channel
 * reads its k x k window from the padded plane in global memory; the weights
 * come from the context's device buffer (every lane of a warp reads the same
 * weight: one broadcast load through the read-only cache).  Accumulates in
 * float in the CPU reference's order (row by row) and converts with the same
 * jf_saturate_round; the compiler's fused multiply-adds can move a result
 * sitting on .5 by one level, the stated tolerance.
 */
#include "filters/conv/conv.h"
#include "filters/filter_cuda.cuh"
#include "filters/filters.h"

__global__ void conv_global_kernel(const unsigned char *__restrict__ planes, size_t pitch,
                                   int plane_rows, int w, int h, int ch, int k,
                                   const float *__restrict__ weights,
                                   unsigned char *__restrict__ out, size_t out_pitch)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    const int c = blockIdx.z;
    const unsigned char *p;
    float acc = 0.0f;
    if (x >= w || y >= h)
        return;
    p = planes + ((size_t)c * plane_rows + y) * pitch + x;
    for (int j = 0; j < k; j++)
        for (int i = 0; i < k; i++)
            acc += __ldg(&weights[j * k + i]) * (float)p[(size_t)j * pitch + i];
    out[(size_t)y * out_pitch + (size_t)x * ch + c] = jf_saturate_round(acc);
}

jf_status jf_conv_global_launch(jf_context *ctx, const jf_dview *planes, int plane_rows,
                                const jf_image *shape, int k, const float *d_weights, int bx,
                                int by, const jf_dview *out)
{
    const dim3 block((unsigned)bx, (unsigned)by);
    jf_status st;
    int id;
    if ((st = jf_gpu_launch_fits(ctx, (const void *)conv_global_kernel, "conv global", bx * by,
                                 0)) != JF_OK ||
        (st = jf_gpu_timer_start(ctx, &id)) != JF_OK)
        return st;
    conv_global_kernel<<<jf_grid(shape->width, shape->height, shape->channels, block), block, 0,
                         ctx->gpu->stream>>>(planes->ptr, planes->pitch, plane_rows, shape->width,
                                             shape->height, shape->channels, k, d_weights,
                                             out->ptr, out->pitch);
    return jf_gpu_filter_done(ctx, id, "conv_global_kernel", "conv", "global", k, shape);
}
