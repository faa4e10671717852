/*
 * Median filter, CPU reference, k = 3 to 9 at 8 and 16 bits (and k = 3 to
 * 7 on float32 as keys): min/max networks over whole rows.
 *
 * k = 3: the 9-element median by columns.  Each vertical triple is sorted
 * (lo <= mid <= hi); the median of the 3x3 window is then
 * med3(max of the three lo, med3 of the three mid, min of the three hi).
 * Two output rows are made at once: their windows share two source rows,
 * ordered once (the triples of both rows then take four min/max each).
 * Each window sorts its three columns in registers from the rows it reads
 * (neighbouring windows sort the same columns again: cheaper than storing
 * them once and loading them back).
 *
 * k = 5, 7 and 9: two output rows at once, as k = 3.  Their windows share
 * k - 1 source rows; each column's k - 1 samples of those are sorted once
 * and shared by the k windows of each row that hold the column.  Of a
 * window's shared samples only the middle ranks can be its median (7 to
 * 12 of 20 at k = 5, 17 to 24 of 42 at 7, 31 to 40 of 72 at 9), so one
 * network selects those for both windows (64, 212 and 433 comparators),
 * and one takes each window's median from them and its own top or bottom
 * row (22, 30 and 54; scripts/median_network.py derives them from
 * Batcher's sort and checks them on every 0-1 input): about 56 comparators
 * an output at k = 5, where a window alone from its five sorted columns
 * took 94.
 *
 * Everything is min/max over whole rows of samples, which the compiler
 * vectorises: 16 or 32 pixels an instruction at 8 bits, 8 or 16 at 16.
 * The row loops are written once (median_net_template.c) and compiled for
 * each sample type, as FFmpeg's vf_median does with its template.
 *
 * k = 5 to 9 sort each column once into a chunk's arrays (shared by the
 * windows that hold it), then combine.
 *
 * No padded copy of the image, nor of its rows: the rows are read in place
 * (a row outside the image is the row the border names, or a row of
 * zeros); a column outside the row sorts to what the column the border
 * names sorts to (zero border: zeros), so the few sorted columns either
 * side of a row are copied from those inside it (k = 3: the samples either
 * side of a row's ends, in short copies of them).
 */
#include "filters/median/median.h"
#include "filters/filters.h"
#include "filters/pad/pad.h"
#include "core/context.h"
#include "core/image.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct net_job {
    const jf_image *src; /* the image itself, unpadded */
    jf_image *dst;
    int ksize;
    jf_border border;
    const unsigned char *zeros; /* a row of zeros: rows outside the image, zero border */
} net_job;

/* The source row that padded row py (0 .. h + k - 2) stands for. */
static const unsigned char *source_row(const net_job *job, int py)
{
    const int sy = jf_border_index(py - job->ksize / 2, job->src->height, job->border);
    return sy < 0 ? job->zeros : job->src->data + (size_t)sy * job->src->stride;
}

/* The sample of a row that position s stands for, s outside the row (a
 * sample index, ch a pixel): the same channel of the pixel the border
 * names, or -1 for a zero. */
static ptrdiff_t border_sample(const net_job *job, ptrdiff_t s)
{
    const ptrdiff_t ch = job->src->channels;
    const ptrdiff_t x = s >= 0 ? s / ch : -((-s + ch - 1) / ch); /* the pixel, rounded down */
    const int m = jf_border_index((int)x, job->src->width, job->border);
    return m < 0 ? -1 : (ptrdiff_t)m * ch + (s - x * ch);
}

/* Sorted column i of a chunk whose columns [i0, i1) hold the source
 * positions base + i, i outside them: a copy of the column the border
 * names, or zeros.  `sorted` holds `count` arrays `stride` bytes apart,
 * `elem` bytes a sample. */
static void border_column(const net_job *job, unsigned char *sorted, size_t stride, int count,
                          size_t elem, ptrdiff_t base, size_t i)
{
    const ptrdiff_t from = border_sample(job, base + (ptrdiff_t)i);
    int a;
    for (a = 0; a < count; a++) {
        unsigned char *col = sorted + (size_t)a * stride;
        if (from < 0)
            memset(col + i * elem, 0, elem);
        else /* the named sample's column: inside [i0, i1) */
            memcpy(col + i * elem, col + (size_t)(from - base) * elem, elem);
    }
}

/* Every column of a chunk outside [i0, i1), up to `end`; from there to
 * `slack` (the columns whole vectors read past the chunk) zeros. */
static void border_columns(const net_job *job, void *sorted, size_t stride, int count, size_t elem,
                           ptrdiff_t base, size_t i0, size_t i1, size_t end, size_t slack)
{
    size_t i;
    int a;
    for (i = 0; i < i0; i++)
        border_column(job, (unsigned char *)sorted, stride, count, elem, base, i);
    for (i = i1; i < end; i++)
        border_column(job, (unsigned char *)sorted, stride, count, elem, base, i);
    for (a = 0; slack > end && a < count; a++)
        memset((unsigned char *)sorted + (size_t)a * stride + end * elem, 0, (slack - end) * elem);
}

/* The min/max loops are JF_WIDE_SIMD (filters.h): on x86-64 AVX2 does 32
 * bytes an instruction instead of SSE2's 16, and SSE2 has no unsigned
 * 16-bit min/max at all.  k = 5 also has an AVX-512 copy: its 25 values
 * fit the 32 registers (AVX2's 16 spill them). */

#define MIN_(a, b) ((a) < (b) ? (a) : (b))
#define MAX_(a, b) ((a) > (b) ? (a) : (b))
#define SORT2(a, b)                                                           \
    do {                                                                      \
        const SAMPLE lo_ = MIN_(a, b), hi_ = MAX_(a, b);                      \
        a = lo_;                                                              \
        b = hi_;                                                              \
    } while (0)

/* k = 5 to 9 process the rows in chunks (a whole number of pixels and of
 * vectors) so the sorted columns fit in a stack buffer: 8 KiB of samples
 * (a 4K grey row in one piece at 8 bits: cut in two it ran slower).
 * NET_VECTOR is the widest vector's lanes (AVX-512), a multiple of which
 * every chunk's outputs are rounded up to; the slack holds the columns
 * past the last.  k = 3 keeps nothing between its passes and makes a
 * row's ends in pieces of at most PIECE3 outputs.  SAMPLE is the
 * includer's type at each use. */
#define CHUNK (8192 / sizeof(SAMPLE))
#define NET_VECTOR 64
#define NET_SLACK (NET_VECTOR + 16)
#define PIECE3 (2 * NET_VECTOR)
/* A sorted-column array's length: the chunk, its slack and room to start
 * each chunk's stored columns on a 64-byte boundary (whole vectors stored,
 * none split across two cache lines); 64 bytes a multiple of it. */
#define COL_ROW (CHUNK + NET_SLACK + 112)
#if defined(__GNUC__)
#define NET_INLINE static inline __attribute__((always_inline))
#else
#define NET_INLINE static inline
#endif

#define SAMPLE unsigned char
#define MED3 med3_u8
#define PAIR3 pair3_u8
#define PAIR3_AHEAD pair3_ahead_u8
#define EDGE3 edge3_u8
#define END3 end3_u8
#define COMBINE_PAIRS combine_pairs_u8
#define ROWS3 median3_rows_u8
#define ROWS5 median5_rows_u8
#define SORT4_ROWS sort4_rows_u8
#define SORT6_ROWS sort6_rows_u8
#define ROWS_PAIRS median_pairs_u8
#define ROWS7 median7_rows_u8
#define ROWS9 median9_rows_u8
#define SORT8_ROWS sort8_rows_u8
#include "filters/median/median_net_template.c"

#define SAMPLE uint16_t
#define MED3 med3_u16
#define PAIR3 pair3_u16
#define PAIR3_AHEAD pair3_ahead_u16
#define EDGE3 edge3_u16
#define END3 end3_u16
#define COMBINE_PAIRS combine_pairs_u16
#define ROWS3 median3_rows_u16
#define ROWS5 median5_rows_u16
#define SORT4_ROWS sort4_rows_u16
#define SORT6_ROWS sort6_rows_u16
#define ROWS_PAIRS median_pairs_u16
#define ROWS7 median7_rows_u16
#define ROWS9 median9_rows_u16
#define SORT8_ROWS sort8_rows_u16
#include "filters/median/median_net_template.c"

/* float32 as keys (median_cpu_keys.c), k = 3 to 7 */
#define SAMPLE int32_t
#define MED3 med3_u32
#define PAIR3 pair3_u32
#define PAIR3_AHEAD pair3_ahead_u32
#define EDGE3 edge3_u32
#define END3 end3_u32
#define COMBINE_PAIRS combine_pairs_u32
#define ROWS3 median3_rows_u32
#define ROWS5 median5_rows_u32
#define SORT4_ROWS sort4_rows_u32
#define SORT6_ROWS sort6_rows_u32
#define ROWS_PAIRS median_pairs_u32
#define ROWS7 median7_rows_u32
#define SORT8_ROWS sort8_rows_u32
#include "filters/median/median_net_template.c"

jf_status jf_median_cpu_small(jf_context *ctx, const jf_image *src, int ksize, jf_border border,
                              jf_image *dst)
{
    const int bps = (int)jf_sample_size(src->sample); /* 4: float32 as keys */
    const size_t row = (size_t)src->width * (size_t)src->channels * jf_sample_size(src->sample);
    unsigned char *zeros;
    net_job job;
    memset(&job, 0, sizeof job);
    job.src = src;
    job.dst = dst;
    job.ksize = ksize;
    job.border = border;
    if (!(zeros = (unsigned char *)jf_scratch_get(ctx, JF_SCRATCH_BANDS, row)))
        return JF_ERR_NOMEM;
    memset(zeros, 0, row);
    job.zeros = zeros;
    if (ksize == 3)
        jf_parallel_for(ctx, dst->height,
                        bps == 4 ? median3_rows_u32 : bps == 2 ? median3_rows_u16 : median3_rows_u8, &job);
    else if (ksize == 5)
        jf_parallel_for(ctx, dst->height,
                        bps == 4 ? median5_rows_u32 : bps == 2 ? median5_rows_u16 : median5_rows_u8, &job);
    else if (ksize == 7)
        jf_parallel_for(ctx, dst->height,
                        bps == 4 ? median7_rows_u32 : bps == 2 ? median7_rows_u16 : median7_rows_u8, &job);
    else
        jf_parallel_for(ctx, dst->height,
                        bps == 2 ? median9_rows_u16 : median9_rows_u8, &job);
    return JF_OK;
}
