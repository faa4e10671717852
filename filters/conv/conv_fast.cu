/*
 * Convolution, fast variant: register blocking on the shared tile.
 *
 * Each thread computes a 4 x 8 block of outputs (4 x 4 at K = 11, 13).  It walks
 * the tile rows its block needs once, reading each row as 4-byte words and
 * unpacking the 4 + K - 1 samples (8 or 16 bits) to floats once, then adds
 * that row into every output row that uses it.  K is a template parameter
 * (3 to JF_CONV_FAST_UNROLLED_MAX_K), so the loops unroll
 * completely and the window lives in registers.  The weights travel as a
 * kernel parameter (K^2 floats, 676 bytes at K = 13, well inside the 4 KiB
 * parameter space of every CUDA version): parameters live in a constant
 * bank, so every weight is an immediate operand of its multiply-add
 * (c[0x0][offset]), and being part of the launch they are ordered with it on
 * the stream: no shared symbol, no lock, no device-wide wait.  Per output:
 * K^2 FMAs and a fraction of a shared load, where the one-pixel-per-thread
 * kernels spend K^2 loads and K^2 weight loads.
 *
 * Sums run in the CPU reference's order (window row by row, left to right),
 * so results match it within the 1 level that fused multiply-adds allow.
 */
#include "filters/conv/conv.h"
#include "filters/conv/conv_shapes.h"
#include "filters/filter_cuda.cuh"
#include "filters/filters.h"
#include "filters/tile.cuh"
#include "filters/conv/conv_fast.cuh"

/* Output rows per thread: 8 up to k = 9 (fewer halo rows per output); 4
 * from k = 11, where 8 rows need 96 registers (docs/kernels/studies.md, "The
 * fast convolution"). */
#define FAST_ROWS(K) JF_CONV_FAST_ROWS(K)

/* The weights as a by-value kernel parameter. */
template <int K>
struct fast_weights {
    float w[K * K];
};

/* acc[py][px] for the thread's block, from the tile in shared memory. */
template <int K, int PY, typename T>
__device__ __forceinline__ void fast_accumulate(const unsigned int *s_tile, int words_per_row,
                                                const fast_weights<K> &W, float (&acc)[PY][PX])
{
    enum { WIN = PX + K - 1, ROWS = PY + K - 1, WORDS = (WIN * sizeof(T) + 3) / 4 };
#pragma unroll
    for (int py = 0; py < PY; py++)
#pragma unroll
        for (int px = 0; px < PX; px++)
            acc[py][px] = 0.0f;
    const unsigned int *row = s_tile + threadIdx.y * PY * words_per_row +
                              threadIdx.x * (PX * (int)sizeof(T) / 4);
#pragma unroll
    for (int r = 0; r < ROWS; r++) {
        unsigned int wd[WORDS];
        float v[WIN];
#pragma unroll
        for (int q = 0; q < WORDS; q++)
            wd[q] = row[r * words_per_row + q];
#pragma unroll
        for (int i = 0; i < WIN; i++)
            v[i] = fast_sample<T>::get(wd, i);
#pragma unroll
        for (int py = 0; py < PY; py++) {
            const int j = r - py; /* window row of this tile row for output row py */
            if (j >= 0 && j < K) {
#pragma unroll
                for (int i = 0; i < K; i++) {
                    const float wt = W.w[j * K + i];
#pragma unroll
                    for (int px = 0; px < PX; px++)
                        acc[py][px] += wt * v[px + i];
                }
            }
        }
    }
}

/* Grey: each thread stores its own outputs (fast_grey_tile). */
template <int K, typename T>
__global__ void conv_fast_kernel(const jf_tile_src src, int w, int h, unsigned char *__restrict__ out,
                                 size_t out_pitch, int tile_w, int word_stores,
                                 const fast_weights<K> W)
{
    enum { PY = FAST_ROWS(K) };
    extern __shared__ unsigned int s_tile[];
    fast_grey_tile<T, PY>(s_tile, src, w, h, K, out, out_pitch, tile_w,
                          word_stores, [&](const unsigned int *tile, float (&acc)[PY][PX]) {
                              fast_accumulate<K, PY, T>(tile, tile_w / 4, W, acc);
                          });
}

/* Several channels: fast_interleaved_tile around the same accumulation. */
template <int K, typename T>
__global__ void conv_fast_interleaved_kernel(const jf_tile_src src, int w, int h, int ch,
                                             unsigned char *__restrict__ out, size_t out_pitch,
                                             int tile_w, int out_piece,
                                             const fast_weights<K> W)
{
    enum { PY = FAST_ROWS(K) };
    extern __shared__ unsigned int smem[];
    fast_interleaved_tile<T, PY>(smem, src, w, h, ch, K, out, out_pitch,
                                 tile_w, out_piece,
                                 [&](const unsigned int *tile, float (&acc)[PY][PX]) {
                                     fast_accumulate<K, PY, T>(tile, tile_w / 4, W, acc);
                                 });
}

/* The kernel for this k and channel count (for the launch limits). */
template <int K, typename T>
static const void *fast_kernel(int ch)
{
    return ch == 1 ? (const void *)conv_fast_kernel<K, T>
                   : (const void *)conv_fast_interleaved_kernel<K, T>;
}

template <typename T>
static const void *fast_kernel_for(int k, int ch)
{
    switch (k) {
    case 3: return fast_kernel<3, T>(ch);
    case 5: return fast_kernel<5, T>(ch);
    case 7: return fast_kernel<7, T>(ch);
    case 9: return fast_kernel<9, T>(ch);
    case 11: return fast_kernel<11, T>(ch);
    default: return fast_kernel<13, T>(ch); /* 13: jf_conv_fast_launch checked k */
    }
}

template <int K, typename T>
static void launch(dim3 grid, dim3 block, size_t smem, cudaStream_t stream, const jf_filter_in *in,
                   const jf_image *shape, const jf_dview *out, int tile_w,
                   int word_stores, int out_piece, const float *weights)
{
    fast_weights<K> W;
    for (int i = 0; i < K * K; i++)
        W.w[i] = weights[i];
    if (shape->channels == 1)
        conv_fast_kernel<K, T><<<grid, block, smem, stream>>>(in->src,
                                                           shape->width, shape->height, out->ptr,
                                                           out->pitch, tile_w, word_stores, W);
    else
        conv_fast_interleaved_kernel<K, T><<<grid, block, smem, stream>>>(
            in->src, shape->width, shape->height, shape->channels,
            out->ptr, out->pitch, tile_w, out_piece, W);
}

/* The block is the variant table's (conv_variants.c), its shared memory
 * conv_shapes.h's. */
template <typename T>
static jf_status launch_as(jf_context *ctx, const jf_filter_in *in, int k, const float *weights, int bx, int by,
                           const jf_dview *out)
{
    const jf_image *shape = in->shape;
    const int py = FAST_ROWS(k), ch = shape->channels;
    int tile_w;
    const size_t smem = jf_conv_fast_smem(k, ch, (int)sizeof(T), bx, by, &tile_w);
    const dim3 block((unsigned)bx, (unsigned)by);
    /* grey: one block per tile; several channels: one block does them all */
    const dim3 grid = jf_grid(shape->width, shape->height, 1,
                              dim3((unsigned)(bx * PX), (unsigned)(by * py)));
    const int word_stores = ((uintptr_t)out->ptr % 4) == 0 && out->pitch % 4 == 0;
    const int out_piece = jf_out_piece(out->ptr, out->pitch);
    const cudaStream_t stream = ctx->gpu->stream;
    jf_status st;
    int id;
    if ((st = jf_gpu_launch_fits(ctx, fast_kernel_for<T>(k, ch), "conv fast", bx * by, smem)) != JF_OK ||
        (st = jf_gpu_timer_start(ctx, &id)) != JF_OK)
        return st;
    switch (k) {
    case 3: launch<3, T>(grid, block, smem, stream, in, shape, out, tile_w, word_stores, out_piece, weights); break;
    case 5: launch<5, T>(grid, block, smem, stream, in, shape, out, tile_w, word_stores, out_piece, weights); break;
    case 7: launch<7, T>(grid, block, smem, stream, in, shape, out, tile_w, word_stores, out_piece, weights); break;
    case 9: launch<9, T>(grid, block, smem, stream, in, shape, out, tile_w, word_stores, out_piece, weights); break;
    case 11: launch<11, T>(grid, block, smem, stream, in, shape, out, tile_w, word_stores, out_piece, weights); break;
    default: launch<13, T>(grid, block, smem, stream, in, shape, out, tile_w, word_stores, out_piece, weights); break; /* 13 */
    }
    return jf_gpu_filter_done(ctx, id, "conv_fast_kernel", "conv", "fast", k, shape, 0);
}

jf_status jf_conv_fast_launch(jf_context *ctx, const jf_filter_in *in, int k, const float *weights, int bx, int by,
                              const jf_dview *out)
{
    if (k < 3 || k > 13 || k % 2 == 0) /* the variant table's row holds k to these */
        return jf_fail(JF_ERR_INTERNAL, "conv fast: no kernel for k=%d (odd, 3 to 13)", k);
    if (in->shape->sample == JF_SAMPLE_U16)
        return launch_as<unsigned short>(ctx, in, k, weights, bx, by, out);
    return launch_as<unsigned char>(ctx, in, k, weights, bx, by, out);
}
