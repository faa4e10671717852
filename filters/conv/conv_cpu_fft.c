/*
 * Convolution (correlation) on the CPU through the FFT: large k x k weights
 * that are not rank 1, which `auto` runs on the CPU where it is the cheaper
 * (jf_conv_fft_plan); conv_cpu.c's direct sum stays the reference.
 *
 * Why: the direct sum costs k*k multiply-adds a sample (3969 at k = 63) and
 * is already near the cores' float peak; a transform costs about
 * 20 log2(N) flops a sample whatever k.
 *
 * How (overlap-save): the image is cut into N x N tiles that reach k - 1
 * samples into the next, read through the border rule, so each gives
 * N - k + 1 outputs a side.  Two real tiles ride in one complex transform
 * (a + ib: the weights are real, so a's result is the real part and b's the
 * imaginary one).  A 2-D transform is radix-4 passes down the columns,
 * 8 columns a vector (every column of a row takes the same twiddle: no
 * shuffles), a transpose, the columns again.  Rows enter in bit-reversed
 * order, put there by the tile's fill, the transposes and the product, so
 * no pass reorders them.  The inverse is the forward transform of the
 * conjugate.  Samples are centred (x - 128, x - 32768) and the offset's
 * weighted sum added back: the rounding errors scale with the largest
 * value transformed, which this halves.
 *
 * Error: float rounding in the transforms, proportional to
 * sum |w| x the sample range; jf_conv_fft_plan takes only weights that keep
 * it well under half a level (FFT_SPAN_MAX), so each result is the float
 * reference's or one level from it (test_filters holds it against the
 * reference).
 */
#include "filters/conv/conv.h"
#include "filters/filters.h"
#include "core/context.h"
#include "core/errors.h"
#include "core/image.h"

#include <math.h>
#include <string.h>

typedef float vf8 __attribute__((vector_size(32)));

#define FFT_MIN_LOG 6  /* 64 x 64 tiles */
#define FFT_MAX_LOG 9  /* 512 x 512: 4 MB of planes a worker */

/* Largest sum |w| x sample range taken.  The transforms' rounding error
 * grows with it: on 16-bit noise with signed weights, against an exact
 * double sum, at most 0.019 level at this bound (k = 11 to 63), 0.07-0.10
 * at 4 x it (`bench_conv_fft error`), so a result is the float reference's
 * or one level from it. */
#define FFT_SPAN_MAX 1048576.0

/* What one radix-2 butterfly of 8 columns costs, in multiply-adds of the
 * direct sum, with the tiles' fill, transposes and stores counted in it
 * (`bench_conv_fft time`: with 90 the plan picks the faster of the two in
 * 23 of 24 cells, 3840x2160 and 640x480, grey and RGB, k = 5 to 15, 2 AVX2
 * threads; the other, grey k = 9, is 7% off).  The direct sum is the faster
 * below k = 9 to 11. */
#define FFT_BUTTERFLY_COST 90.0

typedef struct fft_job {
    const jf_image *src;
    jf_image *dst;
    int k, log_n, n, valid; /* valid = n - k + 1 outputs a tile side */
    int tiles_x, tiles_y, tiles; /* a channel's */
    int jobs;                    /* tiles x channels */
    jf_border border;
    float offset, offset_sum; /* samples centred by offset; offset x sum w added back */
    float *hr, *hi;   /* the weights' spectrum / n^2, [fx][fy] */
    float *twr, *twi; /* n / 2 twiddles, e^(-2 pi i j / n) */
    int *rev;         /* bit reversal of 0 .. n - 1 */
    size_t pitch;     /* floats from a plane's row to the next: n + 16, so that
                       * a column's rows fall in different cache sets */
    size_t plane;     /* floats in one n x pitch plane */
    size_t band_bytes;
    unsigned char *bands; /* four planes and a column map a worker */
} fft_job;

/* n x n tiles with the fewest butterflies for the whole image, or 0 if no
 * size up to FFT_MAX_LOG leaves outputs. */
static int best_log(int w, int h, int k, double *cost)
{
    int lg, best = 0;
    double least = 0.0;
    for (lg = FFT_MIN_LOG; lg <= FFT_MAX_LOG; lg++) {
        const int n = 1 << lg, v = n - k + 1;
        double c;
        if (v < 1)
            continue;
        c = (double)((w + v - 1) / v) * (double)((h + v - 1) / v) * (double)n * (double)n *
            (double)lg;
        if (!best || c < least) {
            best = lg;
            least = c;
        }
    }
    *cost = least;
    return best;
}

int jf_conv_fft_plan(const jf_image *src, int ksize, const float *weights)
{
    const double range = src->sample == JF_SAMPLE_U16 ? 65535.0 : 255.0;
    double abs_sum = 0.0, taps = 0.0, butterflies;
    int i, lg;
    for (i = 0; i < ksize * ksize; i++) {
        abs_sum += fabs((double)weights[i]);
        taps += weights[i] != 0.0f;
    }
    if (ksize < 3 || abs_sum * range > FFT_SPAN_MAX ||
        !(lg = best_log(src->width, src->height, ksize, &butterflies)))
        return 0;
    /* per channel: a direct sum of `taps` a sample against 4 column passes
     * a pair of tiles of n^2 / 2 butterflies of 8 columns each stage */
    butterflies = butterflies * 4.0 / 2.0 / 2.0 / 8.0;
    return butterflies * FFT_BUTTERFLY_COST <
           taps * (double)src->width * (double)src->height;
}

/* Complex arithmetic on 8 columns at once. */
typedef struct cv8 {
    vf8 r, i;
} cv8;

static inline cv8 load8(const float *re, const float *im)
{
    cv8 z;
    memcpy(&z.r, re, sizeof z.r);
    memcpy(&z.i, im, sizeof z.i);
    return z;
}

static inline void store8(float *re, float *im, cv8 z)
{
    memcpy(re, &z.r, sizeof z.r);
    memcpy(im, &z.i, sizeof z.i);
}

/* The butterfly's sum and difference: *sum = a + b, *diff = a - b. */
static inline void sum_diff(cv8 a, cv8 b, cv8 *sum, cv8 *diff)
{
    sum->r = a.r + b.r;
    sum->i = a.i + b.i;
    diff->r = a.r - b.r;
    diff->i = a.i - b.i;
}

static inline cv8 twiddled(cv8 z, float wr, float wi)
{
    cv8 t;
    t.r = wr * z.r - wi * z.i;
    t.i = wr * z.i + wi * z.r;
    return t;
}

/* The butterflies of an n-point transform down every column of re + i im
 * (n x pitch, rows in bit-reversed order), 8 columns at a time (one strip,
 * 16 or 32 KB, stays in L1 through all stages); the result in natural
 * order.  Two radix-2 stages at a time (h and 2h: four rows read and
 * written once instead of twice), one radix-2 stage first when log n is
 * odd. */
JF_WIDE_SIMD static void columns_fft(float *re, float *im, const fft_job *job)
{
    const size_t n = (size_t)job->n, pitch = job->pitch;
    size_t c, h, g, j;
    for (c = 0; c < n; c += 8) {
        float *sr = re + c, *si = im + c;
        h = 1;
        if (job->log_n & 1) { /* twiddle 1 */
            for (g = 0; g < n; g += 2) {
                const cv8 a = load8(sr + g * pitch, si + g * pitch);
                const cv8 b = load8(sr + (g + 1) * pitch, si + (g + 1) * pitch);
                cv8 x, y;
                sum_diff(a, b, &x, &y);
                store8(sr + g * pitch, si + g * pitch, x);
                store8(sr + (g + 1) * pitch, si + (g + 1) * pitch, y);
            }
            h = 2;
        }
        for (; h < n; h *= 4) {
            const size_t s1 = n / (2 * h), s2 = n / (4 * h);
            for (g = 0; g < n; g += 4 * h)
                for (j = 0; j < h; j++) {
                    const size_t r0 = (g + j) * pitch, r1 = r0 + h * pitch;
                    const size_t r2 = r1 + h * pitch, r3 = r2 + h * pitch;
                    const float w1r = job->twr[j * s1], w1i = job->twi[j * s1];
                    const float w2r = job->twr[j * s2], w2i = job->twi[j * s2];
                    const cv8 a0 = load8(sr + r0, si + r0);
                    const cv8 a1 = twiddled(load8(sr + r1, si + r1), w1r, w1i);
                    const cv8 a2 = load8(sr + r2, si + r2);
                    const cv8 a3 = twiddled(load8(sr + r3, si + r3), w1r, w1i);
                    cv8 b0, b1, b2, b3, c0, c1, c2, c3;
                    sum_diff(a0, a1, &b0, &b1); /* stage h */
                    sum_diff(a2, a3, &b2, &b3);
                    /* stage 2h: b2 x w2, b3 x w2 x (-i) */
                    sum_diff(b0, twiddled(b2, w2r, w2i), &c0, &c2);
                    sum_diff(b1, twiddled(b3, w2i, -w2r), &c1, &c3);
                    store8(sr + r0, si + r0, c0);
                    store8(sr + r1, si + r1, c1);
                    store8(sr + r2, si + r2, c2);
                    store8(sr + r3, si + r3, c3);
                }
        }
    }
}

/* out[rev[c]][r] = in[r][c]: the transpose, its rows bit-reversed for the
 * next column pass.  In 8 x 8 blocks so both sides stay in cache lines. */
static void transpose_rev(float *restrict out, const float *restrict in, const fft_job *job)
{
    const size_t n = (size_t)job->n, pitch = job->pitch;
    size_t r0, c0, r, c;
    for (r0 = 0; r0 < n; r0 += 8)
        for (c0 = 0; c0 < n; c0 += 8)
            for (c = c0; c < c0 + 8; c++) {
                float *o = out + (size_t)job->rev[c] * pitch;
                for (r = r0; r < r0 + 8; r++)
                    o[r] = in[r * pitch + c];
            }
}

/* A tile's place: channel, and the image position of its first output. */
static void tile_at(const fft_job *job, int t, int *ch, int *x0, int *y0)
{
    *ch = t / job->tiles;
    t %= job->tiles;
    *x0 = (t % job->tiles_x) * job->valid;
    *y0 = (t / job->tiles_x) * job->valid;
}

/* Samples row[x * px] - offset for x < n, as floats. */
static inline void centred(float *restrict o, const unsigned char *row, int wide, size_t px,
                           float offset, int n)
{
    int q;
    if (wide && px == 1) {
        const uint16_t *r16 = (const uint16_t *)(const void *)row;
        for (q = 0; q < n; q++)
            o[q] = (float)r16[q] - offset;
    } else if (wide) {
        const uint16_t *r16 = (const uint16_t *)(const void *)row;
        for (q = 0; q < n; q++)
            o[q] = (float)r16[(size_t)q * px] - offset;
    } else if (px == 1) {
        for (q = 0; q < n; q++)
            o[q] = (float)row[q] - offset;
    } else {
        for (q = 0; q < n; q++)
            o[q] = (float)row[(size_t)q * px] - offset;
    }
}

/* Tile t's samples, centred, into plane (rows bit-reversed): rows and
 * columns from x0 - k/2, y0 - k/2 through the border rule (a column map
 * where the tile leaves the image); t beyond the last leaves zeros. */
static void fill_tile(const fft_job *job, int t, float *plane, int *cols)
{
    const jf_image *s = job->src;
    const int n = job->n, r = job->k / 2, wide = s->sample == JF_SAMPLE_U16;
    const size_t px = (size_t)s->channels, bps = jf_bps(s);
    int ch, x0, y0, p, q, inside;
    if (t >= job->jobs) {
        memset(plane, 0, job->plane * sizeof *plane);
        return;
    }
    tile_at(job, t, &ch, &x0, &y0);
    x0 -= r;
    inside = x0 >= 0 && x0 + n <= s->width;
    for (q = 0; q < n && !inside; q++)
        cols[q] = jf_border_index(x0 + q, s->width, job->border);
    for (p = 0; p < n; p++) {
        const int sy = jf_border_index(y0 - r + p, s->height, job->border);
        const unsigned char *row;
        float *o = plane + (size_t)job->rev[p] * job->pitch;
        if (sy < 0) {
            for (q = 0; q < n; q++)
                o[q] = -job->offset;
            continue;
        }
        row = s->data + (size_t)sy * s->stride + (size_t)ch * bps;
        if (inside) {
            centred(o, row + (size_t)x0 * px * bps, wide, px, job->offset, n);
        } else {
            for (q = 0; q < n; q++)
                o[q] = cols[q] < 0 ? -job->offset
                       : wide ? (float)((const uint16_t *)(const void *)row)[(size_t)cols[q] * px] - job->offset
                              : (float)row[(size_t)cols[q] * px] - job->offset;
        }
    }
}

/* Tile t's outputs from plane (sign: the real part +1, the imaginary -1). */
JF_WIDE_SIMD static void store_tile(const fft_job *job, int t, const float *plane, float sign)
{
    jf_image *d = job->dst;
    const size_t px = (size_t)d->channels;
    const float add = job->offset_sum;
    int ch, x0, y0, u, v, nu, nv;
    if (t >= job->jobs)
        return;
    tile_at(job, t, &ch, &x0, &y0);
    nu = d->width - x0 < job->valid ? d->width - x0 : job->valid;
    nv = d->height - y0 < job->valid ? d->height - y0 : job->valid;
    for (v = 0; v < nv; v++) {
        const float *in = plane + (size_t)v * job->pitch;
        unsigned char *row = d->data + (size_t)(y0 + v) * d->stride;
        if (d->sample == JF_SAMPLE_U16 && px == 1) {
            uint16_t *o = (uint16_t *)(void *)row + x0;
            for (u = 0; u < nu; u++)
                o[u] = jf_saturate_round16(sign * in[u] + add);
        } else if (d->sample == JF_SAMPLE_U16) {
            uint16_t *o = (uint16_t *)(void *)row + (size_t)x0 * px + ch;
            for (u = 0; u < nu; u++)
                o[(size_t)u * px] = jf_saturate_round16(sign * in[u] + add);
        } else if (px == 1) {
            unsigned char *o = row + x0;
            for (u = 0; u < nu; u++)
                o[u] = jf_saturate_round(sign * in[u] + add);
        } else {
            unsigned char *o = row + (size_t)x0 * px + ch;
            for (u = 0; u < nu; u++)
                o[(size_t)u * px] = jf_saturate_round(sign * in[u] + add);
        }
    }
}

/* The forward 2-D transform of (ar, ai), rows bit-reversed, into (br, bi)
 * as [fx][fy]. */
static void forward_2d(const fft_job *job, float *ar, float *ai, float *br, float *bi)
{
    columns_fft(ar, ai, job);
    transpose_rev(br, ar, job);
    transpose_rev(bi, ai, job);
    columns_fft(br, bi, job);
}

/* (ar, ai), rows bit-reversed, = conj(z) x the weights' spectrum: the
 * inverse transform of the correlation's spectrum, conjugated. */
JF_WIDE_SIMD static void product_rev(const fft_job *job, float *restrict ar, float *restrict ai,
                                     const float *restrict zr, const float *restrict zi)
{
    const size_t n = (size_t)job->n, pitch = job->pitch;
    size_t f, g;
    for (f = 0; f < n; f++) {
        float *pr = ar + (size_t)job->rev[f] * pitch, *pi = ai + (size_t)job->rev[f] * pitch;
        const float *xr = zr + f * pitch, *xi = zi + f * pitch;
        const float *wr = job->hr + f * pitch, *wi = job->hi + f * pitch;
        for (g = 0; g < n; g++) {
            pr[g] = wr[g] * xr[g] + wi[g] * xi[g];
            pi[g] = wi[g] * xr[g] - wr[g] * xi[g];
        }
    }
}

static float *plane_of(const fft_job *job, int band, int i)
{
    return (float *)(void *)(job->bands + (size_t)band * job->band_bytes) + (size_t)i * job->plane;
}

/* Tile pairs [p0, p1): tiles 2p and 2p + 1 through one complex transform. */
static void fft_pairs(void *arg, int p0, int p1, int band)
{
    const fft_job *job = (const fft_job *)arg;
    float *ar = plane_of(job, band, 0), *ai = plane_of(job, band, 1);
    float *br = plane_of(job, band, 2), *bi = plane_of(job, band, 3);
    int *cols = (int *)(void *)plane_of(job, band, 4);
    int p;
    for (p = p0; p < p1; p++) {
        fill_tile(job, 2 * p, ar, cols);
        fill_tile(job, 2 * p + 1, ai, cols);
        forward_2d(job, ar, ai, br, bi);
        product_rev(job, ar, ai, br, bi);
        forward_2d(job, ar, ai, br, bi); /* br: the results as [y][x] */
        store_tile(job, 2 * p, br, 1.0f);
        store_tile(job, 2 * p + 1, bi, -1.0f);
    }
}

/* Spectrum (2 planes), twiddles (n), bit reversal (n); then each band's 4
 * planes and its column map (a fifth plane's room). */
static size_t scratch_bytes(int n, int bands)
{
    const size_t plane = (size_t)n * ((size_t)n + 16);
    return (2 * plane + 2 * (size_t)n) * sizeof(float) + 5 * plane * sizeof(float) * (size_t)bands;
}

/* The tile size for src (its log2; 0: none fits) and the tiles across and
 * down, each giving 2^lg - k + 1 outputs a side. */
static int tile_plan(const jf_image *src, int ksize, int *tiles_x, int *tiles_y)
{
    double cost;
    const int lg = best_log(src->width, src->height, ksize, &cost);
    if (lg) {
        const int valid = (1 << lg) - ksize + 1;
        *tiles_x = (src->width + valid - 1) / valid;
        *tiles_y = (src->height + valid - 1) / valid;
    }
    return lg;
}

size_t jf_conv_fft_bytes(const jf_image *src, int ksize, int threads)
{
    int tiles_x, tiles_y, pairs;
    const int lg = tile_plan(src, ksize, &tiles_x, &tiles_y);
    if (!lg)
        return 0;
    /* a band a worker, as jf_parallel_bands gives them, over pairs of tiles */
    pairs = (tiles_x * tiles_y * src->channels + 1) / 2;
    return scratch_bytes(1 << lg, threads < 1 ? 1 : threads < pairs ? threads : pairs);
}

jf_status jf_conv_cpu_fft(jf_context *ctx, const jf_image *src, int ksize, jf_border border,
                          const float *weights, jf_image *dst)
{
    fft_job job;
    double sum = 0.0;
    int bands, i, j, lg;
    float *ar, *ai;
    memset(&job, 0, sizeof job);
    if (!(lg = tile_plan(src, ksize, &job.tiles_x, &job.tiles_y)))
        return jf_fail(JF_ERR_ARG, "jf_conv_cpu_fft: k = %d leaves no tile size", ksize);
    job.src = src;
    job.dst = dst;
    job.k = ksize;
    job.border = border;
    job.log_n = lg;
    job.n = 1 << lg;
    job.valid = job.n - ksize + 1;
    job.tiles = job.tiles_x * job.tiles_y;
    job.jobs = job.tiles * src->channels;
    job.pitch = (size_t)job.n + 16;
    job.plane = (size_t)job.n * job.pitch;
    job.offset = src->sample == JF_SAMPLE_U16 ? 32768.0f : 128.0f;
    for (i = 0; i < ksize * ksize; i++)
        sum += weights[i];
    job.offset_sum = (float)(sum * job.offset);
    job.band_bytes = 5 * job.plane * sizeof(float);
    bands = jf_parallel_bands(ctx, (job.jobs + 1) / 2);
    if (!(job.hr = (float *)jf_scratch_get(ctx, JF_SCRATCH_BANDS, scratch_bytes(job.n, bands))))
        return JF_ERR_NOMEM;
    job.hi = job.hr + job.plane;
    job.twr = job.hi + job.plane;
    job.twi = job.twr + job.n / 2;
    job.rev = (int *)(void *)(job.twi + job.n / 2);
    job.bands = (unsigned char *)(job.rev + job.n);
    for (i = 0; i < job.n / 2; i++) {
        const double a = -2.0 * 3.14159265358979323846 * i / job.n;
        job.twr[i] = (float)cos(a);
        job.twi[i] = (float)sin(a);
    }
    for (i = 0; i < job.n; i++) {
        int r = 0, b;
        for (b = 0; b < lg; b++)
            r |= ((i >> b) & 1) << (lg - 1 - b);
        job.rev[i] = r;
    }
    /* the weights' spectrum, scaled by 1 / n^2 (the inverse's factor) */
    ar = plane_of(&job, 0, 0);
    ai = plane_of(&job, 0, 1);
    memset(ar, 0, job.plane * sizeof *ar);
    memset(ai, 0, job.plane * sizeof *ai);
    for (j = 0; j < ksize; j++)
        for (i = 0; i < ksize; i++)
            ar[(size_t)job.rev[j] * job.pitch + i] = weights[j * ksize + i];
    forward_2d(&job, ar, ai, job.hr, job.hi);
    for (i = 0; i < (int)job.plane; i++) {
        job.hr[i] /= (float)job.n * (float)job.n;
        job.hi[i] /= (float)job.n * (float)job.n;
    }
    jf_parallel_for(ctx, (job.jobs + 1) / 2, fft_pairs, &job);
    return JF_OK;
}
