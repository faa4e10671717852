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
 * Several channels to k = 5 (conv_fast_dilated_kernel): the interleaved row
 * is one row of w ch samples whose taps lie ch samples apart, so a thread's
 * outputs are consecutive samples it stores as words, as grey does: no
 * channel passes, no output planes in shared memory.  Past k = 5 the taps
 * of four channels no longer fit the registers (52 samples a row at k = 13),
 * and each channel takes its pass over a planar tile (fast_interleaved_tile).
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

/* acc[py][px] for the thread's block, from the tile in shared memory; the
 * taps of a window row D samples apart (D: 1, or the channels of a dilated
 * row). */
template <int K, int PY, typename T, int D = 1>
__device__ __forceinline__ void fast_accumulate(const unsigned int *s_tile, int words_per_row,
                                                const fast_weights<K> &W, float (&acc)[PY][PX])
{
    enum { WIN = PX + (K - 1) * D, ROWS = PY + K - 1, WORDS = (WIN * sizeof(T) + 3) / 4 };
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
                        acc[py][px] += wt * v[px + i * D];
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

/* The image sample at dilated position q of a row of CH-channel pixels, or
 * -1 for a zero. */
template <int CH>
__device__ __forceinline__ int dilated_index(const jf_tile_src &s, int q)
{
    if ((unsigned)q < (unsigned)(s.w * CH))
        return q;
    const int p = q >= 0 ? q / CH : -((CH - 1 - q) / CH); /* floor(q / CH) */
    const int sx = jf_border_index(p, s.w, s.border);
    return sx < 0 ? -1 : sx * CH + (q - p * CH);
}

/* A piece that reaches past the row's ends: every sample's place first,
 * then all the loads at once (one sample after another, each load waited
 * for, made the edge blocks the slowest of the grid). */
template <typename T, int CH>
__device__ __forceinline__ uint4 dilated_edge_piece(const jf_tile_src &s, const unsigned char *row, int e)
{
    enum { N = 16 / (int)sizeof(T), PER_WORD = 4 / (int)sizeof(T) };
    int at[N];
    unsigned wd[4] = {0u, 0u, 0u, 0u};
#pragma unroll
    for (int j = 0; j < N; j++)
        at[j] = row ? dilated_index<CH>(s, e + j) : -1;
#pragma unroll
    for (int j = 0; j < N; j++)
        wd[j / PER_WORD] |= (at[j] >= 0 ? (unsigned)((const T *)row)[at[j]] : 0u)
                            << (8 * (int)sizeof(T) * (j % PER_WORD));
    return make_uint4(wd[0], wd[1], wd[2], wd[3]);
}

/*
 * The dilated row's tile: sample e0 of image row y0 - r and on (e0 may lie
 * before the row: e0 = x0 - r ch), tile_h rows of tile_w bytes in 16-byte
 * pieces, consecutive threads taking consecutive pieces.  Pieces inside the
 * row come from aligned 16-byte loads as a grey row's do; pieces that reach
 * past its ends a sample at a time (dilated_edge_piece), each outside
 * sample's pixel through the border rule and its channel kept.  Then the
 * barrier.
 */
template <typename T, int CH>
__device__ __forceinline__ void dilated_load_tile(unsigned int *tile_words, int tile_w, int tile_h,
                                                  const jf_tile_src &s, int e0, int y0)
{
    enum { N = 16 / (int)sizeof(T) };
    const int pieces = tile_w / 16, total = tile_h * pieces, n = s.w * CH;
    const int nthreads = blockDim.x * blockDim.y;
    const int tid = threadIdx.y * blockDim.x + threadIdx.x;
    const int b16 = (e0 * (int)sizeof(T)) & 15; /* the same for every piece of the tile */
    for (int i = tid; i < total; i += nthreads) {
        const int ty = i / pieces, e = e0 + (i - ty * pieces) * N;
        const unsigned char *row = jf_src_row(s, y0 + ty);
        if (row && s.align >= 16 && e >= 0 && e + N <= n) {
            jf_piece_raw<1> raw;
            jf_piece_load<T, 1>(row, e * (int)sizeof(T), raw);
            ((uint4 *)tile_words)[i] = jf_piece_samples<T, 1>(raw, b16);
        } else {
            ((uint4 *)tile_words)[i] = dilated_edge_piece<T, CH>(s, row, e);
        }
    }
    __syncthreads();
}

/* Several channels to k = 5: the dilated row, stored as grey is. */
template <int K, int CH, typename T>
__global__ void conv_fast_dilated_kernel(const jf_tile_src src, int w, int h, unsigned char *__restrict__ out,
                                         size_t out_pitch, int tile_w, int word_stores,
                                         const fast_weights<K> W)
{
    enum { PY = FAST_ROWS(K) };
    extern __shared__ unsigned int s_tile[];
    const int n = w * CH; /* samples a row */
    const int x0 = blockIdx.x * blockDim.x * PX, y0 = blockIdx.y * blockDim.y * PY;
    const int ox = x0 + threadIdx.x * PX, oy = y0 + threadIdx.y * PY;
    float acc[PY][PX];

    dilated_load_tile<T, CH>(s_tile, tile_w, blockDim.y * PY + K - 1, src, x0 - src.r * CH, y0);
    if (ox >= n || oy >= h)
        return;
    fast_accumulate<K, PY, T, CH>(s_tile, tile_w / 4, W, acc);
    fast_store_block<T>(acc, out, out_pitch, ox, oy, n, h, word_stores);
}

/* Several channels: the dilated kernel to JF_CONV_DILATED_MAX_K, the
 * channel passes past it (only the kernels a k uses are instantiated). */
template <int K, typename T, bool DILATED = (K <= JF_CONV_DILATED_MAX_K)>
struct several_channels {
    static const void *kernel(int ch)
    {
        return ch == 2 ? (const void *)conv_fast_dilated_kernel<K, 2, T>
               : ch == 3 ? (const void *)conv_fast_dilated_kernel<K, 3, T>
                         : (const void *)conv_fast_dilated_kernel<K, 4, T>;
    }
    static void launch(dim3 grid, dim3 block, size_t smem, cudaStream_t stream, const jf_filter_in *in,
                       const jf_image *shape, const jf_dview *out, int tile_w, int word_stores,
                       int out_piece, const fast_weights<K> &W)
    {
        const int ch = shape->channels, w = shape->width, h = shape->height;
        (void)out_piece;
        if (ch == 2)
            conv_fast_dilated_kernel<K, 2, T><<<grid, block, smem, stream>>>(in->src, w, h, out->ptr, out->pitch,
                                                                             tile_w, word_stores, W);
        else if (ch == 3)
            conv_fast_dilated_kernel<K, 3, T><<<grid, block, smem, stream>>>(in->src, w, h, out->ptr, out->pitch,
                                                                             tile_w, word_stores, W);
        else
            conv_fast_dilated_kernel<K, 4, T><<<grid, block, smem, stream>>>(in->src, w, h, out->ptr, out->pitch,
                                                                             tile_w, word_stores, W);
    }
};

template <int K, typename T>
struct several_channels<K, T, false> {
    static const void *kernel(int) { return (const void *)conv_fast_interleaved_kernel<K, T>; }
    static void launch(dim3 grid, dim3 block, size_t smem, cudaStream_t stream, const jf_filter_in *in,
                       const jf_image *shape, const jf_dview *out, int tile_w, int word_stores,
                       int out_piece, const fast_weights<K> &W)
    {
        (void)word_stores;
        conv_fast_interleaved_kernel<K, T><<<grid, block, smem, stream>>>(
            in->src, shape->width, shape->height, shape->channels, out->ptr, out->pitch, tile_w, out_piece, W);
    }
};

/* The kernel for this k and channel count (for the launch limits). */
template <int K, typename T>
static const void *fast_kernel(int ch)
{
    return ch == 1 ? (const void *)conv_fast_kernel<K, T> : several_channels<K, T>::kernel(ch);
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
        several_channels<K, T>::launch(grid, block, smem, stream, in, shape, out, tile_w, word_stores,
                                       out_piece, W);
}

/* The block is the variant table's (conv_variants.c), its shared memory
 * conv_shapes.h's. */
template <typename T>
static jf_status launch_as(jf_context *ctx, const jf_filter_in *in, int k, const float *weights, int bx, int by,
                           const jf_dview *out)
{
    const jf_image *shape = in->shape;
    const int ch = shape->channels;
    int tile_w;
    const size_t smem = jf_conv_fast_smem(k, ch, (int)sizeof(T), bx, by, &tile_w);
    const dim3 block((unsigned)bx, (unsigned)by);
    /* a block per tile of the row's samples: w ch of them in a dilated row;
     * else w (one block does every channel of its tile) */
    const int across = jf_conv_fast_dilated(k, ch) ? shape->width * ch : shape->width;
    const dim3 grid = jf_grid(across, shape->height, 1, dim3((unsigned)(bx * PX), (unsigned)(by * FAST_ROWS(k))));
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
