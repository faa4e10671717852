/*
 * Median of float32 images at k = 3, the global variant's row for them:
 * one thread four neighbouring output samples of a channel, whose windows
 * share their sorted columns, reads the windows straight from the image
 * through the border rule (jf_tile_src: no pad pass, whose extra write and
 * read of 4 bytes a sample cost as much as this median), turns it into
 * order-keeping keys (jf_key: NumPy's order, NaN last), sorts each column
 * once and takes each window's median of its three sorted columns (as
 * median_select.cuh's jf_median9_keys).  Neighbouring threads share reads
 * through L1.  At k = 5 the same measured slower than median_global_kernel
 * over padded planes (the 25 interleaved loads through the border test);
 * other k go there too.
 */
#include "filters/filter_cuda.cuh"
#include "filters/median/median.h"
#include "filters/median/median_select.cuh"
#include "filters/tile.cuh"

/* A thread's outputs: PX neighbouring pixels of one channel, whose
 * windows share their sorted columns (PX + 2 of them for PX outputs) */
#define MEDIAN_FLOAT_PX 4

/* CH, the channels, a constant: a sample's pixel is a multiply.  Thread
 * (q, c) of the row takes pixels PX q .. PX q + PX - 1 of channel c. */
template <int CH>
__global__ void median_float_kernel(const jf_tile_src s, float *__restrict__ out, size_t out_pitch)
{
    enum { PX = MEDIAN_FLOAT_PX, COLS = PX + 2 };
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    const int q = t / CH, c = t - q * CH, x0 = q * PX;
    if (x0 >= s.w || y >= s.h)
        return;
    const bool inside = x0 >= 1 && x0 + PX < s.w;
    unsigned lo[COLS], mid[COLS], hi[COLS];
    unsigned w[3][COLS];
#pragma unroll
    for (int j = 0; j < 3; j++) {
        const float *row = (const float *)jf_src_row(s, y + j);
#pragma unroll
        for (int u = 0; u < COLS; u++) {
            float v = 0.0f;
            if (row && inside) {
                v = __ldg(&row[(x0 - 1 + u) * CH + c]);
            } else if (row) {
                const int sx = jf_border_index(x0 - 1 + u, s.w, s.border);
                v = sx >= 0 ? __ldg(&row[sx * CH + c]) : 0.0f;
            }
            w[j][u] = jf_key<float>::of(v);
        }
    }
#pragma unroll
    for (int u = 0; u < COLS; u++) { /* each column sorted once */
        const unsigned t0 = jf_min(w[0][u], w[1][u]), t1 = jf_max(w[0][u], w[1][u]);
        lo[u] = jf_min(t0, w[2][u]);
        hi[u] = jf_max(t1, w[2][u]);
        mid[u] = jf_max(t0, jf_min(t1, w[2][u]));
    }
    float *d = out + (size_t)y * out_pitch + c;
#pragma unroll
    for (int m = 0; m < PX; m++)
        if (x0 + m < s.w)
            d[(x0 + m) * CH] = jf_key<float>::back(
                jf_med3(jf_max(jf_max(lo[m], lo[m + 1]), lo[m + 2]), jf_med3(mid[m], mid[m + 1], mid[m + 2]),
                        jf_min(jf_min(hi[m], hi[m + 1]), hi[m + 2])));
}

extern "C" jf_status jf_median_float_run(const jf_gpu_call *g)
{
    jf_context *ctx = g->ctx;
    const jf_image *shape = g->in->shape;
    const dim3 block((unsigned)g->choice->block_x, (unsigned)g->choice->block_y);
    const dim3 grid = jf_grid((shape->width + MEDIAN_FLOAT_PX - 1) / MEDIAN_FLOAT_PX * shape->channels,
                              shape->height, 1, block);
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
