/*
 * The rank filters on the CPU: the k x k minimum (erosion) or maximum
 * (dilation) of every channel, separable as the minimum over a square is
 * the minimum of its rows' minima.  Each pass builds windows by doubling:
 * from the extremes of windows of s samples, those of 2s take one
 * comparison a sample (the window and the one s further on), and the
 * window of k joins the doublings that k's binary digits name, so about
 * 2 log2(k) passes over a line, each a loop without dependencies that the
 * compiler vectorises along the samples (the channels of a pixel side by
 * side, or the columns of a chunk).
 *
 * Pass 1 runs along the padded copy's rows (bands of rows on the pool)
 * into a buffer of h + k - 1 rows of w pixels; pass 2 down the columns, a
 * chunk of columns a task, its rows copied together first.
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

#define CHUNK 128     /* columns (samples) a task of pass 2 by doubling */
#define DOWN_MAX_K 31 /* to here pass 2 joins the k rows themselves */

typedef struct rank_job {
    const jf_image *src;
    jf_border border;
    int wp, hp;           /* the padded size: w + k - 1, h + k - 1 */
    jf_image *dst;
    int k;
    unsigned char *rows;  /* pass 1's output: h + k - 1 rows of w * ch samples */
    size_t rows_stride;   /* bytes */
    unsigned char *work;  /* per worker: four lines (pass 1) or five chunks of columns (pass 2) */
    size_t work_bytes;    /* a worker's */
} rank_job;

#define MIN_(a, b) ((a) < (b) ? (a) : (b))
#define MAX_(a, b) ((a) > (b) ? (a) : (b))

/* A scratch line that is neither x nor y. */
static void *free_line(void *const buf[3], const void *x, const void *y)
{
    int i;
    for (i = 0; i < 2 && (buf[i] == x || buf[i] == y); i++)
        ;
    return buf[i];
}

/* For one sample type T and extreme OP: d[i] = OP(a[i], b[i]); the
 * windows of k along a line of `len` elements (elements of `unit` samples:
 * a pixel's channels, or a chunk's columns), from `in` into `out` (len -
 * k + 1 elements), with three scratch lines of len elements; and the two
 * passes.  k >= 3 and odd: its lowest digit starts the windows, its
 * highest ends them with a join straight into `out`. */
#define RANK_PASSES(T, OP, NAME)                                                                  \
    JF_WIDEST_INT_SIMD static void NAME##_join(T *d, const T *a, const T *b, size_t n)           \
    {                                                                                             \
        size_t i;                                                                                 \
        for (i = 0; i < n; i++)                                                                   \
            d[i] = OP(a[i], b[i]);                                                                \
    }                                                                                             \
    static void NAME##_window(const T *in, size_t len, size_t unit, int k, T *out,              \
                              void *const buf[3])                                                 \
    {                                                                                             \
        const T *cur = in, *acc = NULL; /* windows of s and of t */                               \
        size_t s = 1, t = 0;                                                                      \
        int bits = k;                                                                             \
        for (;;) {                                                                                \
            if (bits & 1) {                                                                       \
                if (!acc) {                                                                       \
                    acc = cur;                                                                    \
                } else { /* windows of t + s: those of t and the s after them */                 \
                    T *d = !(bits >> 1) ? out                                                     \
                         : (acc != in && acc != cur) ? (T *)acc                                    \
                                                     : (T *)free_line(buf, cur, acc);              \
                    NAME##_join(d, acc, cur + t * unit, (len - (t + s - 1)) * unit);              \
                    acc = d;                                                                      \
                }                                                                                 \
                t += s;                                                                           \
            }                                                                                     \
            if (!(bits >>= 1))                                                                    \
                return;                                                                           \
            { /* windows of 2s from those of s */                                                 \
                T *d = (T *)free_line(buf, cur, acc);                                             \
                NAME##_join(d, cur, cur + s * unit, (len - (2 * s - 1)) * unit);                  \
                cur = d;                                                                          \
                s *= 2;                                                                           \
            }                                                                                     \
        }                                                                                         \
    }                                                                                             \
    static void NAME##_rows(void *arg, int y0, int y1, int worker)                               \
    {                                                                                             \
        const rank_job *j = (const rank_job *)arg;                                                \
        const size_t line = (size_t)j->wp * (size_t)j->src->channels * sizeof(T);                \
        unsigned char *mine = j->work + (size_t)worker * j->work_bytes, *padded = mine + 3 * line; \
        void *const buf[3] = {mine, mine + line, mine + 2 * line};                                \
        int y;                                                                                    \
        for (y = y0; y < y1; y++) { /* padded row y, its border made as it is read */            \
            jf_pad_row(j->src, j->k / 2, j->border, y, padded);                                   \
            NAME##_window((const T *)(const void *)padded, (size_t)j->wp, (size_t)j->src->channels, \
                          j->k, (T *)(void *)(j->rows + (size_t)y * j->rows_stride), buf);        \
        }                                                                                         \
    }                                                                                             \
    static void NAME##_down(void *arg, int y0, int y1, int worker)                               \
    {                                                                                             \
        const rank_job *j = (const rank_job *)arg;                                                \
        const size_t n = (size_t)j->dst->width * (size_t)j->dst->channels;                       \
        int y, i;                                                                                 \
        (void)worker;                                                                             \
        for (y = y0; y < y1; y++) {                                                               \
            T *out = (T *)(void *)(j->dst->data + (size_t)y * j->dst->stride);                    \
            const T *r0 = (const T *)(const void *)(j->rows + (size_t)y * j->rows_stride);        \
            NAME##_join(out, r0, (const T *)(const void *)((const unsigned char *)r0 + j->rows_stride), n); \
            for (i = 2; i < j->k; i++)                                                            \
                NAME##_join(out, out,                                                             \
                            (const T *)(const void *)((const unsigned char *)r0 + i * j->rows_stride), n); \
        }                                                                                         \
    }                                                                                             \
    static void NAME##_columns(void *arg, int t0, int t1, int worker)                            \
    {                                                                                             \
        const rank_job *j = (const rank_job *)arg;                                                \
        const size_t hp = (size_t)j->dst->height + (size_t)j->k - 1;                             \
        const size_t n = (size_t)j->dst->width * (size_t)j->dst->channels;                       \
        T *in = (T *)(void *)(j->work + (size_t)worker * j->work_bytes), *out = in + hp * CHUNK;  \
        void *const buf[3] = {out + hp * CHUNK, out + 2 * hp * CHUNK, out + 3 * hp * CHUNK};     \
        size_t y;                                                                                 \
        int t;                                                                                    \
        for (t = t0; t < t1; t++) {                                                               \
            const size_t at = (size_t)t * CHUNK, m = n - at < CHUNK ? n - at : CHUNK;             \
            for (y = 0; y < hp; y++) /* the chunk's rows one after the other, CHUNK long */        \
                memcpy(in + y * CHUNK, (const T *)(const void *)(j->rows + y * j->rows_stride) + at, \
                       m * sizeof(T));                                                            \
            NAME##_window(in, hp, CHUNK, j->k, out, buf);                                         \
            for (y = 0; y < (size_t)j->dst->height; y++)                                          \
                memcpy((T *)(void *)(j->dst->data + y * j->dst->stride) + at, out + y * CHUNK,    \
                       m * sizeof(T));                                                            \
        }                                                                                         \
    }

RANK_PASSES(uint8_t, MIN_, min8)
RANK_PASSES(uint8_t, MAX_, max8)
RANK_PASSES(uint16_t, MIN_, min16)
RANK_PASSES(uint16_t, MAX_, max16)

/* What each pass's workers take: a padded line and three scratch lines,
 * or a chunk of columns in, out and three scratch (h + k - 1 rows each). */
static size_t worker_bytes(int wp, int hp, int ch, size_t bps)
{
    const size_t lines = 4 * (size_t)wp * (size_t)ch * bps, columns = 5 * (size_t)hp * CHUNK * bps;
    return ((lines > columns ? lines : columns) + 63) & ~(size_t)63;
}

size_t jf_rank_cpu_bytes(const jf_shape *s, int k, int threads)
{
    const size_t bps = s->sample == JF_SAMPLE_U16 ? 2 : 1;
    const int hp = s->height + k - 1, wp = s->width + k - 1;
    const size_t rows = (size_t)hp * (size_t)s->width * (size_t)s->channels * bps;
    return rows + (size_t)(threads < 1 ? 1 : threads) * worker_bytes(wp, hp, s->channels, bps);
}

jf_status jf_rank_cpu_run(jf_cpu_call *c)
{
    const jf_rank_which *which = (const jf_rank_which *)c->args;
    const int deep = c->src->sample == JF_SAMPLE_U16, k = c->k, max = which && which->max;
    const size_t bps = deep ? 2 : 1;
    rank_job job;
    int workers, tasks;
    if (k == 1)
        return jf_image_copy(c->src, c->dst);
    memset(&job, 0, sizeof job);
    job.src = c->src;
    job.border = c->border;
    job.wp = c->src->width + k - 1;
    job.hp = c->src->height + k - 1;
    job.dst = c->dst;
    job.k = k;
    job.rows_stride = (size_t)c->src->width * (size_t)c->src->channels * bps;
    tasks = (int)((job.rows_stride / bps + CHUNK - 1) / CHUNK);
    workers = jf_parallel_bands(c->ctx, job.hp > tasks ? job.hp : tasks);
    job.work_bytes = worker_bytes(job.wp, job.hp, c->src->channels, bps);
    if (!(job.rows = (unsigned char *)jf_scratch_get(c->ctx, JF_SCRATCH_ROWS,
                                                      job.rows_stride * (size_t)job.hp)) ||
        !(job.work = (unsigned char *)jf_scratch_get(c->ctx, JF_SCRATCH_BANDS,
                                                      job.work_bytes * (size_t)workers)))
        return jf_fail(JF_ERR_NOMEM, "%s: out of memory", max ? "dilate" : "erode");
    /* pass 1 reads every source row before pass 2 writes any output row:
     * filtering in place needs no copy */
    jf_parallel_for(c->ctx, job.hp,
                    deep ? (max ? max16_rows : min16_rows) : (max ? max8_rows : min8_rows), &job);
    if (k <= DOWN_MAX_K)
        jf_parallel_for(c->ctx, c->dst->height,
                        deep ? (max ? max16_down : min16_down) : (max ? max8_down : min8_down), &job);
    else
        jf_parallel_for(c->ctx, tasks,
                        deep ? (max ? max16_columns : min16_columns) : (max ? max8_columns : min8_columns),
                        &job);
    return JF_OK;
}
