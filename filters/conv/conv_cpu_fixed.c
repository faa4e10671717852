/*
 * Convolution on the CPU in 16-bit fixed point: 8-bit samples and rank-1
 * weights whose factors are non-negative and sum to at most 1 (Gaussian, box),
 * which is what `auto` runs on the CPU for them (the float loop in
 * conv_cpu.c stays the reference).
 *
 * Why: a float lane is 4 bytes, so a vector sums 8 samples a tap; a 16-bit
 * lane sums 16 (NEON: 8 against 4), and no conversion to and from float.
 * Weights become 0.16 fixed point (q near w * 65536, summing to at most
 * 65536: quantise); a product is the high half of sample x weight (pmulhuw on x86,
 * umull + uzp2 on NEON, both from the plain C below).
 *   Rows: h = sum_i hi16((x_i << 8) * q_i) + b_row, the row sum with 8
 *   fraction bits (at most 255 * 256 + 32: fits 16 bits).
 *   Columns: out = (sum_j hi16(h_j * q_j) + b_col + 128) >> 8.
 * Each high half drops less than one unit (1/256 level); b_row and b_col
 * (at most taps / 2) give back what they drop on average, so the sums are
 * unbiased and within 0.13 levels a pass at k = 63; a weight is within one
 * unit of its exact value (0.25 levels a pass).  The result is within 0.75
 * levels of the exact sum, so after rounding it is the float reference's or
 * one level from it (test_filters holds every k against the reference).
 */
#include "filters/conv/conv.h"
#include "filters/filters.h"
#include "core/context.h"
#include "core/errors.h"
#include "core/image.h"
#include "filters/pad/pad.h"

#include <math.h>
#include <string.h>

/* Outputs summed four taps a pass: a block's sums (1 KB) stay in L1. */
#define FX_BLOCK 512
/* Bytes of a row read between prefetches of the next row's same bytes. */
#define FX_AHEAD 1024
/* Up to this k the row pass reads the padded bytes themselves (b << 8 a
 * tap); beyond, widening each tap's bytes costs more than one widened copy
 * of the row (measured: faster to k = 7, level at 9, slower from 11). */
#define FX_BYTE_TAPS_MAX 7

typedef struct fx_job {
    const jf_image *src;
    jf_image *dst;
    int ksize;
    jf_border border;
    const uint16_t *qrow, *qcol; /* the caller's, 0.16 fixed point */
    unsigned row_bias, col_bias; /* what the high halves drop, on average */
    size_t n;          /* samples in an output row */
    size_t padded_n;   /* samples in a padded row */
    size_t slot;       /* samples in a ring slot (n, rounded up to 32) */
    size_t band_bytes; /* padded row | its wide copy | k slots | k row pointers */
    unsigned char *scratch;
} fx_job;

/* w * scale as 0.16 fixed point: each weight its exact value rounded down
 * or up, the ones with the largest remainders up, so that the weights sum
 * to the exact sum rounded (a box's 1/7 to 65536, not 65534), at most
 * 65536 (the bound the 16-bit sums rely on).  0 if some weight is negative
 * or too large. */
static int quantise(const float *w, int k, double scale, uint16_t *q)
{
    double exact[JF_CONV_MAX_KSIZE], total = 0.0;
    long sum = 0, target;
    int i;
    for (i = 0; i < k; i++) {
        exact[i] = (double)w[i] * scale * 65536.0;
        if (!(exact[i] >= 0.0 && exact[i] < 65535.0))
            return 0;
        q[i] = (uint16_t)floor(exact[i]);
        sum += q[i];
        total += exact[i];
    }
    target = (long)floor(total + 0.5);
    if (target > 65536)
        target = 65536;
    while (sum < target) {
        int most = -1;
        for (i = 0; i < k; i++)
            if (q[i] < exact[i] && (most < 0 || exact[i] - q[i] > exact[most] - q[most]))
                most = i;
        if (most < 0)
            break;
        q[most]++;
        sum++;
    }
    return sum <= 65536;
}

/* The units hi16(x * q) drops on average, summed over the taps, rounded:
 * with x evenly spread over its residues modulo 2^bits (the samples x << 8
 * modulo 2^16, the row sums modulo 2^16), (x q mod 2^bits) / 2^bits
 * averages 1/2 - g / 2^(bits+1), g the largest power of two dividing q
 * and 2^bits; nothing for a zero weight (a narrow Gaussian's far taps). */
static unsigned truncation_bias(const uint16_t *q, int k, int bits)
{
    const unsigned m = 1u << bits;
    double drop = 0.0;
    int i;
    for (i = 0; i < k; i++)
        if (q[i]) {
            unsigned g = q[i] & (0u - q[i]);
            if (g > m)
                g = m;
            drop += 0.5 - (double)g / (2.0 * m);
        }
    return (unsigned)floor(drop + 0.5);
}

int jf_conv_fixed_weights(const jf_image *src, int ksize, const float *col, const float *row,
                          uint16_t *qcol, uint16_t *qrow)
{
    double sc = 0.0, sr = 0.0;
    int i;
    if (src->sample != JF_SAMPLE_U8 || !col || !row || ksize > JF_CONV_MAX_KSIZE)
        return 0;
    for (i = 0; i < ksize; i++) {
        sc += col[i];
        sr += row[i];
    }
    /* rows scaled to sum 1, columns to the whole kernel's sum (at most 1) */
    if (sr == 0.0 || sc * sr > 1.0 + 1.0 / 1048576.0)
        return 0;
    return quantise(row, ksize, 1.0 / sr, qrow) && quantise(col, ksize, sr, qcol);
}

static inline unsigned hi16(uint16_t x, unsigned q)
{
    return ((unsigned)x * q) >> 16;
}

/* One pass of g taps (1 to 5) over m lanes: starts from bias (first) or
 * from a, adds hi16(r[t][x] * q[t]) for each tap, and leaves the sum in a,
 * in out16 or, shifted down 8 bits, in out8 (to).  Inlined with constant
 * g, first and to, so that each combination is one loop without branches
 * that the compiler vectorises (16 lanes a register on AVX2). */
enum { TO_ACC, TO_U16, TO_U8 };
/* Sample x of a row: 16-bit, or a byte b read as b << 8 (the row pass reads
 * the padded bytes themselves: no widened copy of the row in memory). */
#define FX_AT(r, x, bytes)                                                                  \
    ((bytes) ? (uint16_t)(((const unsigned char *)(r))[x] << 8) : ((const uint16_t *)(r))[x])
static inline __attribute__((always_inline)) void tap_pass(
    uint16_t *a, uint16_t *out16, unsigned char *restrict out8, const void *restrict r0,
    const void *restrict r1, const void *restrict r2, const void *restrict r3,
    const void *restrict r4, const uint16_t *q, int g, int first, int to, int bytes,
    unsigned bias, size_t m)
{
    const unsigned q0 = q[0], q1 = g > 1 ? q[1] : 0, q2 = g > 2 ? q[2] : 0, q3 = g > 3 ? q[3] : 0,
                   q4 = g > 4 ? q[4] : 0;
    size_t x;
    for (x = 0; x < m; x++) {
        unsigned v = (first ? bias : a[x]) + hi16(FX_AT(r0, x, bytes), q0);
        if (g > 1)
            v += hi16(FX_AT(r1, x, bytes), q1);
        if (g > 2)
            v += hi16(FX_AT(r2, x, bytes), q2);
        if (g > 3)
            v += hi16(FX_AT(r3, x, bytes), q3);
        if (g > 4)
            v += hi16(FX_AT(r4, x, bytes), q4);
        if (to == TO_U8)
            out8[x] = (unsigned char)((uint16_t)v >> 8);
        else if (to == TO_U16)
            out16[x] = (uint16_t)v;
        else
            a[x] = (uint16_t)v;
    }
}

/* out[x] = bias + sum over taps of hi16(in[t][x] * q[t]), x < n, as 16-bit
 * samples (out16) or shifted down 8 bits as bytes (out8): blocks of
 * FX_BLOCK outputs, four taps a pass over a block, five where five are
 * left (k = 5 in one pass: no sums stored and read back).  The rows:
 * 16-bit (in) or bytes read as b << 8 (in8, the row pass: out16 only). */
JF_WIDE_SIMD static void sum_taps16(uint16_t *out16, unsigned char *out8, const uint16_t *const *in,
                                    const unsigned char *const *in8, const uint16_t *q, int taps,
                                    size_t n, unsigned bias)
{
    uint16_t a[FX_BLOCK];
    size_t x0;
    int t, g;
    for (x0 = 0; x0 < n; x0 += FX_BLOCK) {
        const size_t m = n - x0 < FX_BLOCK ? n - x0 : FX_BLOCK;
        for (t = 0; t < taps; t += g) {
            const int first = t == 0;
            g = taps - t == 5 ? 5 : taps - t < 4 ? taps - t : 4;
            const int to = t + g < taps ? TO_ACC : out8 ? TO_U8 : TO_U16;
            const int i1 = t + (g > 1), i2 = t + (g > 2 ? 2 : 0), i3 = t + (g > 3 ? 3 : 0),
                      i4 = t + (g > 4 ? 4 : 0);
            const void *r0, *r1, *r2, *r3, *r4;
            uint16_t *o16 = out16 ? out16 + x0 : NULL;
            unsigned char *o8 = out8 ? out8 + x0 : NULL;
            if (in8)
                r0 = in8[t] + x0, r1 = in8[i1] + x0, r2 = in8[i2] + x0, r3 = in8[i3] + x0,
                r4 = in8[i4] + x0;
            else
                r0 = in[t] + x0, r1 = in[i1] + x0, r2 = in[i2] + x0, r3 = in[i3] + x0,
                r4 = in[i4] + x0;
#define FX_PASS(G, F, TO, B) tap_pass(a, o16, o8, r0, r1, r2, r3, r4, q + t, G, F, TO, B, bias, m)
#define FX_PASSES(G)                                                                       \
    do {                                                                                   \
        if (in8 && to == TO_ACC)                                                           \
            first ? FX_PASS(G, 1, TO_ACC, 1) : FX_PASS(G, 0, TO_ACC, 1);                   \
        else if (in8)                                                                      \
            first ? FX_PASS(G, 1, TO_U16, 1) : FX_PASS(G, 0, TO_U16, 1);                   \
        else if (to == TO_ACC)                                                             \
            first ? FX_PASS(G, 1, TO_ACC, 0) : FX_PASS(G, 0, TO_ACC, 0);                   \
        else if (to == TO_U8)                                                              \
            first ? FX_PASS(G, 1, TO_U8, 0) : FX_PASS(G, 0, TO_U8, 0);                     \
        else                                                                               \
            first ? FX_PASS(G, 1, TO_U16, 0) : FX_PASS(G, 0, TO_U16, 0);                   \
    } while (0)
            switch (g) {
            case 5: FX_PASSES(5); break;
            case 4: FX_PASSES(4); break;
            case 3: FX_PASSES(3); break;
            case 2: FX_PASSES(2); break;
            default: FX_PASSES(1);
            }
#undef FX_PASSES
#undef FX_PASS
        }
    }
}

/* Pointers into one band's scratch. */
typedef struct fx_rows {
    unsigned char *raw;
    uint16_t *wide, *ring;
    const uint16_t **in;
} fx_rows;

static fx_rows band_scratch(const fx_job *job, int band)
{
    fx_rows b;
    unsigned char *base = job->scratch + (size_t)band * job->band_bytes;
    b.raw = base;
    b.wide = (uint16_t *)(void *)(base + ((job->padded_n + 63) & ~(size_t)63));
    b.ring = b.wide + ((job->padded_n + 31) & ~(size_t)31);
    b.in = (const uint16_t **)(void *)(b.ring + job->slot * (size_t)job->ksize);
    return b;
}

/* A padded row's bytes as 16-bit samples x << 8 (k beyond FX_BYTE_TAPS_MAX). */
JF_WIDE_SIMD static void widen(const unsigned char *raw, uint16_t *wide, size_t n)
{
    size_t x;
    for (x = 0; x < n; x++)
        wide[x] = (uint16_t)(raw[x] << 8);
}

/* The row pass over outputs [x0, x0 + m) of a slot; output x's first tap
 * at p + x - shift, the others px bytes apart (bytes read as 16-bit
 * samples x << 8: k up to FX_BYTE_TAPS_MAX). */
static void row_pass(const fx_job *job, uint16_t *slot, const unsigned char *p, size_t shift,
                     size_t x0, size_t m)
{
    const size_t px = (size_t)job->src->channels;
    const unsigned char *in8[JF_CONV_MAX_KSIZE];
    int i;
    for (i = 0; i < job->ksize; i++)
        in8[i] = p + (x0 + (size_t)i * px - shift);
    sum_taps16(slot + x0, NULL, NULL, in8, job->qrow, job->ksize, m, job->row_bias);
}

/* Ring slot py % k gets padded row py summed along the row.  Up to
 * FX_BYTE_TAPS_MAX, where py is an image row and the image is 4r wide or
 * more, the middle outputs read the row in place and only the ends go
 * through a padded copy of 3r pixels each (r border pixels and the 2r they
 * meet); else the whole padded row is made first (and beyond
 * FX_BYTE_TAPS_MAX widened once). */
static void fill_slot(const fx_job *job, const fx_rows *b, int py)
{
    const jf_image *src = job->src;
    const size_t px = (size_t)src->channels;
    const int k = job->ksize, r = k / 2, w = src->width;
    const int sy = jf_border_index(py - r, src->height, job->border);
    uint16_t *slot = b->ring + (size_t)(py % k) * job->slot;
    if (k <= FX_BYTE_TAPS_MAX && sy >= 0 && w >= 4 * r) {
        const unsigned char *row = src->data + (size_t)sy * src->stride;
        const size_t e = (size_t)r * px; /* outputs at either end */
        const unsigned char *next = sy + 1 < src->height ? row + src->stride : NULL;
        size_t x, o;
        unsigned char *left = b->raw, *right = b->raw + 3 * e;
        jf_pad_row_border(row, w, px, r, job->border, left, right + 2 * e);
        memcpy(left + e, row, 2 * e);
        memcpy(right, row + job->n - 2 * e, 2 * e);
        row_pass(job, slot, left, 0, 0, e);
        /* the middle in pieces of FX_AHEAD bytes, each first asking for the
         * same piece of the next image row, which the next slot reads: the
         * hardware's prefetch stops at every 4 KB page, where a row's
         * reads otherwise wait on memory (RESULTS.md, "The CPU convolution
         * against OpenCV in one run") */
        for (x = e; x < job->n - e; x += FX_AHEAD) {
            const size_t m = job->n - e - x < FX_AHEAD ? job->n - e - x : FX_AHEAD;
            if (next)
                for (o = 0; o < m; o += 64)
                    __builtin_prefetch(next + x + o);
            row_pass(job, slot, row, e, x, m);
        }
        /* right holds padded columns w - r .. w + 2r - 1 */
        row_pass(job, slot, right, job->n - e, job->n - e, e);
        return;
    }
    jf_pad_row(src, r, job->border, py, b->raw);
    if (k <= FX_BYTE_TAPS_MAX) {
        row_pass(job, slot, b->raw, 0, 0, job->n);
    } else {
        int i;
        widen(b->raw, b->wide, job->padded_n);
        for (i = 0; i < k; i++)
            b->in[i] = b->wide + (size_t)i * px;
        sum_taps16(slot, NULL, b->in, NULL, job->qrow, k, job->n, job->row_bias);
    }
}

static void fx_rows_run(void *arg, int y0, int y1, int band)
{
    fx_job *job = (fx_job *)arg;
    const fx_rows b = band_scratch(job, band);
    const int k = job->ksize;
    int y, j;
    for (y = y0; y < y1; y++) {
        for (j = y == y0 ? 0 : k - 1; j < k; j++)
            fill_slot(job, &b, y + j);
        for (j = 0; j < k; j++)
            b.in[j] = b.ring + (size_t)((y + j) % k) * job->slot;
        sum_taps16(NULL, job->dst->data + (size_t)y * job->dst->stride, b.in, NULL, job->qcol, k,
                   job->n, 128 + job->col_bias);
    }
}

/* The job's row lengths and one band's scratch for src. */
static void band_sizes(fx_job *job, const jf_image *src, int ksize)
{
    job->n = (size_t)src->width * (size_t)src->channels;
    job->padded_n = (size_t)(src->width + ksize - 1) * (size_t)src->channels;
    job->slot = (job->n + 31) & ~(size_t)31; /* 64-byte rows */
    job->band_bytes = ((job->padded_n + 63) & ~(size_t)63) +
                      ((job->padded_n + 31) & ~(size_t)31) * sizeof(uint16_t) +
                      job->slot * (size_t)ksize * sizeof(uint16_t) +
                      (((size_t)ksize * sizeof(uint16_t *) + 63) & ~(size_t)63);
}

size_t jf_conv_fixed_bytes(const jf_image *src, int ksize, int bands)
{
    fx_job job;
    band_sizes(&job, src, ksize);
    return job.band_bytes * (size_t)bands;
}

jf_status jf_conv_cpu_fixed(jf_context *ctx, const jf_image *src, int ksize, jf_border border,
                            const uint16_t *qcol, const uint16_t *qrow, jf_image *dst)
{
    const int bands = jf_parallel_bands(ctx, dst->height);
    fx_job job = {.src = src, .dst = dst, .ksize = ksize, .border = border, .qrow = qrow,
                  .qcol = qcol};
    job.row_bias = truncation_bias(qrow, ksize, 8);
    job.col_bias = truncation_bias(qcol, ksize, 16);
    band_sizes(&job, src, ksize);
    if (!(job.scratch = (unsigned char *)jf_scratch_get(ctx, JF_SCRATCH_BANDS,
                                                        job.band_bytes * (size_t)bands)))
        return JF_ERR_NOMEM;
    jf_parallel_for(ctx, dst->height, fx_rows_run, &job);
    return JF_OK;
}
