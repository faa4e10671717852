/*
 * Convolution, shared-memory tiles: the block loads its tile plus halo once
 * from the image, the border applied as it loads (jf_load_tile_src,
 * coalesced words), then each thread accumulates its window
 * from shared memory.  Same order, same rounding as conv_global.cu and the
 * CPU reference.
 *
 * The weights are copied from the context's device buffer into shared
 * memory once per block: read from constant memory inside the loop instead,
 * k = 11 spent 87% of its stall cycles waiting on constant-cache misses
 * (Nsight Compute, H200).  From shared memory every lane reads the same
 * word: a broadcast, no bank conflict.
 */
#include "filters/conv/conv.h"
#include "filters/conv/conv_shapes.h"
#include "filters/filter_cuda.cuh"
#include "filters/filters.h"
#include "filters/tile.cuh"

/* At most 32 registers (two blocks of 1024 threads an SM): the border
 * code of the tile load took it to 40, and the loop over k^2 taps ran 20%
 * slower at the occupancy that left (H100, k = 15).  An SM of fewer
 * threads (the Orin's) holds one such block. */
__global__ void __launch_bounds__(1024, JF_SM_THREADS / 1024) conv_shared_kernel(const jf_tile_src src, int w, int h, int ch, int k,
                                   const float *__restrict__ weights,
                                   unsigned char *__restrict__ out, size_t out_pitch, int tile_w)
{
    extern __shared__ unsigned int s_tile[];
    const int c = blockIdx.z;
    const int x0 = blockIdx.x * blockDim.x, y0 = blockIdx.y * blockDim.y;
    const int x = x0 + threadIdx.x, y = y0 + threadIdx.y;
    const int tid = threadIdx.y * blockDim.x + threadIdx.x;
    float *s_w = (float *)(s_tile + (blockDim.y + k - 1) * tile_w / 4);
    const unsigned char *p;
    float acc = 0.0f;
    for (int i = tid; i < k * k; i += blockDim.x * blockDim.y)
        s_w[i] = weights[i];
    jf_load_tile_src<unsigned char>(s_tile, tile_w, blockDim.y + k - 1, src, c, x0, y0);
    if (x >= w || y >= h)
        return;
    p = (const unsigned char *)s_tile + threadIdx.y * tile_w + threadIdx.x;
    for (int j = 0; j < k; j++)
        for (int i = 0; i < k; i++)
            acc += s_w[j * k + i] * (float)p[j * tile_w + i];
    out[(size_t)y * out_pitch + (size_t)x * ch + c] = jf_saturate_round(acc);
}

jf_status jf_conv_shared_launch(jf_context *ctx, const jf_filter_in *in, int k,
                                const float *d_weights, int bx, int by, const jf_dview *out)
{
    const jf_image *shape = in->shape;
    const dim3 block((unsigned)bx, (unsigned)by);
    const int tile_w = jf_tile_width(bx, k);
    const size_t smem = jf_conv_shared_smem(k, bx, by);
    jf_status st;
    int id;
    if ((st = jf_gpu_launch_fits(ctx, (const void *)conv_shared_kernel, "conv shared", bx * by,
                                 smem)) != JF_OK ||
        (st = jf_gpu_timer_start(ctx, &id)) != JF_OK)
        return st;
    conv_shared_kernel<<<jf_grid(shape->width, shape->height, shape->channels, block), block,
                         smem, ctx->gpu->stream>>>(in->src, shape->width, shape->height, shape->channels,
                                                   k, d_weights, out->ptr, out->pitch, tile_w);
    return jf_gpu_filter_done(ctx, id, "conv_shared_kernel", "conv", "shared", k, shape, 0);
}
