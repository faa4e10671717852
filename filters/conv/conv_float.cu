/*
 * Convolution of float32 images by rank-1 weights (box, Gaussian, any
 * separable user kernel).  To k = 11, each thread sums 4 x 4 outputs (4 x
 * 8 from k = 9) in registers straight from the image.  Beyond, where its tile fits the
 * block's shared memory (to k = 31 with four channels on 48 KiB), one
 * pass: a block loads its input tile (the border rule applied as it
 * loads, each column mapped to the image once), sums each tile row for
 * its outputs into shared memory, then sums k of those down, so the
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

/* One pass, for the larger k: a block's bx samples across (interleaved,
 * as the image) and by x ROWS rows down; each thread ROWS consecutive
 * outputs of a column.  CH, the channels, is a constant (a sample's pixel
 * is a multiply).  The tile's row addresses are found once a block, each
 * thread maps its tile columns to the image once, and the loads of
 * several rows are in flight together. */
template <int CH>
__global__ void conv_float_tile_kernel(const jf_tile_src s, int k, float *__restrict__ out,
                                       size_t out_pitch, const float_sep_weights W)
{
    extern __shared__ float smem[];
    const int bx = blockDim.x, by = blockDim.y, n = s.w * CH, r = k / 2;
    const int out_rows = by * JF_CONV_FLOAT_ROWS, rows = out_rows + k - 1;
    const int tile_w = bx + (k - 1) * CH;
    const int i0 = blockIdx.x * bx, y0 = blockIdx.y * out_rows;
    const float **rowp = (const float **)(void *)smem; /* NULL: a zero row */
    float *tile = (float *)(void *)(rowp + rows), *hsum = tile + rows * tile_w;
    for (int t = threadIdx.y * bx + threadIdx.x; t < rows; t += bx * by)
        rowp[t] = (const float *)jf_src_row(s, y0 + t);
    __syncthreads();
    /* the input tile: padded rows y0 .. y0 + rows - 1, samples i0 - r CH on */
    for (int tx = threadIdx.x; tx < tile_w; tx += bx) {
        const int si = i0 - r * CH + tx; /* a sample index, maybe outside the row */
        const int px = si >= 0 ? si / CH : -((-si + CH - 1) / CH);
        const int sx = (unsigned)px < (unsigned)s.w ? px : jf_border_index(px, s.w, s.border);
        const int at = sx >= 0 ? sx * CH + (si - px * CH) : -1;
#pragma unroll 8 /* the loads of several rows in flight at once */
        for (int ty = threadIdx.y; ty < rows; ty += by) {
            const float *row = rowp[ty];
            tile[ty * tile_w + tx] = row && at >= 0 ? __ldg(row + at) : 0.0f;
        }
    }
    __syncthreads();
    /* each tile row summed across for the block's samples */
    for (int ty = threadIdx.y; ty < rows; ty += by) {
        const float *p = tile + ty * tile_w + threadIdx.x;
        float acc = 0.0f;
        for (int t = 0; t < k; t++)
            acc = fmaf(W.row[t], p[t * CH], acc);
        hsum[ty * bx + threadIdx.x] = acc;
    }
    __syncthreads();
    const int i = i0 + threadIdx.x, oy0 = threadIdx.y * JF_CONV_FLOAT_ROWS;
    if (i >= n)
        return;
    const float *p = hsum + oy0 * bx + threadIdx.x;
    for (int m = 0; m < JF_CONV_FLOAT_ROWS && y0 + oy0 + m < s.h; m++) {
        float acc = 0.0f;
        for (int j = 0; j < k; j++)
            acc = fmaf(W.col[j], p[(m + j) * bx], acc);
        out[(size_t)(y0 + oy0 + m) * out_pitch + i] = acc;
    }
}

/* Small rank-1 kernels (k <= 11) without shared memory: each thread PX
 * neighbouring pixels of one channel over R rows (more rows for the larger
 * k, whose input rows they share), each input row's sums across kept in
 * registers and added into the outputs they belong to (the same order of
 * sums as the CPU's).  The reads of neighbouring threads meet in L1. */
#define CONV_FLOAT_PX 4
#define CONV_FLOAT_REG_ROWS(k) ((k) >= 9 ? 8 : 4)
template <int CH, int K>
__global__ void conv_float_regs_kernel(const jf_tile_src s, float *__restrict__ out, size_t out_pitch,
                                       const float_sep_weights W)
{
    enum { PX = CONV_FLOAT_PX, R = CONV_FLOAT_REG_ROWS(K), COLS = PX + K - 1, RAD = K / 2 };
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    const int q = t / CH, c = t - q * CH, x0 = q * PX;
    const int y0 = (blockIdx.y * blockDim.y + threadIdx.y) * R;
    if (x0 >= s.w || y0 >= s.h)
        return;
    const bool inside = x0 >= RAD && x0 + PX - 1 + RAD < s.w;
    int at[COLS]; /* each column's sample in a row; -1: zero */
#pragma unroll
    for (int u = 0; u < COLS; u++) {
        const int sx = inside ? x0 - RAD + u : jf_border_index(x0 - RAD + u, s.w, s.border);
        at[u] = sx >= 0 ? sx * CH + c : -1;
    }
    float acc[R][PX];
#pragma unroll
    for (int o = 0; o < R; o++)
#pragma unroll
        for (int m = 0; m < PX; m++)
            acc[o][m] = 0.0f;
#pragma unroll
    for (int j = 0; j < R + K - 1; j++) {
        const float *row = (const float *)jf_src_row(s, y0 + j);
        float v[COLS];
#pragma unroll
        for (int u = 0; u < COLS; u++)
            v[u] = row && at[u] >= 0 ? __ldg(row + at[u]) : 0.0f;
#pragma unroll
        for (int m = 0; m < PX; m++) {
            float h = 0.0f;
#pragma unroll
            for (int tt = 0; tt < K; tt++)
                h = fmaf(W.row[tt], v[m + tt], h);
#pragma unroll
            for (int o = 0; o < R; o++)
                if (j - o >= 0 && j - o < K)
                    acc[o][m] = fmaf(W.col[j - o], h, acc[o][m]);
        }
    }
#pragma unroll
    for (int o = 0; o < R; o++)
        if (y0 + o < s.h) {
            float *d = out + (size_t)(y0 + o) * out_pitch + c;
#pragma unroll
            for (int m = 0; m < PX; m++)
                if (x0 + m < s.w)
                    d[(x0 + m) * CH] = acc[o][m];
        }
}

typedef void (*float_regs_fn)(const jf_tile_src, float *, size_t, const float_sep_weights);

template <int CH>
static float_regs_fn float_regs_for_k(int k)
{
    return k == 3 ? conv_float_regs_kernel<CH, 3> : k == 5 ? conv_float_regs_kernel<CH, 5>
           : k == 7 ? conv_float_regs_kernel<CH, 7> : k == 9 ? conv_float_regs_kernel<CH, 9>
                                                    : conv_float_regs_kernel<CH, 11>;
}

typedef void (*float_tile_fn)(const jf_tile_src, int, float *, size_t, const float_sep_weights);

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
    const float_tile_fn kernel = shape->channels == 1 ? conv_float_tile_kernel<1>
                                 : shape->channels == 2 ? conv_float_tile_kernel<2>
                                 : shape->channels == 3 ? conv_float_tile_kernel<3> : conv_float_tile_kernel<4>;
    jf_status st;
    int id;
    if ((st = jf_gpu_launch_fits(ctx, (const void *)kernel, "conv float tile", bx * by, smem)) != JF_OK ||
        (st = jf_gpu_timer_start(ctx, &id)) != JF_OK)
        return st;
    kernel<<<grid, block, smem, ctx->gpu->stream>>>(in->src, k, (float *)out->ptr,
                                                     out->pitch / sizeof(float), weights_of(k, col, row));
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

extern "C" jf_status jf_conv_float_regs_run(const jf_gpu_call *g)
{
    jf_context *ctx = g->ctx;
    const jf_image *shape = g->in->shape;
    const int k = g->k, ch = shape->channels;
    const dim3 block((unsigned)g->choice->block_x, (unsigned)g->choice->block_y);
    const int threads_x = (shape->width + CONV_FLOAT_PX - 1) / CONV_FLOAT_PX * ch;
    const int threads_y = (shape->height + CONV_FLOAT_REG_ROWS(k) - 1) / CONV_FLOAT_REG_ROWS(k);
    const float_regs_fn kernel = ch == 1 ? float_regs_for_k<1>(k) : ch == 2 ? float_regs_for_k<2>(k)
                                 : ch == 3 ? float_regs_for_k<3>(k) : float_regs_for_k<4>(k);
    jf_status st;
    int id;
    if (k < 3 || k > 11 || k % 2 == 0)
        return jf_fail(JF_ERR_INTERNAL, "conv_float_regs_kernel runs k = 3 to 11, not %d", k);
    if ((st = jf_gpu_launch_fits(ctx, (const void *)kernel, "conv float registers",
                                 (int)(block.x * block.y), 0)) != JF_OK ||
        (st = jf_gpu_timer_start(ctx, &id)) != JF_OK)
        return st;
    kernel<<<jf_grid(threads_x, threads_y, 1, block), block, 0, ctx->gpu->stream>>>(
        g->in->src, (float *)g->out->ptr, g->out->pitch / sizeof(float), weights_of(k, g->col, g->row));
    return jf_gpu_filter_done(ctx, id, "conv_float_regs_kernel", "conv", "fast-float", k, shape, 0);
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
