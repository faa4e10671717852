/*
 * Internal to filters/: what the CUDA kernels' blocks need, in plain C.
 * The launchers (.cu) and the variant table (which checks that a device can
 * run a kernel before choosing it, on any build) read the same formulas.
 */
#ifndef JF_FILTERS_SHAPES_H
#define JF_FILTERS_SHAPES_H

#include <stddef.h>

/* Bytes of an 8-bit tile row for a block bx wide and a window k, in whole
 * 4-byte words (the tile loaders move words). */
static inline int jf_tile_width(int bx, int k) { return (bx + k - 1 + 3) & ~3; }

/* A planar output tile: one plane a channel, cols x rows samples of bps
 * bytes (kernels of several channels keep their outputs there and write
 * them interleaved); none for one channel. */
static inline size_t jf_out_planes_bytes(int ch, int cols, int rows, int bps)
{
    return ch > 1 ? (size_t)ch * (size_t)cols * (size_t)rows * (size_t)bps : 0;
}

#endif
