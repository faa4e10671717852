/*
 * Internal: blocks and shared memory of the median's CUDA kernels, in plain
 * C (the launchers and the variant table read them; see filters/shapes.h).
 */
#ifndef JF_FILTERS_MEDIAN_SHAPES_H
#define JF_FILTERS_MEDIAN_SHAPES_H

#include "filters/shapes.h"

/* Fast variant: each thread computes ROWS x 8 outputs (4 x 8 at k = 3,
 * 2 x 8 above: median_fast_net.cuh, whose sizes median_fast.cu checks
 * against these), reading its inputs in pieces of 8 samples. */
#define JF_MEDIAN_FAST_COLS 8
#define JF_MEDIAN_FAST_ROWS(k) ((k) == 3 ? 4 : 2)
static inline int jf_median_fast_rows(int k) { return JF_MEDIAN_FAST_ROWS(k); }
/* The two-lane networks' default block (median_variants.c), the block the
 * k = 3 strips fall back to them in (median_fast_strip.cu). */
#define JF_MEDIAN_FAST_BLOCK_X 32
#define JF_MEDIAN_FAST_BLOCK_Y 4

/* Two samples a register where 16-bit SIMD min/max is one instruction
 * (compute capability 9.0): the variant table's condition, and the
 * architectures for which median_fast.cu compiles the two-lane kernels. */
#define JF_MEDIAN_LANES2_MIN_CC 90

/* Fast variant at k = 3, 8 bits, compute capability 9.0
 * (median_fast_strip.cu): each thread owns 8 bytes of a row.  It runs on
 * images below 32 M samples in blocks of whole warps; at 8K the networks
 * measured as fast for grey and faster for RGB, and 16 bytes a thread did
 * not change that (docs/kernels/studies.md, "Column strips through registers"), so
 * larger images take the networks. */
#define JF_MEDIAN_STRIP_BYTES 8
static inline int jf_median_strips_run(int w, int h, int ch, int threads)
{
    return (double)w * h * ch < 32.0 * 1024 * 1024 && threads % 32 == 0;
}
/* Rows a strip: 8, or 4 where strips of 8 would give the GPU fewer blocks
 * (bx a strip) than fit on it at once (`fit`): a strip waits for its rows
 * once a turn of 4. */
static inline int jf_median_strip_rows(int bx, int h, int fit)
{
    return (double)bx * ((h + 7) / 8) >= fit ? 8 : 4;
}

/* Fast variant at k = 3, 8-bit grey, where video min/max is one instruction
 * (compute capability 5.x and 6.x: median_fast_video.cu): 8 x 32 outputs a
 * thread, read straight from the image in blocks inside it, elsewhere from
 * a tile of the block's columns and a 16-byte piece either side (the
 * tile's pieces lie as in the image, 16-byte aligned). */
#define JF_MEDIAN_VIDEO_ROWS 8
#define JF_MEDIAN_VIDEO_COLS 32
#define JF_MEDIAN_VIDEO_MAX_CC 62
static inline size_t jf_median_video_smem(int bx, int by, int *tile_w)
{
    *tile_w = bx * JF_MEDIAN_VIDEO_COLS + 32;
    return (size_t)*tile_w * (size_t)(by * JF_MEDIAN_VIDEO_ROWS + 2);
}

/* Tile row length in bytes: the block's columns plus what the last thread's
 * pieces reach, in whole 16-byte pieces (every piece read stays aligned). */
static inline int jf_median_fast_tile_width(int k, int bps, int cols_out)
{
    const int pieces = (JF_MEDIAN_FAST_COLS + k - 1 + 7) / 8;
    const int need = (cols_out + 8 * (pieces - 1)) * bps;
    return (need + 15) & ~15;
}

/* Shared memory of a bx x by block with `lanes` samples a register: the
 * tile and, with several channels, the output tile (a plane a channel). */
static inline size_t jf_median_fast_smem(int k, int lanes, int ch, int bps, int bx, int by,
                                         int *tile_w)
{
    const int rows_out = by * jf_median_fast_rows(k) * lanes, cols_out = bx * JF_MEDIAN_FAST_COLS;
    *tile_w = jf_median_fast_tile_width(k, bps, cols_out);
    return (size_t)*tile_w * (size_t)(rows_out + k - 1) +
           jf_out_planes_bytes(ch, cols_out, rows_out, bps);
}

/* Shared variant, k <= 3: a window per thread from the block's tile. */
static inline size_t jf_median_shared_tile_bytes(int bx, int rows, int k)
{
    return (size_t)jf_tile_width(bx, k) * (size_t)(rows + k - 1);
}

/* Shared variant, k >= 5: output rows a thread (its strip of the block's
 * column).  The histogram is built once a strip, so longer is cheaper per
 * pixel, but a strip is serial work for one thread: the launcher shortens
 * them until the grid offers every SM enough blocks. */
#define JF_MEDIAN_STRIP_MAX 32
#define JF_MEDIAN_STRIP_MIN 8

/* Shared variant, k >= JF_MEDIAN_RING_MIN_K: strips longer than the tile.
 * Filling a strip's histogram costs k^2 counts, then each row 2k, so at
 * large k a 32-row strip spends as much on filling as on sliding; there
 * the block's columns slide down strips of up to STRIP_LONG rows through a
 * ring of chunk + k tile rows (median_shared_ring_kernel).  The strip: the
 * power of two from 4k (filling then costs at most a quarter of the
 * sliding), shortened while the grid gives the SMs fewer than 4 blocks
 * each; 0 (the STRIP_MAX-row kernel) below that k or where no longer
 * strip is left. */
#define JF_MEDIAN_RING_MIN_K 31
#define JF_MEDIAN_STRIP_LONG 256
/* On images of at least 20 M samples (scaled by the SMs, an H100's 132)
 * the ring starts at k = 25: there it measured faster than the 32-row
 * kernel at k = 25 to 29 (7680x4320, 5120x2880 and 3840x2160 RGB), and
 * slower on smaller images (1920x1080 RGB, 3840x2160 grey),
 * whose grids its long strips leave short of blocks (docs/kernels/studies.md,
 * "Histogram updates nobody waits for"). */
#define JF_MEDIAN_RING_EARLY_K 25
#define JF_MEDIAN_RING_EARLY_SAMPLES 20e6
static inline int jf_median_ring_min_k(int w, int h, int ch, int sms)
{
    return (double)w * h * ch >= JF_MEDIAN_RING_EARLY_SAMPLES * (sms > 0 ? sms : 1) / 132.0
               ? JF_MEDIAN_RING_EARLY_K
               : JF_MEDIAN_RING_MIN_K;
}
static inline int jf_median_ring_strip(int w, int h, int ch, int columns, int k, int sms)
{
    int strip = JF_MEDIAN_STRIP_LONG;
    if (k < jf_median_ring_min_k(w, h, ch, sms))
        return 0;
    while (strip / 2 >= 4 * k)
        strip /= 2;
    while (strip > JF_MEDIAN_STRIP_MAX) {
        const long long blocks = (long long)((w + columns - 1) / columns) *
                                 ((h + strip - 1) / strip) * ch;
        if (blocks >= 4LL * (sms > 0 ? sms : 1))
            break;
        strip /= 2;
    }
    return strip > JF_MEDIAN_STRIP_MAX ? strip : 0;
}

/* The ring: chunk + k rows of a tile as wide as the block's columns and
 * the window. */
static inline size_t jf_median_ring_bytes(int columns, int chunk, int k)
{
    return (size_t)jf_tile_width(columns, k) * (size_t)(chunk + k);
}

/* Shared variant, k >= 5: counters of the sliding histograms, 4 bins of 8
 * bits a word up to k = 15 (counts <= 225), 2 of 16 bits beyond (3 of 10
 * bits to k = 31 measured slower at k = 17 to 29: dividing by 3 cost more
 * than the third fewer bytes gave).  The least the kernel runs with:
 * where its tile does not fit as well it reads the windows from padded
 * planes instead (median_shared.cu). */
static inline int jf_median_hist_bits(int k) { return k <= 15 ? 8 : 16; }
static inline size_t jf_median_hist_bytes(int threads, int k)
{
    return (size_t)threads * (jf_median_hist_bits(k) == 8 ? 256u : 512u);
}

/* The histogram kernel's shared memory on a device that gives a block
 * `limit` bytes: its tile for the longest strip up to `strip` that fits
 * with the counters; where none fits, the counters alone (the kernel then
 * reads the windows from padded planes).  `*strip_out` and `*tiled` (either
 * may be NULL) say which. */
static inline size_t jf_median_hist_launch_smem(int bx, int by, int k, int strip, size_t limit,
                                                int *strip_out, int *tiled)
{
    const size_t hist = jf_median_hist_bytes(bx * by, k);
    while (strip > 1 && jf_median_shared_tile_bytes(bx, by * strip, k) + hist > limit)
        strip /= 2;
    if (strip_out)
        *strip_out = strip;
    if (jf_median_shared_tile_bytes(bx, by * strip, k) + hist <= limit) {
        if (tiled)
            *tiled = 1;
        return jf_median_shared_tile_bytes(bx, by * strip, k) + hist;
    }
    if (tiled)
        *tiled = 0;
    return hist;
}

/* The ring kernel's shared memory where a block may have `limit` bytes:
 * the longest chunk up to STRIP_MAX rows whose ring fits beside the counters
 * (*chunk_out), or 0 if none does. */
static inline size_t jf_median_ring_launch_smem(int columns, int k, size_t limit, int *chunk_out)
{
    const size_t hist = jf_median_hist_bytes(columns, k);
    int chunk = JF_MEDIAN_STRIP_MAX;
    while (chunk > 1 && jf_median_ring_bytes(columns, chunk, k) + hist > limit)
        chunk /= 2;
    *chunk_out = chunk;
    return jf_median_ring_bytes(columns, chunk, k) + hist <= limit ? jf_median_ring_bytes(columns, chunk, k) + hist : 0;
}

/* Whether the ring kernel runs for this image on a device with `sms` SMs
 * and `limit` bytes a block: its shared memory, with *strip and *chunk; or
 * 0 for the 32-row kernel.  The ring stays within 48 KiB (any device's
 * block without opting in): beyond, from k = 85, the 32-row kernel as
 * before. */
#define JF_MEDIAN_RING_SMEM_MAX 49152
static inline size_t jf_median_ring_plan(int w, int h, int ch, int columns, int k, int sms,
                                         size_t limit, int *strip, int *chunk)
{
    if (limit > JF_MEDIAN_RING_SMEM_MAX)
        limit = JF_MEDIAN_RING_SMEM_MAX;
    *chunk = 0;
    *strip = jf_median_ring_strip(w, h, ch, columns, k, sms);
    return *strip ? jf_median_ring_launch_smem(columns, k, limit, chunk) : 0;
}

#endif
