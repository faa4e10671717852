/*
 * Internal to filters/conv: the convolution at k = 3 for 8-bit images (grey
 * or interleaved channels) in fixed point, in the instructions each GPU has for it natively (video
 * multiply-adds to compute capability 6.0, the Jetson Nano's; two-way dot
 * products from 6.1, the Orin's and the data centre's): its weights, shapes
 * and launches (conv_fast_fixed.cu; the rows in conv_variants.c).
 */
#ifndef JF_FILTERS_CONV_FAST_FIXED_H
#define JF_FILTERS_CONV_FAST_FIXED_H

#include "jetfilter.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 8 x 8 output bytes a thread (two output words a row) from the block's
 * tile: its rows from 16 bytes left of the block to 16 right of it (its
 * pieces as they lie in the image), rounded to whole 16-byte pieces; a row
 * of the image is w x channels bytes (`wb` below).  Fewer rows a thread
 * where the image gives few blocks of 8 rows for the device's SMs: a
 * block's chain of work, not the memory, bounds a kernel of few blocks
 * (and on a GPU not quite full the last SMs' blocks), so 8 x 4 below
 * JF_CONV_FAST_FIXED_FOUR_BELOW blocks of 8 rows an SM and 8 x 2 below
 * JF_CONV_FAST_FIXED_TWO_BELOW_TENTHS tenths of one (docs/kernels/studies.md).
 * The video kernel up to compute capability 6.0, the dot-product one from
 * 6.1.  Blocks of 16 x 8 threads for the dot products: narrower blocks
 * measured faster than 32 x 8 at every size from 720p to 8K, grey and RGB,
 * on an H200 (most at 1080p grey, whose 1920-byte rows left the last 32 x 8
 * block column half empty), and the rows rule picks the fastest rows with
 * them; 32 x 8 for the video kernel (the Nano's, not measured there). */
#define JF_CONV_FAST_FIXED_ROWS 8
#define JF_CONV_FAST_FIXED_ROWS_MID 4
#define JF_CONV_FAST_FIXED_ROWS_SMALL 2
#define JF_CONV_FAST_FIXED_COLS 8
#define JF_CONV_FAST_FIXED_FOUR_BELOW 14
#define JF_CONV_FAST_FIXED_TWO_BELOW_TENTHS 12
#define JF_CONV_FAST_FIXED_BLOCK_X_DP 16
#define JF_CONV_FAST_FIXED_BLOCK_X_VIDEO 32
#define JF_CONV_FAST_FIXED_BLOCK_Y 8
#define JF_CONV_VIDEO_MAX_CC 60
#define JF_CONV_DP_MIN_CC 61
static inline int jf_conv_fast_fixed_rows(int wb, int h, int bx, int by, int sms)
{
    const long blocks = (long)((wb + bx * JF_CONV_FAST_FIXED_COLS - 1) / (bx * JF_CONV_FAST_FIXED_COLS)) *
                        ((h + by * JF_CONV_FAST_FIXED_ROWS - 1) / (by * JF_CONV_FAST_FIXED_ROWS));
    const long n = sms > 0 ? sms : 1;
    if (10 * blocks < (long)JF_CONV_FAST_FIXED_TWO_BELOW_TENTHS * n)
        return JF_CONV_FAST_FIXED_ROWS_SMALL;
    return blocks < (long)JF_CONV_FAST_FIXED_FOUR_BELOW * n ? JF_CONV_FAST_FIXED_ROWS_MID
                                                           : JF_CONV_FAST_FIXED_ROWS;
}
static inline size_t jf_conv_fast_fixed_smem(int bx, int by, int rows, int *tile_w)
{
    *tile_w = (bx * JF_CONV_FAST_FIXED_COLS + 32 + 15) & ~15;
    return (size_t)*tile_w * (size_t)(by * rows + 2);
}

/* The 3 x 3 weights as q[i] / 2^shift with 16-bit q, at the largest shift
 * (at most 15) at which every q fits, each q its weight rounded.  1 where
 * that moves a sum of 8-bit samples by at most half a level (weights that
 * are exactly such fractions: not at all), else 0 (and for a k other than
 * 3, no weights, or a NaN or infinite one). */
typedef struct jf_conv_fast_fixed_weights {
    int q[9];
    int shift;
} jf_conv_fast_fixed_weights;
int jf_conv_fast_fixed_quantise(const float *weights, int ksize, jf_conv_fast_fixed_weights *out);

/* The rows' test (jf_variant_row.takes: the weights the quantiser holds)
 * and launches (jf_variant_row.run). */
struct jf_shape;
struct jf_gpu_call;
int jf_conv_fast_fixed_takes(const struct jf_shape *s, int k);
jf_status jf_conv_video_run(const struct jf_gpu_call *call);
jf_status jf_conv_dp_run(const struct jf_gpu_call *call);

#ifdef __cplusplus
}
#endif
#endif
