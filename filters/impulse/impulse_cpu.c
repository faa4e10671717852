/*
 * Impulse-noise filters, CPU reference (definitions in jetfilter.h).
 *
 * Both grow a window around a sample only while they must, so most samples
 * cost a 3 x 3 look and nothing more.  From 5 x 5 on, a 256-bin histogram
 * of the window is kept and only the ring that each larger window adds is
 * counted into it; min, max and order statistics are read off the bins.
 * The image arrives padded by max_ksize / 2 with the border rule, so no
 * window reads outside it; each thread owns a band of rows.
 */
#include "filters/impulse/impulse.h"
#include "core/context.h"

#include <string.h>

typedef struct imp_job {
    const jf_image *src; /* padded by kmax / 2 */
    jf_image *dst;
    int kmax;
    jf_impulse_kind kind;
} imp_job;

/* The values of the ring that window k adds to window k - 2 around p, into
 * out (4 (k - 1) of them); returns how many. */
static int ring_values(const unsigned char *p, size_t stride, int ch, int k, unsigned char *out)
{
    const int h = k / 2;
    int dx, dy, n = 0;
    for (dy = -h; dy <= h; dy++) {
        const unsigned char *row = p + (ptrdiff_t)dy * (ptrdiff_t)stride;
        const int step = dy == -h || dy == h ? 1 : 2 * h;
        for (dx = -h; dx <= h; dx += step)
            out[n++] = row[(ptrdiff_t)dx * ch];
    }
    return n;
}

/* The ring that window k adds: its values into hist (when not NULL), its
 * extremes into *lo and *hi. */
static void add_ring(const unsigned char *p, size_t stride, int ch, int k, unsigned short *hist,
                     unsigned *lo, unsigned *hi)
{
    unsigned char ring[4 * (JF_IMPULSE_MAX_KSIZE - 1)];
    const int n = ring_values(p, stride, ch, k, ring);
    int i;
    for (i = 0; i < n; i++) {
        const unsigned v = ring[i];
        *lo = v < *lo ? v : *lo;
        *hi = v > *hi ? v : *hi;
        if (hist)
            hist[v]++;
    }
}

/* Histogram of the whole k x k window around p. */
static void window_hist(const unsigned char *p, size_t stride, int ch, int k, unsigned short *hist)
{
    const int h = k / 2;
    int dx, dy;
    memset(hist, 0, 256 * sizeof *hist);
    for (dy = -h; dy <= h; dy++)
        for (dx = -h; dx <= h; dx++)
            hist[p[(ptrdiff_t)dy * (ptrdiff_t)stride + (ptrdiff_t)dx * ch]]++;
}

/* The rank-r value (0-based) of a histogram. */
static unsigned hist_rank(const unsigned short *hist, int r)
{
    unsigned v = 0;
    int seen = hist[0];
    while (seen <= r)
        seen += hist[++v];
    return v;
}

/* Gonzalez and Woods' form of Hwang and Haddad's filter; see jetfilter.h. */
static unsigned adaptive_at(const unsigned char *p, size_t stride, int ch, int kmax)
{
    unsigned short hist[256];
    unsigned v[9], lo, hi, med, z = p[0];
    int i, j, n, k, ready;
    for (i = 0, n = 0; i < 3; i++)
        for (j = -1; j <= 1; j++)
            v[n++] = p[(ptrdiff_t)(i - 1) * (ptrdiff_t)stride + (ptrdiff_t)j * ch];
    for (i = 1; i < 9; i++) { /* 9 values: insertion sort */
        unsigned t = v[i];
        for (j = i; j > 0 && v[j - 1] > t; j--)
            v[j] = v[j - 1];
        v[j] = t;
    }
    if (v[0] < v[4] && v[4] < v[8])
        return v[0] < z && z < v[8] ? z : v[4];
    /* larger windows: min and max in registers; the histogram only once the
     * window holds two values (a flat region, all one value, fails every
     * level without one, and its median is that value) */
    lo = v[0];
    hi = v[8];
    med = v[4];
    ready = lo != hi;
    if (ready)
        window_hist(p, stride, ch, 3, hist);
    for (k = 5; k <= kmax; k += 2) {
        add_ring(p, stride, ch, k, ready ? hist : NULL, &lo, &hi);
        if (lo == hi) {
            med = lo;
            continue;
        }
        if (!ready) {
            window_hist(p, stride, ch, k, hist);
            ready = 1;
        }
        med = hist_rank(hist, (k * k) / 2);
        if (lo < med && med < hi)
            return lo < z && z < hi ? z : med;
    }
    return med;
}

/* Esakkirajan et al.'s decision rule with a growing window; jetfilter.h. */
static unsigned switching_at(const unsigned char *p, size_t stride, int ch, int kmax)
{
    unsigned short hist[256];
    unsigned clean[8];
    int k, i, j, n = 0, zeros = 0;
    const unsigned z = p[0];
    if (!jf_is_extreme(z))
        return z;
    /* 3 x 3 first, without a histogram: most impulses end here */
    for (i = -1; i <= 1; i++)
        for (j = -1; j <= 1; j++) {
            const unsigned v = p[(ptrdiff_t)i * (ptrdiff_t)stride + (ptrdiff_t)j * ch];
            zeros += v == 0u;
            if (!jf_is_extreme(v)) { /* insertion into the sorted clean values */
                int at = n++;
                for (; at > 0 && clean[at - 1] > v; at--)
                    clean[at] = clean[at - 1];
                clean[at] = v;
            }
        }
    if (n > 0)
        return jf_even_median(clean[(n - 1) / 2], clean[n / 2]);
    /* larger windows: count the clean samples and the 0s ring by ring
     * (a saturated region needs nothing more), and build a
     * histogram of the clean ones only for the window that has some */
    for (k = 5; k <= kmax; k += 2) {
        const int h = k / 2;
        unsigned char ring[4 * (JF_IMPULSE_MAX_KSIZE - 1)];
        const int m = ring_values(p, stride, ch, k, ring);
        int dx, dy;
        for (i = 0; i < m; i++) {
            zeros += ring[i] == 0u;
            n += !jf_is_extreme(ring[i]);
        }
        if (n > 0) {
            memset(hist, 0, sizeof hist);
            for (dy = -h; dy <= h; dy++)
                for (dx = -h; dx <= h; dx++) {
                    const unsigned v = p[(ptrdiff_t)dy * (ptrdiff_t)stride + (ptrdiff_t)dx * ch];
                    if (!jf_is_extreme(v))
                        hist[v]++;
                }
            return jf_even_median(hist_rank(hist, (n - 1) / 2), hist_rank(hist, n / 2));
        }
    }
    /* none clean in the largest window: all of it is 0 or 255, and the
     * value that fills more than half of it wins (k * k is odd: no tie) */
    return 2 * zeros > kmax * kmax ? 0u : 255u;
}

static void impulse_rows(void *arg, int y0, int y1, int band)
{
    const imp_job *job = (const imp_job *)arg;
    const jf_image *s = job->src;
    const int ch = s->channels, r = job->kmax / 2, w = job->dst->width;
    int x, y, c;
    (void)band;
    for (y = y0; y < y1; y++) {
        const unsigned char *row = s->data + (size_t)(y + r) * s->stride + (size_t)r * ch;
        unsigned char *d = job->dst->data + (size_t)y * job->dst->stride;
        for (x = 0; x < w; x++)
            for (c = 0; c < ch; c++) {
                const unsigned char *p = row + (size_t)x * ch + c;
                d[(size_t)x * ch + c] = (unsigned char)(job->kind == JF_IMPULSE_ADAPTIVE
                                                            ? adaptive_at(p, s->stride, ch, job->kmax)
                                                            : switching_at(p, s->stride, ch, job->kmax));
            }
    }
}

jf_status jf_impulse_cpu(jf_context *ctx, jf_impulse_kind kind, const jf_image *padded,
                         int max_ksize, jf_image *dst)
{
    imp_job job;
    job.src = padded;
    job.dst = dst;
    job.kmax = max_ksize;
    job.kind = kind;
    jf_parallel_for(ctx, dst->height, impulse_rows, &job);
    return JF_OK;
}

/* ---- the smoothing pass ------------------------------------------------------- */

typedef struct refine_job {
    const jf_image *src, *first;
    jf_image *dst;
} refine_job;

static void refine_rows(void *arg, int y0, int y1, int band)
{
    const refine_job *job = (const refine_job *)arg;
    const jf_image *f = job->first;
    const int w = f->width, h = f->height, ch = f->channels;
    int x, y, c;
    (void)band;
    for (y = y0; y < y1; y++) {
        const unsigned char *s = job->src->data + (size_t)y * job->src->stride;
        unsigned char *d = job->dst->data + (size_t)y * job->dst->stride;
        const int ya = y > 0 ? y - 1 : 0, yb = y < h - 1 ? y + 1 : h - 1;
        for (x = 0; x < w; x++) {
            const int xa = x > 0 ? x - 1 : 0, xb = x < w - 1 ? x + 1 : w - 1;
            const unsigned n = (unsigned)((yb - ya + 1) * (xb - xa + 1));
            for (c = 0; c < ch; c++) {
                unsigned sum = 0;
                int yy, xx;
                if (!jf_is_extreme(s[(size_t)x * ch + c])) {
                    d[(size_t)x * ch + c] = f->data[(size_t)y * f->stride + (size_t)x * ch + c];
                    continue;
                }
                for (yy = ya; yy <= yb; yy++)
                    for (xx = xa; xx <= xb; xx++)
                        sum += f->data[(size_t)yy * f->stride + (size_t)xx * ch + c];
                d[(size_t)x * ch + c] = (unsigned char)jf_round_mean(sum, n);
            }
        }
    }
}

jf_status jf_impulse_refine_cpu(jf_context *ctx, const jf_image *src, const jf_image *first,
                                jf_image *dst)
{
    refine_job job;
    job.src = src;
    job.first = first;
    job.dst = dst;
    jf_parallel_for(ctx, dst->height, refine_rows, &job);
    return JF_OK;
}

/* ---- the density estimate ------------------------------------------------------ */

typedef struct count_job {
    const jf_image *img;
    uint64_t *rows; /* two per row: 0s, then 255s */
} count_job;

static void count_rows(void *arg, int y0, int y1, int band)
{
    const count_job *job = (const count_job *)arg;
    const jf_image *im = job->img;
    const int w = im->width, h = im->height, ch = im->channels;
    int x, y, c, dx, dy;
    (void)band;
    for (y = y0; y < y1; y++) {
        uint64_t n[2] = {0, 0};
        for (x = 0; x < w; x++)
            for (c = 0; c < ch; c++) {
                const unsigned v = im->data[(size_t)y * im->stride + (size_t)x * ch + c];
                int lone = 0;
                if (!jf_is_extreme(v))
                    continue;
                for (dy = -1; dy <= 1 && !lone; dy++)
                    for (dx = -1; dx <= 1 && !lone; dx++) {
                        const int yy = y + dy < 0 ? 0 : y + dy >= h ? h - 1 : y + dy;
                        const int xx = x + dx < 0 ? 0 : x + dx >= w ? w - 1 : x + dx;
                        lone = im->data[(size_t)yy * im->stride + (size_t)xx * ch + c] != v;
                    }
                n[v != 0] += (uint64_t)lone;
            }
        job->rows[2 * y] = n[0];
        job->rows[2 * y + 1] = n[1];
    }
}

jf_status jf_impulse_count_cpu(jf_context *ctx, const jf_image *img, uint64_t counts[2])
{
    count_job job;
    int y;
    job.img = img;
    job.rows = (uint64_t *)jf_scratch_get(ctx, JF_SCRATCH_ROWS, 2 * sizeof(uint64_t) * (size_t)img->height);
    if (!job.rows)
        return JF_ERR_NOMEM;
    jf_parallel_for(ctx, img->height, count_rows, &job);
    counts[0] = counts[1] = 0;
    for (y = 0; y < img->height; y++) {
        counts[0] += job.rows[2 * y];
        counts[1] += job.rows[2 * y + 1];
    }
    return JF_OK;
}

/* ---- whether the smoothing pass helps an image ---- */

#define HELPS_SAMPLES 20000
/* the smoothing pass must win by this much: a near tie is noise of the test */
#define HELPS_MARGIN 0.97

static unsigned sample_at(const jf_image *img, int x, int y, int c)
{
    return img->data[(size_t)y * img->stride + (size_t)x * (size_t)img->channels + (size_t)c];
}

/* The switching median's 3 x 3 value at (x, y): the median of the window's
 * samples that are not extremes, leaving out (x, y) and the hidden (hx, hy);
 * -1 when none is left. */
static int clean_median3(const jf_image *img, int x, int y, int c, int hx, int hy)
{
    unsigned v[8];
    int n = 0, dx, dy, i;
    for (dy = -1; dy <= 1; dy++)
        for (dx = -1; dx <= 1; dx++) {
            unsigned s;
            if ((dx == 0 && dy == 0) || (x + dx == hx && y + dy == hy))
                continue;
            s = sample_at(img, x + dx, y + dy, c);
            if (jf_is_extreme(s))
                continue;
            for (i = n++; i > 0 && v[i - 1] > s; i--) /* insertion: eight at most */
                v[i] = v[i - 1];
            v[i] = s;
        }
    return n ? (int)jf_even_median(v[(n - 1) / 2], v[n / 2]) : -1;
}

int jf_impulse_refine_helps(const jf_image *img)
{
    const int w = img->width, h = img->height, ch = img->channels;
    const long long total = (long long)(w - 4) * (h - 4) * ch;
    long long i, step;
    double e_plain = 0.0, e_smooth = 0.0;
    if (w < 5 || h < 5)
        return 0;
    step = total / HELPS_SAMPLES + 1;
    if (ch > 1 && step % ch == 0) /* every channel gets its turn */
        step++;
    for (i = step / 2; i < total; i += step) {
        const int c = (int)(i % ch);
        const long long pix = i / ch;
        const int x = 2 + (int)(pix % (w - 4)), y = 2 + (int)(pix / (w - 4));
        const int v = (int)sample_at(img, x, y, c);
        int plain, smooth, sum, dx, dy, ok = 1;
        if (jf_is_extreme((unsigned)v) || (plain = clean_median3(img, x, y, c, x, y)) < 0)
            continue;
        /* the smoothing pass: the mean of the first pass over the 3 x 3,
         * each impulse there estimated without (x, y)'s own value */
        sum = plain;
        for (dy = -1; dy <= 1 && ok; dy++)
            for (dx = -1; dx <= 1 && ok; dx++) {
                int q;
                if (dx == 0 && dy == 0)
                    continue;
                q = (int)sample_at(img, x + dx, y + dy, c);
                if (jf_is_extreme((unsigned)q) && (q = clean_median3(img, x + dx, y + dy, c, x, y)) < 0)
                    ok = 0;
                sum += q;
            }
        if (!ok)
            continue;
        smooth = (int)jf_round_mean((unsigned)sum, 9);
        e_plain += (double)(plain - v) * (plain - v);
        e_smooth += (double)(smooth - v) * (smooth - v);
    }
    return e_smooth < HELPS_MARGIN * e_plain;
}
