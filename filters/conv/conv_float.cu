/*
 * Convolution of float32 images by rank-1 weights (box, Gaussian, any
 * separable user kernel).  Where its tile fits the block's shared memory
 * (to k = 31 with four channels on 48 KiB), one pass: a block loads its
 * input tile (the border rule applied as it loads), sums each tile row
 * for its outputs into shared memory, then sums k of those down, so the
 * image is read once and the output written once.  Beyond, two passes
 * through global memory, the row sums
 * of every padded row (read from the image through the border rule: no
 * pad pass) into a float scratch of (h + k - 1) rows as interleaved as the
 * image, then the column sums of k of them.  Each thread reads its taps
 * from L1 (neighbouring threads share them) and writes one float a pass,
 * coalesced, so both passes stream at about the memory's pace; the 8- and 16-bit
 * separable kernel (conv_separable.cu) keeps the row sums in registers
 * instead, but pads its taps with zero weights, which a NaN or an infinity
 * in a float image would turn into NaN.  Every tap counts here, as on the
 * CPU (conv_cpu.c's separable path, in the same order: each row left to
 * right, then the rows top to bottom), and fused multiply-adds keep the
 * results within the stated tolerance of it.
 */
#include "filters/conv/conv.h"
#include "filters/conv/conv_shapes.h"
#include "filters/filter_cuda.cuh"
#include "filters/filters.h"
#include "filters/tile.cuh"

/* Both factors as a by-value kernel parameter (504 bytes). */
struct float_sep_weights {
    float col[JF_CONV_MAX_KSIZE];
    float row[JF_CONV_MAX_KSIZE];
};

/* One pass: a block's bx samples across (interleaved, as the image) and
 * by x ROWS rows down; each thread ROWS outputs, by rows apart. */
__global__ void conv_float_tile_kernel(const jf_tile_src s, int k, float *__restrict__ out,
                                       size_t out_pitch, const float_sep_weights W)
{
    extern __shared__ float smem[];
    const int bx = blockDim.x, by = blockDim.y, ch = s.ch, n = s.w * ch, r = k / 2;
    const int out_rows = by * JF_CONV_FLOAT_ROWS, rows = out_rows + k - 1;
    const int tile_w = bx + (k - 1) * ch;
    const int i0 = blockIdx.x * bx, y0 = blockIdx.y * out_rows;
    const int tid = threadIdx.y * bx + threadIdx.x, threads = bx * by;
    float *tile = smem, *hsum = smem + (size_t)rows * tile_w;
    /* the input tile: padded rows y0 .. y0 + rows - 1, samples i0 - r ch on */
    for (int e = tid; e < rows * tile_w; e += threads) {
        const int ty = e / tile_w, tx = e - ty * tile_w;
        const float *row = (const float *)jf_src_row(s, y0 + ty);
        const int si = i0 - r * ch + tx; /* a sample index, maybe outside the row */
        const int px = si >= 0 ? si / ch : -((-si + ch - 1) / ch);
        const int c = si - px * ch;
        const int sx = (unsigned)px < (unsigned)s.w ? px : jf_border_index(px, s.w, s.border);
        tile[e] = row && sx >= 0 ? __ldg(&row[(size_t)sx * ch + c]) : 0.0f;
    }
    __syncthreads();
    /* each tile row summed across for the block's samples */
    for (int e = tid; e < rows * bx; e += threads) {
        const int ty = e / bx, q = e - ty * bx;
        const float *p = tile + (size_t)ty * tile_w + q;
        float acc = 0.0f;
        for (int t = 0; t < k; t++)
            acc = fmaf(W.row[t], p[t * ch], acc);
        hsum[e] = acc;
    }
    __syncthreads();
    const int i = i0 + threadIdx.x;
    if (i >= n)
        return;
#pragma unroll
    for (int m = 0; m < JF_CONV_FLOAT_ROWS; m++) {
        const int oy = threadIdx.y + m * by, y = y0 + oy;
        if (y >= s.h)
            return;
        const float *p = hsum + (size_t)oy * bx + threadIdx.x;
        float acc = 0.0f;
        for (int j = 0; j < k; j++)
            acc = fmaf(W.col[j], p[(size_t)j * bx], acc);
        out[(size_t)y * out_pitch + i] = acc;
    }
}

/* tmp[py][i] = sum over t of row[t] x the padded row py's sample of pixel
 * i / ch + t, channel i % ch, for every padded row py (h + k - 1 of them)
 * and output sample i: read straight from the image through the border
 * rule (no pad pass), interleaved as the image is. */
__global__ void conv_float_rows_kernel(const jf_tile_src s, int k, float *__restrict__ tmp,
                                       size_t tmp_pitch, const float_sep_weights W)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int py = blockIdx.y * blockDim.y + threadIdx.y;
    const int n = s.w * s.ch;
    if (i >= n || py >= s.h + k - 1)
        return;
    const float *row = (const float *)jf_src_row(s, py);
    const int x = i / s.ch, c = i - x * s.ch;
    float acc = 0.0f;
    if (row && x >= s.r && x + s.r < s.w) { /* the window inside the row */
        const float *p = row + (size_t)(x - s.r) * s.ch + c;
        for (int t = 0; t < k; t++)
            acc = fmaf(W.row[t], __ldg(&p[(size_t)t * s.ch]), acc);
    } else {
        for (int t = 0; t < k; t++) {
            const int sx = jf_border_index(x + t - s.r, s.w, s.border);
            const float v = row && sx >= 0 ? __ldg(&row[(size_t)sx * s.ch + c]) : 0.0f;
            acc = fmaf(W.row[t], v, acc);
        }
    }
    tmp[(size_t)py * tmp_pitch + i] = acc;
}

/* out[y][i] = sum over j of col[j] x tmp[y + j][i]. */
__global__ void conv_float_cols_kernel(const float *__restrict__ tmp, size_t tmp_pitch, int n,
                                       int h, int k, float *__restrict__ out, size_t out_pitch,
                                       const float_sep_weights W)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= n || y >= h)
        return;
    const float *p = tmp + (size_t)y * tmp_pitch + i;
    float acc = 0.0f;
    for (int j = 0; j < k; j++)
        acc = fmaf(W.col[j], __ldg(&p[(size_t)j * tmp_pitch]), acc);
    out[(size_t)y * out_pitch + i] = acc;
}

static float_sep_weights weights_of(int k, const float *col, const float *row)
{
    float_sep_weights W;
    for (int i = 0; i < JF_CONV_MAX_KSIZE; i++) {
        W.col[i] = i < k ? col[i] : 0.0f;
        W.row[i] = i < k ? row[i] : 0.0f;
    }
    return W;
}

jf_status jf_conv_float_tile_launch(jf_context *ctx, const jf_filter_in *in, int k, const float *col,
                                    const float *row, int bx, int by, const jf_dview *out)
{
    const jf_image *shape = in->shape;
    const int n = shape->width * shape->channels;
    const size_t smem = jf_conv_float_smem(k, shape->channels, bx, by);
    const dim3 block((unsigned)bx, (unsigned)by);
    const dim3 grid((unsigned)((n + bx - 1) / bx),
                    (unsigned)((shape->height + by * JF_CONV_FLOAT_ROWS - 1) / (by * JF_CONV_FLOAT_ROWS)));
    jf_status st;
    int id;
    if ((st = jf_gpu_launch_fits(ctx, (const void *)conv_float_tile_kernel, "conv float tile", bx * by,
                                 smem)) != JF_OK ||
        (st = jf_gpu_timer_start(ctx, &id)) != JF_OK)
        return st;
    conv_float_tile_kernel<<<grid, block, smem, ctx->gpu->stream>>>(
        in->src, k, (float *)out->ptr, out->pitch / sizeof(float), weights_of(k, col, row));
    return jf_gpu_filter_done(ctx, id, "conv_float_tile_kernel", "conv", "fast-float", k, shape, 0);
}

jf_status jf_conv_float_launch(jf_context *ctx, const jf_filter_in *in, int k, const float *col,
                               const float *row, int bx, int by, const jf_dview *out)
{
    const jf_image *shape = in->shape;
    const int n = shape->width * shape->channels, h = shape->height, rows = h + k - 1;
    const dim3 block((unsigned)bx, (unsigned)by);
    const float_sep_weights W = weights_of(k, col, row);
    jf_dview tmp;
    jf_status st;
    int id;
    if ((st = jf_gpu_buffer(ctx, JF_SLOT_WORK1, (size_t)n * sizeof(float), (size_t)rows,
                            JF_BUF_DEVICE, &tmp)) != JF_OK ||
        (st = jf_gpu_launch_fits(ctx, (const void *)conv_float_rows_kernel, "conv float rows",
                                 bx * by, 0)) != JF_OK ||
        (st = jf_gpu_launch_fits(ctx, (const void *)conv_float_cols_kernel, "conv float columns",
                                 bx * by, 0)) != JF_OK ||
        (st = jf_gpu_timer_start(ctx, &id)) != JF_OK)
        return st;
    conv_float_rows_kernel<<<jf_grid(n, rows, 1, block), block, 0, ctx->gpu->stream>>>(
        in->src, k, (float *)tmp.ptr, tmp.pitch / sizeof(float), W);
    JF_LAUNCH_CHECK("conv_float_rows_kernel");
    conv_float_cols_kernel<<<jf_grid(n, h, 1, block), block, 0, ctx->gpu->stream>>>(
        (const float *)tmp.ptr, tmp.pitch / sizeof(float), n, h, k, (float *)out->ptr,
        out->pitch / sizeof(float), W);
    return jf_gpu_filter_done(ctx, id, "conv_float_cols_kernel", "conv", "fast-float", k, shape, 0);
}

extern "C" jf_status jf_conv_float_tile_run(const jf_gpu_call *g)
{
    return jf_conv_float_tile_launch(g->ctx, g->in, g->k, g->col, g->row, g->choice->block_x,
                                     g->choice->block_y, g->out);
}

extern "C" jf_status jf_conv_float_run(const jf_gpu_call *g)
{
    return jf_conv_float_launch(g->ctx, g->in, g->k, g->col, g->row, g->choice->block_x,
                                g->choice->block_y, g->out);
}
