/*
 * The rank filters on the CPU: the k x k minimum (erosion) or maximum
 * (dilation) of every channel, separable as min over a square is the min
 * of the rows' mins.  Each pass is van Herk's and Gil-Werman's: cut the
 * line into blocks of k; a running extreme from each block's start (g)
 * and one from its end (h); the window [x, x + k) then spans at most two
 * blocks, so its extreme is op(h[x], g[x + k - 1]): three comparisons a
 * sample, whatever k.
 *
 * Pass 1 reads the padded copy row by row (bands of rows on the pool) into
 * a buffer of h + k - 1 rows of w pixels; pass 2 runs down the columns, a
 * chunk of columns a task, whole rows of the chunk at a time, so the
 * comparisons run along rows and vectorise.
 */
#include "filters/rank/rank.h"
#include "filters/filters.h"
#include "filters/ops.h"
#include "filters/pad/pad.h"
#include "core/context.h"
#include "core/errors.h"
#include "core/image.h"
#include "core/util.h"

#include <stdint.h>
#include <string.h>

#define CHUNK 256 /* columns (samples) a task of pass 2 */

typedef struct rank_job {
    const jf_image *padded;
    jf_image *dst;
    int k;
    unsigned char *rows;  /* pass 1's output: h + k - 1 rows of w * ch samples */
    size_t rows_stride;   /* bytes */
    unsigned char *work;  /* per worker: two lines (pass 1) or two columns of chunks (pass 2) */
    size_t work_bytes;    /* a worker's */
} rank_job;

#define MIN_(a, b) ((a) < (b) ? (a) : (b))
#define MAX_(a, b) ((a) > (b) ? (a) : (b))

/* Pass 1 and 2 for one sample type T and extreme OP. */
#define RANK_PASSES(T, OP, NAME)                                                                  \
    static void NAME##_rows(void *arg, int y0, int y1, int worker)                               \
    {                                                                                             \
        const rank_job *j = (const rank_job *)arg;                                                \
        const int k = j->k, ch = j->padded->channels, wp = j->padded->width;                      \
        const int w = j->dst->width;                                                              \
        T *g = (T *)(void *)(j->work + (size_t)worker * j->work_bytes), *h = g + wp;              \
        int y, c, x;                                                                              \
        for (y = y0; y < y1; y++) {                                                               \
            const T *in = (const T *)(const void *)(j->padded->data + (size_t)y * j->padded->stride); \
            T *out = (T *)(void *)(j->rows + (size_t)y * j->rows_stride);                         \
            for (c = 0; c < ch; c++) {                                                            \
                for (x = 0; x < wp; x++)                                                          \
                    g[x] = x % k ? OP(g[x - 1], in[(size_t)x * ch + c]) : in[(size_t)x * ch + c]; \
                for (x = wp - 1; x >= 0; x--)                                                     \
                    h[x] = x == wp - 1 || (x + 1) % k == 0 ? in[(size_t)x * ch + c]               \
                                                           : OP(h[x + 1], in[(size_t)x * ch + c]); \
                for (x = 0; x < w; x++)                                                           \
                    out[(size_t)x * ch + c] = OP(h[x], g[x + k - 1]);                             \
            }                                                                                     \
        }                                                                                         \
    }                                                                                             \
    static void NAME##_columns(void *arg, int t0, int t1, int worker)                            \
    {                                                                                             \
        const rank_job *j = (const rank_job *)arg;                                                \
        const int k = j->k, hp = j->dst->height + k - 1;                                         \
        const size_t n = (size_t)j->dst->width * (size_t)j->dst->channels;                       \
        T *g = (T *)(void *)(j->work + (size_t)worker * j->work_bytes), *h = g + (size_t)hp * CHUNK; \
        int t, y;                                                                                 \
        size_t i;                                                                                 \
        for (t = t0; t < t1; t++) {                                                               \
            const size_t at = (size_t)t * CHUNK, m = n - at < CHUNK ? n - at : CHUNK;             \
            for (y = 0; y < hp; y++) {                                                            \
                const T *in = (const T *)(const void *)(j->rows + (size_t)y * j->rows_stride) + at; \
                T *gy = g + (size_t)y * CHUNK;                                                    \
                if (y % k)                                                                        \
                    for (i = 0; i < m; i++)                                                       \
                        gy[i] = OP(gy[i - CHUNK], in[i]);                                         \
                else                                                                              \
                    memcpy(gy, in, m * sizeof(T));                                                \
            }                                                                                     \
            for (y = hp - 1; y >= 0; y--) {                                                       \
                const T *in = (const T *)(const void *)(j->rows + (size_t)y * j->rows_stride) + at; \
                T *hy = h + (size_t)y * CHUNK;                                                    \
                if (y == hp - 1 || (y + 1) % k == 0)                                              \
                    memcpy(hy, in, m * sizeof(T));                                                \
                else                                                                              \
                    for (i = 0; i < m; i++)                                                       \
                        hy[i] = OP(hy[i + CHUNK], in[i]);                                         \
            }                                                                                     \
            for (y = 0; y < j->dst->height; y++) {                                                \
                const T *hy = h + (size_t)y * CHUNK, *gy = g + (size_t)(y + k - 1) * CHUNK;       \
                T *out = (T *)(void *)(j->dst->data + (size_t)y * j->dst->stride) + at;           \
                for (i = 0; i < m; i++)                                                           \
                    out[i] = OP(hy[i], gy[i]);                                                    \
            }                                                                                     \
        }                                                                                         \
    }

RANK_PASSES(uint8_t, MIN_, min8)
RANK_PASSES(uint8_t, MAX_, max8)
RANK_PASSES(uint16_t, MIN_, min16)
RANK_PASSES(uint16_t, MAX_, max16)

/* What each pass's workers take: two lines of the padded width, or two
 * columns of chunks (h + k - 1 rows of CHUNK samples each). */
static size_t worker_bytes(int wp, int hp, size_t bps)
{
    const size_t lines = 2 * (size_t)wp * bps, columns = 2 * (size_t)hp * CHUNK * bps;
    return ((lines > columns ? lines : columns) + 63) & ~(size_t)63;
}

size_t jf_rank_cpu_bytes(const jf_shape *s, int k, int threads)
{
    const size_t bps = s->sample == JF_SAMPLE_U16 ? 2 : 1;
    const int hp = s->height + k - 1, wp = s->width + k - 1;
    const size_t padded = (size_t)wp * hp * (size_t)s->channels * bps;
    const size_t rows = (size_t)hp * (size_t)s->width * (size_t)s->channels * bps;
    return padded + rows + (size_t)(threads < 1 ? 1 : threads) * worker_bytes(wp, hp, bps);
}

jf_status jf_rank_cpu_run(jf_cpu_call *c)
{
    const jf_rank_which *which = (const jf_rank_which *)c->args;
    const int deep = c->src->sample == JF_SAMPLE_U16, k = c->k, max = which && which->max;
    const size_t bps = deep ? 2 : 1;
    jf_image padded;
    rank_job job;
    jf_status st;
    int workers, tasks;
    if (k == 1)
        return jf_image_copy(c->src, c->dst);
    if ((st = jf_pad_scratch(c->ctx, c->src, k / 2, c->border, &padded)) != JF_OK)
        return st;
    c->bytes_read = (uint64_t)padded.width * padded.height * padded.channels * bps;
    c->t0 = jf_now_ms();
    memset(&job, 0, sizeof job);
    job.padded = &padded;
    job.dst = c->dst;
    job.k = k;
    job.rows_stride = (size_t)c->src->width * (size_t)c->src->channels * bps;
    tasks = (int)((job.rows_stride / bps + CHUNK - 1) / CHUNK);
    workers = jf_parallel_bands(c->ctx, padded.height > tasks ? padded.height : tasks);
    job.work_bytes = worker_bytes(padded.width, padded.height, bps);
    if (!(job.rows = (unsigned char *)jf_scratch_get(c->ctx, JF_SCRATCH_ROWS,
                                                      job.rows_stride * (size_t)padded.height)) ||
        !(job.work = (unsigned char *)jf_scratch_get(c->ctx, JF_SCRATCH_BANDS,
                                                      job.work_bytes * (size_t)workers)))
        return jf_fail(JF_ERR_NOMEM, "%s: out of memory", max ? "dilate" : "erode");
    jf_parallel_for(c->ctx, padded.height,
                    deep ? (max ? max16_rows : min16_rows) : (max ? max8_rows : min8_rows), &job);
    jf_parallel_for(c->ctx, tasks,
                    deep ? (max ? max16_columns : min16_columns) : (max ? max8_columns : min8_columns), &job);
    return JF_OK;
}
