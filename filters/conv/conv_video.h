/*
 * Internal to filters/conv: the convolution at k = 3 for 8-bit grey images
 * in fixed-point video instructions, for compute capability 5.x and 6.x
 * where they are native (the Jetson Nano): its weights, shapes and launch
 * (conv_fast_video.cu; the row in conv_variants.c).
 */
#ifndef JF_FILTERS_CONV_VIDEO_H
#define JF_FILTERS_CONV_VIDEO_H

#include "jetfilter.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 8 x 8 outputs a thread (two output words a row) from the block's tile:
 * its rows from 16 bytes left of the block to 16 right of it (its pieces
 * as they lie in the image), rounded to whole 16-byte pieces; made for
 * compute capability 6.2 and older. */
#define JF_CONV_VIDEO_ROWS 8
#define JF_CONV_VIDEO_COLS 8
#define JF_CONV_VIDEO_MAX_CC 62
static inline size_t jf_conv_video_smem(int bx, int by, int *tile_w)
{
    *tile_w = (bx * JF_CONV_VIDEO_COLS + 32 + 15) & ~15;
    return (size_t)*tile_w * (size_t)(by * JF_CONV_VIDEO_ROWS + 2);
}

/* The 3 x 3 weights as q[i] / 2^shift with 16-bit q, at the largest shift
 * (at most 15) at which every q fits, each q its weight rounded.  1 where
 * that moves a sum of 8-bit samples by at most half a level (weights that
 * are exactly such fractions: not at all), else 0 (and for a k other than
 * 3, no weights, or a NaN or infinite one). */
typedef struct jf_conv_video_weights {
    int q[9];
    int shift;
} jf_conv_video_weights;
int jf_conv_video_quantise(const float *weights, int ksize, jf_conv_video_weights *out);

/* The row's test (jf_variant_row.takes: the weights the quantiser holds)
 * and its launch (jf_variant_row.run). */
struct jf_shape;
struct jf_gpu_call;
int jf_conv_video_takes(const struct jf_shape *s, int k);
jf_status jf_conv_video_run(const struct jf_gpu_call *call);

#ifdef __cplusplus
}
#endif
#endif
