/*
 * Convolution of rank-1 weights (w[j][i] = col[j] * row[i]: box, Gaussian,
 * any such user kernel) at any k: the fast variant's path for them.
 *
 * A k x k window costs k + k multiply-adds instead of k^2.  Each thread
 * computes a PY x 4 block of outputs from the block's tile in shared memory
 * (16-byte loads, as the fast variant's): for every tile row its outputs
 * need, it sums that row horizontally for its 4 columns (the row weights,
 * 4 taps per shared load: a word of 8-bit or 8 bytes of 16-bit samples,
 * unpacked to floats without the conversion unit), then adds the 4 sums,
 * times the column weight, into each output row that uses the tile row.
 * Nothing is written between the passes, so the path needs no scratch
 * image (on a Nano the float rows of a two-pass version would be 4 bytes
 * a sample of its 4 GB).  The price is that threads above and below one
 * another both sum the rows they share: (PY + k - 1) / PY horizontal sums
 * per output row.
 *
 * k is a run-time value (3 to JF_CONV_MAX_KSIZE): the taps run in groups
 * of 4, the row weights past k are zero (adding 0 x a finite sample leaves
 * a float sum as it was).  Sums run in the CPU reference's order (each row
 * left to right, then the rows top to bottom, jf_conv_cpu's separable
 * path), so results match it within the 1 level that fused multiply-adds
 * allow.
 */
#include "filters/conv/conv.h"
#include "filters/conv/conv_shapes.h"
#include "filters/filter_cuda.cuh"
#include "filters/filters.h"
#include "filters/tile.cuh"
#include "filters/conv/conv_fast.cuh"

/* Output rows per thread: more rows share each row's horizontal sums
 * among more outputs ((PY + k - 1) / PY sums per output row), at the cost
 * of PY x 4 accumulators. */
#define SEP_ROWS(k) JF_CONV_SEP_ROWS(k)
#if JF_CONV_SEPARABLE_MIN_K < 7
#error "sep_accumulate needs k >= SEP_ROWS(k) - 1"
#endif
#define SEP_TAPS ((JF_CONV_MAX_KSIZE + 3) & ~3)      /* row weights, in groups of 4 */

/* Both weight vectors as a by-value kernel parameter (512 bytes). */
struct sep_weights {
    float col[JF_CONV_MAX_KSIZE];
    float row[SEP_TAPS];
};

/* Four samples starting at `at` (a multiple of 4) of a tile row, as floats. */
template <typename T> struct sep_load;
template <> struct sep_load<unsigned char> {
    static __device__ __forceinline__ void get(const unsigned char *row, int at, float (&v)[4])
    {
        const unsigned wd[1] = {*(const unsigned *)(row + at)};
#pragma unroll
        for (int i = 0; i < 4; i++)
            v[i] = fast_sample<unsigned char>::get(wd, i);
    }
};
template <> struct sep_load<unsigned short> {
    static __device__ __forceinline__ void get(const unsigned char *row, int at, float (&v)[4])
    {
        const uint2 p = *(const uint2 *)(row + 2 * at);
        const unsigned wd[2] = {p.x, p.y};
#pragma unroll
        for (int i = 0; i < 4; i++)
            v[i] = fast_sample<unsigned short>::get(wd, i);
    }
};

/* hsum[px] = sum over i < taps of row weight i x the sample px + i of a tile
 * row (from the thread's first column), left to right. */
template <typename T>
__device__ __forceinline__ void sep_row_sums(const unsigned char *row, int taps,
                                             const sep_weights &W, float (&hsum)[PX])
{
    float cur[4], nxt[4];
#pragma unroll
    for (int px = 0; px < PX; px++)
        hsum[px] = 0.0f;
    sep_load<T>::get(row, 0, cur);
    for (int q = 0; q < taps; q += 4) {
        sep_load<T>::get(row, q + 4, nxt);
        const float v[8] = {cur[0], cur[1], cur[2], cur[3], nxt[0], nxt[1], nxt[2], nxt[3]};
#pragma unroll
        for (int t = 0; t < 4; t++) {
            const float wt = W.row[q + t];
#pragma unroll
            for (int px = 0; px < PX; px++)
                hsum[px] = fmaf(wt, v[px + t], hsum[px]);
        }
#pragma unroll
        for (int i = 0; i < 4; i++)
            cur[i] = nxt[i];
    }
}

template <int PY>
__device__ __forceinline__ void sep_add(float (&acc)[PY][PX], int py, float wt, const float (&hsum)[PX])
{
#pragma unroll
    for (int px = 0; px < PX; px++)
        acc[py][px] = fmaf(wt, hsum[px], acc[py][px]);
}

/*
 * acc[py][px] for the thread's block, from the tile (rows tile_w bytes).
 * Tile row r is window row j = r - py of output row py.  Every output row
 * uses rows PY - 1 .. k - 1; the PY - 1 rows before them reach only the
 * rows above (py <= r), the PY - 1 after only those below: those two runs
 * unroll, so no row tests which outputs it belongs to (k >= PY - 1, which
 * SEP_ROWS and JF_CONV_SEPARABLE_MIN_K guarantee).
 */
template <typename T, int PY>
__device__ __forceinline__ void sep_accumulate(const unsigned char *s_tile, int tile_w, int k,
                                               const sep_weights &W, float (&acc)[PY][PX])
{
    const int taps = (k + 3) & ~3;
    const unsigned char *rows = s_tile + threadIdx.y * PY * tile_w + threadIdx.x * PX * sizeof(T);
    float hsum[PX];
#pragma unroll
    for (int py = 0; py < PY; py++)
#pragma unroll
        for (int px = 0; px < PX; px++)
            acc[py][px] = 0.0f;
#pragma unroll
    for (int r = 0; r < PY - 1; r++) {
        sep_row_sums<T>(rows + r * tile_w, taps, W, hsum);
#pragma unroll
        for (int py = 0; py <= r; py++)
            sep_add(acc, py, W.col[r - py], hsum);
    }
    for (int r = PY - 1; r < k; r++) {
        sep_row_sums<T>(rows + r * tile_w, taps, W, hsum);
#pragma unroll
        for (int py = 0; py < PY; py++)
            sep_add(acc, py, W.col[r - py], hsum);
    }
#pragma unroll
    for (int t = 0; t < PY - 1; t++) {
        sep_row_sums<T>(rows + (k + t) * tile_w, taps, W, hsum);
#pragma unroll
        for (int py = t + 1; py < PY; py++)
            sep_add(acc, py, W.col[k + t - py], hsum);
    }
}

template <typename T, int PY>
__global__ void conv_separable_kernel(const jf_tile_src src, int w, int h, int k,
                                      unsigned char *__restrict__ out, size_t out_pitch, int tile_w,
                                      int word_stores, const sep_weights W)
{
    extern __shared__ unsigned int s_tile[];
    fast_grey_tile<T, PY>(s_tile, src, w, h, k, out, out_pitch, tile_w,
                          word_stores, [&](const unsigned int *tile, float (&acc)[PY][PX]) {
                              sep_accumulate<T, PY>((const unsigned char *)tile, tile_w, k, W, acc);
                          });
}

/* Several channels: fast_interleaved_tile around the same accumulation. */
template <typename T, int PY>
__global__ void conv_separable_interleaved_kernel(const jf_tile_src src, int w, int h,
                                                  int ch, int k, unsigned char *__restrict__ out,
                                                  size_t out_pitch, int tile_w, int out_piece,
                                                  const sep_weights W)
{
    extern __shared__ unsigned int smem[];
    fast_interleaved_tile<T, PY>(smem, src, w, h, ch, k, out, out_pitch,
                                 tile_w, out_piece,
                                 [&](const unsigned int *tile, float (&acc)[PY][PX]) {
                                     sep_accumulate<T, PY>((const unsigned char *)tile, tile_w, k,
                                                           W, acc);
                                 });
}

template <typename T>
static const void *sep_kernel(int k, int ch)
{
    if (SEP_ROWS(k) == 16)
        return ch == 1 ? (const void *)conv_separable_kernel<T, 16>
                       : (const void *)conv_separable_interleaved_kernel<T, 16>;
    return ch == 1 ? (const void *)conv_separable_kernel<T, 8>
                   : (const void *)conv_separable_interleaved_kernel<T, 8>;
}

template <typename T, int PY>
static void sep_launch(dim3 grid, dim3 block, size_t smem, cudaStream_t stream,
                       const jf_filter_in *in, const jf_image *shape, int k,
                       const jf_dview *out, int tile_w, int word_stores,
                       const sep_weights &W)
{
    if (shape->channels == 1)
        conv_separable_kernel<T, PY><<<grid, block, smem, stream>>>(
            in->src, shape->width, shape->height, k, out->ptr,
            out->pitch, tile_w, word_stores, W);
    else
        conv_separable_interleaved_kernel<T, PY><<<grid, block, smem, stream>>>(
            in->src, shape->width, shape->height,
            shape->channels, k, out->ptr, out->pitch, tile_w,
            jf_out_piece(out->ptr, out->pitch), W);
}

template <typename T>
static jf_status launch_as(jf_context *ctx, const jf_filter_in *in, int k, const float *col, const float *row,
                           int bx, int by, const jf_dview *out)
{
    const jf_image *shape = in->shape;
    const int ch = shape->channels;
    int tile_w, id;
    sep_weights W;
    jf_status st;
    for (int i = 0; i < JF_CONV_MAX_KSIZE; i++)
        W.col[i] = i < k ? col[i] : 0.0f;
    for (int i = 0; i < SEP_TAPS; i++)
        W.row[i] = i < k ? row[i] : 0.0f;
    const size_t smem = jf_conv_sep_smem(k, ch, (int)sizeof(T), bx, by, &tile_w);
    const dim3 block((unsigned)bx, (unsigned)by);
    const dim3 grid = jf_grid(shape->width, shape->height, 1,
                              dim3((unsigned)(bx * PX), (unsigned)(by * SEP_ROWS(k))));
    const int word_stores = ((uintptr_t)out->ptr % 4) == 0 && out->pitch % 4 == 0;
    const cudaStream_t stream = ctx->gpu->stream;
    if ((st = jf_gpu_launch_fits(ctx, sep_kernel<T>(k, ch), "conv fast (separable)", bx * by, smem)) != JF_OK ||
        (st = jf_gpu_timer_start(ctx, &id)) != JF_OK)
        return st;
    if (SEP_ROWS(k) == 16)
        sep_launch<T, 16>(grid, block, smem, stream, in, shape, k, out, tile_w, word_stores, W);
    else
        sep_launch<T, 8>(grid, block, smem, stream, in, shape, k, out, tile_w, word_stores, W);
    return jf_gpu_filter_done(ctx, id, "conv_separable_kernel", "conv", "fast-separable", k, shape, 0);
}

jf_status jf_conv_separable_launch(jf_context *ctx, const jf_filter_in *in, int k, const float *col,
                                   const float *row, int bx, int by, const jf_dview *out)
{
    if (in->shape->sample == JF_SAMPLE_U16)
        return launch_as<unsigned short>(ctx, in, k, col, row, bx, by, out);
    return launch_as<unsigned char>(ctx, in, k, col, row, bx, by, out);
}
