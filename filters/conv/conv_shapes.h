/*
 * Internal: blocks and shared memory of the convolution's CUDA kernels, in
 * plain C (the launchers and the variant table read them; see
 * filters/shapes.h).
 */
#ifndef JF_FILTERS_CONV_SHAPES_H
#define JF_FILTERS_CONV_SHAPES_H

#include "filters/shapes.h"

/* Shared variant: the tile and the k x k weights. */
static inline size_t jf_conv_shared_smem(int k, int bx, int by)
{
    return (size_t)jf_tile_width(bx, k) * (size_t)(by + k - 1) + sizeof(float) * (size_t)k * (size_t)k;
}

/* float32, rank-1 weights, one pass (conv_float.cu): a block of bx
 * samples across and by x JF_CONV_FLOAT_ROWS rows down; its input tile
 * ((bx + (k - 1) ch) samples by (rows + k - 1)) and the tile's row sums
 * (bx by rows + k - 1), in floats. */
#define JF_CONV_FLOAT_ROWS 4
static inline size_t jf_conv_float_smem(int k, int ch, int bx, int by)
{
    const size_t rows = (size_t)(by * JF_CONV_FLOAT_ROWS + k - 1);
    return sizeof(float) * rows * ((size_t)(bx + (k - 1) * ch) + (size_t)bx) +
           sizeof(const float *) * rows; /* and the rows' addresses */
}

/* Fast, unrolled (k <= 13): 4 outputs a thread across, 8 down (4 from
 * k = 11, where the registers for 8 rows of taps run out). */
#define JF_CONV_FAST_PX 4
#define JF_CONV_FAST_ROWS(k) ((k) >= 11 ? 4 : 8)
static inline int jf_conv_fast_rows(int k) { return JF_CONV_FAST_ROWS(k); }

/* Several channels to k = 5: the interleaved row taken as one row of
 * w ch samples whose taps lie ch samples apart (no output planes). */
#define JF_CONV_DILATED_MAX_K 5
static inline int jf_conv_fast_dilated(int k, int ch) { return ch > 1 && k <= JF_CONV_DILATED_MAX_K; }

/* The tile (rows in bytes, whole 16-byte pieces) and, with several
 * channels past JF_CONV_DILATED_MAX_K, the output tile. */
static inline size_t jf_conv_fast_smem(int k, int ch, int bps, int bx, int by, int *tile_w)
{
    const int py = jf_conv_fast_rows(k);
    if (jf_conv_fast_dilated(k, ch)) {
        *tile_w = ((bx * JF_CONV_FAST_PX + (k - 1) * ch) * bps + 15) & ~15;
        return (size_t)*tile_w * (size_t)(by * py + k - 1);
    }
    *tile_w = ((bx * JF_CONV_FAST_PX + k - 1) * bps + 15) & ~15;
    return (size_t)*tile_w * (size_t)(by * py + k - 1) +
           jf_out_planes_bytes(ch, bx * JF_CONV_FAST_PX, by * py, bps);
}

/* Fast, separable (rank-1 weights): more rows a thread from k = 15 share
 * each row's horizontal sums among more outputs. */
#define JF_CONV_SEP_ROWS(k) ((k) >= 15 ? 16 : 8)
static inline int jf_conv_sep_rows(int k) { return JF_CONV_SEP_ROWS(k); }

/* The tile (each thread's last load reaches 4 samples past its taps) and,
 * with several channels, the output tile. */
static inline size_t jf_conv_sep_smem(int k, int ch, int bps, int bx, int by, int *tile_w)
{
    const int taps = (k + 3) & ~3, py = jf_conv_sep_rows(k);
    *tile_w = ((bx * JF_CONV_FAST_PX + taps) * bps + 15) & ~15;
    return (size_t)*tile_w * (size_t)(by * py + k - 1) +
           jf_out_planes_bytes(ch, bx * JF_CONV_FAST_PX, by * py, bps);
}

/* Fast, k at run time (k >= 15): 8 x 8 outputs a thread, taps 4 at a step,
 * the weights staged in shared memory with rows padded to whole steps. */
#define JF_CONV_WIDE_ROWS 8
#define JF_CONV_WIDE_COLS 8
#define JF_CONV_WIDE_TAPS 4
static inline int jf_conv_wide_kp(int k) { return (k + JF_CONV_WIDE_TAPS - 1) / JF_CONV_WIDE_TAPS * JF_CONV_WIDE_TAPS; }

/* The tile (whole 16-byte pieces, wide enough for the last chunk's reach
 * past k), with several channels the output tile, then the weights; every
 * part a multiple of 16 bytes. */
static inline size_t jf_conv_wide_smem(int k, int ch, int bps, int bx, int by, int *tile_w,
                                       size_t *weights_at)
{
    *tile_w = ((bx * JF_CONV_WIDE_COLS + jf_conv_wide_kp(k)) * bps + 15) & ~15;
    *weights_at = (size_t)*tile_w * (size_t)(by * JF_CONV_WIDE_ROWS + k - 1) +
                  jf_out_planes_bytes(ch, bx * JF_CONV_WIDE_COLS, by * JF_CONV_WIDE_ROWS, bps);
    return *weights_at + sizeof(float) * (size_t)k * (size_t)jf_conv_wide_kp(k);
}

#endif
