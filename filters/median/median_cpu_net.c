/*
 * Median filter, CPU reference, k = 3 and 5 at 8 and 16 bits: min/max
 * networks over whole rows.
 *
 * k = 3: the 9-element median by columns.  Each vertical triple is sorted
 * once (lo <= mid <= hi); the median of the 3x3 window is then
 * med3(max of the three lo, med3 of the three mid, min of the three hi).
 *
 * k = 5: the same idea one size up.  Each vertical 5-tuple is sorted once
 * (9 comparators) and shared by the five windows it belongs to; a window's
 * median then comes from its five sorted columns through a fixed network
 * of 85 comparators (scripts/median_network.py derives it from Batcher's
 * sort, drops what sorted columns make useless and what cannot reach the
 * median, and checks it on every 0-1 input).
 *
 * Everything is min/max over whole rows of samples, which the compiler
 * vectorises: 16 or 32 pixels an instruction at 8 bits, 8 or 16 at 16.
 * The row loops are written once (median_net_template.c) and compiled for
 * each sample type, as FFmpeg's vf_median does with its template.
 *
 * No padded copy of the image: each band pads the rows it reads
 * (jf_pad_row) into a ring of its last k rows (a few KB, in cache); a padded
 * copy cost nearly as much as the median itself at k = 3.  Padded row py
 * lands in slot py % k.
 */
#include "filters/median/median.h"
#include "filters/filters.h"
#include "filters/pad/pad.h"
#include "core/context.h"
#include "core/image.h"

#include <stdint.h>
#include <string.h>

typedef struct net_job {
    const jf_image *src; /* the image itself, unpadded */
    jf_image *dst;
    int ksize;
    jf_border border;
    unsigned char *scratch; /* per band: k padded rows */
    size_t row_bytes;       /* one padded row in the scratch */
} net_job;

/* The k padded rows output row y reads, filling what the ring lacks. */
static void ring_rows(const net_job *job, int worker, int y, int y0, const unsigned char **rows)
{
    const int k = job->ksize;
    unsigned char *ring = job->scratch + (size_t)worker * k * job->row_bytes;
    int j;
    for (j = y == y0 ? 0 : k - 1; j < k; j++)
        jf_pad_row(job->src, k / 2, job->border, y + j,
                   ring + (size_t)((y + j) % k) * job->row_bytes);
    for (j = 0; j < k; j++)
        rows[j] = ring + (size_t)((y + j) % k) * job->row_bytes;
}

/* The min/max loops are JF_WIDE_SIMD (filters.h): on x86-64 AVX2 does 32
 * bytes an instruction instead of SSE2's 16, and SSE2 has no unsigned
 * 16-bit min/max at all. */

#define MIN_(a, b) ((a) < (b) ? (a) : (b))
#define MAX_(a, b) ((a) > (b) ? (a) : (b))
#define SORT2(a, b)                                                           \
    do {                                                                      \
        const SAMPLE lo_ = MIN_(a, b), hi_ = MAX_(a, b);                      \
        a = lo_;                                                              \
        b = hi_;                                                              \
    } while (0)

/* Rows are processed in chunks so the sorted columns fit in a stack buffer. */
#define CHUNK 2048

#define SAMPLE unsigned char
#define MED3 med3_u8
#define ROWS3 median3_rows_u8
#define ROWS5 median5_rows_u8
#include "filters/median/median_net_template.c"
#undef SAMPLE
#undef MED3
#undef ROWS3
#undef ROWS5

#define SAMPLE uint16_t
#define MED3 med3_u16
#define ROWS3 median3_rows_u16
#define ROWS5 median5_rows_u16
#include "filters/median/median_net_template.c"

jf_status jf_median_cpu_small(jf_context *ctx, const jf_image *src, int ksize, jf_border border,
                              jf_image *dst)
{
    const int deep = src->sample == JF_SAMPLE_U16;
    net_job job;
    memset(&job, 0, sizeof job);
    job.src = src;
    job.dst = dst;
    job.ksize = ksize;
    job.border = border;
    job.row_bytes = ((size_t)(src->width + ksize - 1) * (size_t)src->channels *
                         jf_sample_size(src->sample) + 63) & ~(size_t)63;
    if (!(job.scratch = (unsigned char *)jf_scratch_get(
              ctx, JF_SCRATCH_BANDS,
              job.row_bytes * (size_t)ksize * (size_t)jf_parallel_bands(ctx, dst->height))))
        return JF_ERR_NOMEM;
    if (ksize == 3)
        jf_parallel_for(ctx, dst->height, deep ? median3_rows_u16 : median3_rows_u8, &job);
    else
        jf_parallel_for(ctx, dst->height, deep ? median5_rows_u16 : median5_rows_u8, &job);
    return JF_OK;
}
