/*
 * Median of float32 images at k = 3, the global variant's row for them:
 * one thread an output sample reads its window straight from the image
 * through the border rule (jf_tile_src: no pad pass, whose extra write and
 * read of 4 bytes a sample cost as much as this median), turns it into
 * order-keeping keys (jf_key: NumPy's order, NaN last) and takes the
 * network of median_select.cuh.  Neighbouring threads share their reads
 * through L1.  At k = 5 the same measured slower than median_global_kernel
 * over padded planes (the 25 interleaved loads through the border test);
 * other k go there too.
 */
#include "filters/filter_cuda.cuh"
#include "filters/median/median.h"
#include "filters/median/median_select.cuh"
#include "filters/tile.cuh"

/* CH, the channels, a constant: a sample's pixel is a multiply */
template <int CH>
__global__ void median_float_kernel(const jf_tile_src s, float *__restrict__ out, size_t out_pitch)
{
    enum { K = 3 };
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    const int r = K / 2;
    if (i >= s.w * CH || y >= s.h)
        return;
    const int x = i / CH, c = i - x * CH;
    const bool inside = x >= r && x + r < s.w;
    unsigned w[K * K];
#pragma unroll
    for (int j = 0; j < K; j++) {
        const float *row = (const float *)jf_src_row(s, y + j);
#pragma unroll
        for (int t = 0; t < K; t++) {
            float v = 0.0f;
            if (row && inside) {
                v = __ldg(&row[(size_t)(x - r + t) * CH + c]);
            } else if (row) {
                const int sx = jf_border_index(x + t - r, s.w, s.border);
                v = sx >= 0 ? __ldg(&row[(size_t)sx * CH + c]) : 0.0f;
            }
            w[j * K + t] = jf_key<float>::of(v);
        }
    }
    out[(size_t)y * out_pitch + i] = jf_key<float>::back(jf_median9_keys(w));
}

extern "C" jf_status jf_median_float_run(const jf_gpu_call *g)
{
    jf_context *ctx = g->ctx;
    const jf_image *shape = g->in->shape;
    const dim3 block((unsigned)g->choice->block_x, (unsigned)g->choice->block_y);
    const dim3 grid = jf_grid(shape->width * shape->channels, shape->height, 1, block);
    void (*kernel)(const jf_tile_src, float *, size_t) =
        shape->channels == 1 ? median_float_kernel<1> : shape->channels == 2 ? median_float_kernel<2>
        : shape->channels == 3 ? median_float_kernel<3> : median_float_kernel<4>;
    jf_status st;
    int id;
    if (g->k != 3)
        return jf_fail(JF_ERR_INTERNAL, "median_float_kernel runs k = 3, not %d", g->k);
    if ((st = jf_gpu_launch_fits(ctx, (const void *)kernel, "median float", (int)(block.x * block.y),
                                 0)) != JF_OK ||
        (st = jf_gpu_timer_start(ctx, &id)) != JF_OK)
        return st;
    kernel<<<grid, block, 0, ctx->gpu->stream>>>(g->in->src, (float *)g->out->ptr,
                                                 g->out->pitch / sizeof(float));
    return jf_gpu_filter_done(ctx, id, "median_float_kernel", "median", "global", g->k, shape, 0);
}
