/*
 * Convolution, global memory.  One thread per output pixel of one channel
 * reads its k x k window from the padded plane in global memory; the weights
 * come from the context's device buffer (every lane of a warp reads the same
 * weight: one broadcast load through the read-only cache).  Accumulates in
 * float in the CPU reference's order (row by row) and converts with the same
 * jf_saturate_round; the compiler's fused multiply-adds can move a result
 * sitting on .5 by one level, the stated tolerance.  8- and 16-bit samples,
 * and float32 (stored as summed; every tap counts, as on the CPU).
 */
#include "filters/conv/conv.h"
#include "filters/filter_cuda.cuh"
#include "filters/filters.h"

__device__ __forceinline__ void conv_store(unsigned char *o, float v) { *o = jf_saturate_round(v); }
__device__ __forceinline__ void conv_store(unsigned short *o, float v) { *o = jf_saturate_round16(v); }
__device__ __forceinline__ void conv_store(float *o, float v) { *o = v; }

/* Pitches in samples of T. */
template <typename T>
__global__ void conv_global_kernel(const T *__restrict__ planes, size_t pitch, int plane_rows,
                                   int w, int h, int ch, int k, const float *__restrict__ weights,
                                   T *__restrict__ out, size_t out_pitch)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    const int c = blockIdx.z;
    const T *p;
    float acc = 0.0f;
    if (x >= w || y >= h)
        return;
    p = planes + ((size_t)c * plane_rows + y) * pitch + x;
    for (int j = 0; j < k; j++)
        for (int i = 0; i < k; i++)
            acc += __ldg(&weights[j * k + i]) * (float)p[(size_t)j * pitch + i];
    conv_store(&out[(size_t)y * out_pitch + (size_t)x * ch + c], acc);
}

template <typename T>
static jf_status launch(jf_context *ctx, const jf_filter_in *in, int k, const float *d_weights,
                        dim3 block, const jf_dview *out)
{
    const jf_image *shape = in->shape;
    jf_dview planes_view, *planes = &planes_view;
    jf_status st;
    int id, plane_rows;
    if ((st = jf_gpu_filter_planes(ctx, in, planes, &plane_rows)) != JF_OK ||
        (st = jf_gpu_launch_fits(ctx, (const void *)conv_global_kernel<T>, "conv global",
                                 (int)(block.x * block.y), 0)) != JF_OK ||
        (st = jf_gpu_timer_start(ctx, &id)) != JF_OK)
        return st;
    conv_global_kernel<T><<<jf_grid(shape->width, shape->height, shape->channels, block), block, 0,
                            ctx->gpu->stream>>>(
        (const T *)planes->ptr, planes->pitch / sizeof(T), plane_rows, shape->width,
        shape->height, shape->channels, k, d_weights, (T *)out->ptr, out->pitch / sizeof(T));
    return jf_gpu_filter_done(ctx, id, "conv_global_kernel", "conv", "global", k, shape, 1);
}

jf_status jf_conv_global_launch(jf_context *ctx, const jf_filter_in *in, int k,
                                const float *d_weights, int bx, int by, const jf_dview *out)
{
    const dim3 block((unsigned)bx, (unsigned)by);
    return in->shape->sample == JF_SAMPLE_F32   ? launch<float>(ctx, in, k, d_weights, block, out)
           : in->shape->sample == JF_SAMPLE_U16 ? launch<unsigned short>(ctx, in, k, d_weights, block, out)
                                                : launch<unsigned char>(ctx, in, k, d_weights, block, out);
}
