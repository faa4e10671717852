/*
 * Convolution, fast variant beyond k = 13: register blocking with k known
 * only at run time (15 to JF_CONV_MAX_KSIZE, arbitrary weights).
 *
 * conv_fast.cu unrolls the whole window (faster: 1.3-1.7x this kernel at
 * k = 13 on an H100), but each k it unrolls is four more kernels to build
 * for every architecture, so it stops at k = 13.  Here each thread computes a block of 8 x 8 outputs and
 * walks each tile row in chunks of 4 taps: a chunk's 4 new samples are one
 * 4- or 8-byte shared load, unpacked to floats once, and with the 8 before
 * them form the 12 samples that 4 taps of 8 outputs need; the chunk's 4
 * weights are one 16-byte shared load (every lane the same address: a
 * broadcast), reused by the 8 outputs of each of the 8 output rows the
 * tile row serves.  Shared-memory loads, not multiply-adds, limited the
 * first version (4 outputs across: a weight load for every 16 FMAs); 8
 * across halves them, 32 FMAs a weight load.
 *
 * The weights are staged in shared memory as rows of kp = k rounded up to
 * 4 (zero past k), so every chunk's weights are one aligned load; the
 * last chunk of a k that is not a multiple of 4 multiplies only its k % 4
 * taps.  They come from the context's device buffer (k^2 floats
 * do not fit the 4 KiB of kernel parameters that the k <= 13 kernels use).
 *
 * Sums run in the CPU reference's order (window rows top to bottom, each
 * left to right), so results match it within the 1 level that fused
 * multiply-adds allow.
 */
#include "filters/conv/conv.h"
#include "filters/conv/conv_shapes.h"
#include "filters/filter_cuda.cuh"
#include "filters/filters.h"
#include "filters/tile.cuh"
#include "filters/conv/conv_fast.cuh"

#define WIDE_ROWS JF_CONV_WIDE_ROWS /* output rows per thread */
#define WIDE_COLS JF_CONV_WIDE_COLS /* output columns per thread */
#define TAPS JF_CONV_WIDE_TAPS      /* taps a chunk: a word of 8-bit samples */

/* Columns of a weight row in shared memory: k rounded up to a chunk. */
static __host__ __device__ __forceinline__ int wide_kp(int k) { return (k + TAPS - 1) / TAPS * TAPS; }

/* TAPS samples of a tile row, from the thread's first column + q * TAPS,
 * as floats. */
template <typename T>
__device__ __forceinline__ void wide_samples(const unsigned int *row, int q, float *v)
{
    unsigned int wd[sizeof(T)];
#pragma unroll
    for (int i = 0; i < (int)sizeof(T); i++)
        wd[i] = row[q * (int)sizeof(T) + i];
#pragma unroll
    for (int i = 0; i < TAPS; i++)
        v[i] = fast_sample<T>::get(wd, i);
}

/* The first NT taps of chunk c (NT = TAPS but in the last chunk of a k that
 * is not a multiple of TAPS) into the output rows py that use tile row r
 * (window row r - py): ALL when every one of them does, so no row is
 * tested.  v holds the chunk's samples. */
template <int NT, bool ALL>
__device__ __forceinline__ void wide_taps(const float *s_w, int k, int kp, int r, int c,
                                          const float (&v)[WIDE_COLS + TAPS], float (&acc)[WIDE_ROWS][WIDE_COLS])
{
#pragma unroll
    for (int py = 0; py < WIDE_ROWS; py++) {
        const int j = r - py;
        if (ALL || (j >= 0 && j < k)) {
            const float4 wt = *(const float4 *)(s_w + j * kp + c * TAPS);
            const float wv[TAPS] = {wt.x, wt.y, wt.z, wt.w};
#pragma unroll
            for (int i = 0; i < NT; i++)
#pragma unroll
                for (int px = 0; px < WIDE_COLS; px++)
                    acc[py][px] += wv[i] * v[px + i];
        }
    }
}

/* Tile row r into acc: whole chunks, then the k % TAPS taps left (the
 * zero weights past k are not multiplied: 3 taps in 20 at k = 17). */
template <bool ALL, typename T>
__device__ __forceinline__ void wide_row(const unsigned int *row, const float *s_w, int k, int kp, int r,
                                         float (&acc)[WIDE_ROWS][WIDE_COLS])
{
    float v[WIDE_COLS + TAPS]; /* chunk c's taps reach samples c * TAPS .. + WIDE_COLS + TAPS - 1 */
    int c = 0;
#pragma unroll
    for (int q = 0; q < WIDE_COLS / TAPS; q++)
        wide_samples<T>(row, q, v + TAPS + q * TAPS);
    for (;; c++) {
#pragma unroll
        for (int i = 0; i < WIDE_COLS; i++)
            v[i] = v[TAPS + i];
        wide_samples<T>(row, c + WIDE_COLS / TAPS, v + WIDE_COLS);
        if (c == k / TAPS)
            break;
        wide_taps<TAPS, ALL>(s_w, k, kp, r, c, v, acc);
    }
    if (k % TAPS == 1) /* k is odd: 1 or 3 left */
        wide_taps<1, ALL>(s_w, k, kp, r, c, v, acc);
    else
        wide_taps<3, ALL>(s_w, k, kp, r, c, v, acc);
}

/* acc for the thread's block: tile rows 0 .. WIDE_ROWS + k - 2 below its
 * first, those that every output row uses (WIDE_ROWS - 1 .. k - 1) without
 * the row test.  (One loop choosing the copy per row, two copies of the row
 * code instead of three, took fewer registers and ran slower on the H100.) */
template <typename T>
__device__ __forceinline__ void wide_accumulate(const unsigned int *s_tile, int words_per_row,
                                                const float *s_w, int k, float (&acc)[WIDE_ROWS][WIDE_COLS])
{
    const int kp = wide_kp(k), all_lo = WIDE_ROWS - 1, rows = WIDE_ROWS + k - 1;
    const unsigned int *row = s_tile + threadIdx.y * WIDE_ROWS * words_per_row +
                              threadIdx.x * (WIDE_COLS * (int)sizeof(T) / 4);
    int r = 0;
#pragma unroll
    for (int py = 0; py < WIDE_ROWS; py++)
#pragma unroll
        for (int px = 0; px < WIDE_COLS; px++)
            acc[py][px] = 0.0f;
    if (all_lo <= k - 1) {
        for (; r < all_lo; r++)
            wide_row<false, T>(row + r * words_per_row, s_w, k, kp, r, acc);
        for (; r < k; r++)
            wide_row<true, T>(row + r * words_per_row, s_w, k, kp, r, acc);
    }
    for (; r < rows; r++)
        wide_row<false, T>(row + r * words_per_row, s_w, k, kp, r, acc);
}

/* The k x k weights into shared memory as rows of kp, zero past k (before
 * the tile load, whose barrier orders them for every thread). */
__device__ __forceinline__ void wide_stage_weights(float *s_w, const float *__restrict__ weights, int k)
{
    const int kp = wide_kp(k), n = k * kp;
    for (int i = threadIdx.y * blockDim.x + threadIdx.x; i < n; i += blockDim.x * blockDim.y) {
        const int j = i / kp, c = i - j * kp;
        s_w[i] = c < k ? weights[j * k + c] : 0.0f;
    }
}

template <typename T>
__global__ void conv_wide_kernel(const jf_tile_src src, int w, int h, int k, const float *__restrict__ weights,
                                 unsigned char *__restrict__ out, size_t out_pitch, int tile_w,
                                 size_t weights_at, int word_stores)
{
    extern __shared__ unsigned int s_tile[];
    float *s_w = (float *)((unsigned char *)s_tile + weights_at);
    wide_stage_weights(s_w, weights, k);
    fast_grey_tile<T, WIDE_ROWS, WIDE_COLS>(s_tile, src, w, h, k, out, out_pitch, tile_w, word_stores,
                                 [&](const unsigned int *tile, float (&acc)[WIDE_ROWS][WIDE_COLS]) {
                                     wide_accumulate<T>(tile, tile_w / 4, s_w, k, acc);
                                 });
}

template <typename T>
__global__ void conv_wide_interleaved_kernel(const jf_tile_src src, int w, int h, int ch, int k,
                                             const float *__restrict__ weights,
                                             unsigned char *__restrict__ out, size_t out_pitch,
                                             int tile_w, size_t weights_at, int out_piece)
{
    extern __shared__ unsigned int smem[];
    float *s_w = (float *)((unsigned char *)smem + weights_at);
    wide_stage_weights(s_w, weights, k);
    fast_interleaved_tile<T, WIDE_ROWS, WIDE_COLS>(smem, src, w, h, ch, k, out, out_pitch, tile_w, out_piece,
                                        [&](const unsigned int *tile, float (&acc)[WIDE_ROWS][WIDE_COLS]) {
                                            wide_accumulate<T>(tile, tile_w / 4, s_w, k, acc);
                                        });
}

template <typename T>
static const void *wide_kernel(int ch)
{
    return ch == 1 ? (const void *)conv_wide_kernel<T> : (const void *)conv_wide_interleaved_kernel<T>;
}

template <typename T>
static jf_status launch_as(jf_context *ctx, const jf_filter_in *in, int k, const float *d_weights, int bx,
                           int by, const jf_dview *out)
{
    const jf_image *shape = in->shape;
    const int ch = shape->channels;
    int tile_w, id;
    size_t weights_at;
    jf_status st;
    const size_t smem = jf_conv_wide_smem(k, ch, (int)sizeof(T), bx, by, &tile_w, &weights_at);
    const dim3 block((unsigned)bx, (unsigned)by);
    const dim3 grid = jf_grid(shape->width, shape->height, 1,
                              dim3((unsigned)(bx * WIDE_COLS), (unsigned)(by * WIDE_ROWS)));
    const cudaStream_t stream = ctx->gpu->stream;
    if ((st = jf_gpu_launch_fits(ctx, wide_kernel<T>(ch), "conv fast", bx * by, smem)) != JF_OK ||
        (st = jf_gpu_timer_start(ctx, &id)) != JF_OK)
        return st;
    if (ch == 1)
        conv_wide_kernel<T><<<grid, block, smem, stream>>>(
            in->src, shape->width, shape->height, k, d_weights, out->ptr, out->pitch, tile_w, weights_at,
            ((uintptr_t)out->ptr % 4) == 0 && out->pitch % 4 == 0);
    else
        conv_wide_interleaved_kernel<T><<<grid, block, smem, stream>>>(
            in->src, shape->width, shape->height, ch, k, d_weights, out->ptr, out->pitch, tile_w,
            weights_at, jf_out_piece(out->ptr, out->pitch));
    return jf_gpu_filter_done(ctx, id, "conv_wide_kernel", "conv", "fast", k, shape, 0);
}

jf_status jf_conv_wide_launch(jf_context *ctx, const jf_filter_in *in, int k, const float *d_weights, int bx,
                              int by, const jf_dview *out)
{
    if (in->shape->sample == JF_SAMPLE_U16)
        return launch_as<unsigned short>(ctx, in, k, d_weights, bx, by, out);
    return launch_as<unsigned char>(ctx, in, k, d_weights, bx, by, out);
}
