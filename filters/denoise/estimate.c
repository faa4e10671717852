/*
 * Noise estimation with no reference (jf_estimate_noise, filters.h).
 *
 * The Gaussian level: the covariance of 7x7 patches has the noise variance
 * as its smallest eigenvalues; Chen, Zhu and Heng (ICCV 2015) take the
 * variance where the mean of the smallest eigenvalues equals their median.
 * Texture leaks into those eigenvalues, so (after Liu, Tanaka and Okutomi,
 * 2013) only patches whose gradient energy noise of the current level could
 * give are kept, and the estimate is iterated.  Patches with a clipped
 * sample are left out, and the truncation of the noise in those kept
 * (every sample inside 0..max) is corrected for, which matters at sigma 50.
 *
 * The Poisson-Gaussian model (variance = a * value + b, Foi et al. 2008):
 * the kept patches binned by their mean, each bin's variance measured in
 * the noise subspace found above (so a bin needs few patches), then a
 * weighted least-squares line through them.
 */
#include "filters/denoise/denoise.h"
#include "filters/filters.h"
#include "core/context.h"
#include "core/errors.h"
#include "core/image.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define R 7                 /* patch side */
#define D (R * R)           /* its dimension */
#define MAX_CANDIDATES 20000
#define BINS 10
#define QUANTILE_Z 3.0902   /* the 0.999 quantile of N(0, 1) */

typedef struct patch_set {
    const float *luma;      /* the image, one plane */
    int width, height;
    int n;                  /* candidates */
    int *x, *y;
    float *energy;          /* gradient energy */
    float *mean;            /* of the plane: where its clipping is judged */
    unsigned char *clipped;
    float top;              /* the largest level */
} patch_set;

/* ---- small linear algebra ---------------------------------------------------- */

/* Eigenvalues (descending) and eigenvectors (columns of v, same order) of
 * the symmetric D x D matrix a (destroyed): cyclic Jacobi. */
static void eigen_sym(double *a, double *lambda, double *v)
{
    int i, j, k, sweep;
    int order[D];
    double tmp[D * D];
    memset(v, 0, sizeof(double) * D * D);
    for (i = 0; i < D; i++)
        v[i * D + i] = 1.0;
    for (sweep = 0; sweep < 60; sweep++) {
        double off = 0.0, diag = 0.0;
        for (i = 0; i < D; i++) {
            diag += a[i * D + i] * a[i * D + i];
            for (j = i + 1; j < D; j++)
                off += a[i * D + j] * a[i * D + j];
        }
        if (off <= 1e-20 * diag || off < 1e-30)
            break;
        for (i = 0; i < D; i++)
            for (j = i + 1; j < D; j++) {
                double aij = a[i * D + j], theta, t, c, s;
                if (fabs(aij) < 1e-300)
                    continue;
                theta = (a[j * D + j] - a[i * D + i]) / (2.0 * aij);
                t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
                c = 1.0 / sqrt(t * t + 1.0);
                s = t * c;
                for (k = 0; k < D; k++) { /* rows and columns i, j */
                    double aki = a[k * D + i], akj = a[k * D + j];
                    a[k * D + i] = c * aki - s * akj;
                    a[k * D + j] = s * aki + c * akj;
                }
                for (k = 0; k < D; k++) {
                    double aik = a[i * D + k], ajk = a[j * D + k];
                    a[i * D + k] = c * aik - s * ajk;
                    a[j * D + k] = s * aik + c * ajk;
                }
                for (k = 0; k < D; k++) {
                    double vki = v[k * D + i], vkj = v[k * D + j];
                    v[k * D + i] = c * vki - s * vkj;
                    v[k * D + j] = s * vki + c * vkj;
                }
            }
    }
    for (i = 0; i < D; i++)
        order[i] = i;
    for (i = 1; i < D; i++) /* descending eigenvalues */
        for (j = i; j > 0 && a[order[j] * D + order[j]] > a[order[j - 1] * D + order[j - 1]]; j--) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    memcpy(tmp, v, sizeof tmp);
    for (i = 0; i < D; i++) {
        lambda[i] = a[order[i] * D + order[i]];
        for (k = 0; k < D; k++)
            v[k * D + i] = tmp[k * D + order[i]];
    }
}

/* Where the noise subspace starts: the first i at which as many of
 * lambda[i..] lie above their mean as below it (Chen et al.); the mean
 * there is the noise variance. */
static int noise_start(const double *lambda, double *variance)
{
    int i, j;
    for (i = 0; i < D; i++) {
        double mean = 0.0;
        int above = 0, below = 0;
        for (j = i; j < D; j++)
            mean += lambda[j];
        mean /= D - i;
        for (j = i; j < D; j++) {
            above += lambda[j] > mean;
            below += lambda[j] < mean;
        }
        if (above == below) {
            *variance = mean > 0.0 ? mean : 0.0;
            return i;
        }
    }
    *variance = lambda[D - 1] > 0.0 ? lambda[D - 1] : 0.0;
    return D - 1;
}

/* Covariance of the kept patches into cov (D x D); their number.  Sums in
 * float over runs of 64 patches centred on the first one's mean (short
 * enough to keep their digits, and a row loop that vectorises), in double
 * across runs. */
JF_WIDE_SIMD
static int covariance(const patch_set *ps, const unsigned char *keep, double *cov)
{
    double sum[D], outer[D * D];
    float fsum[D], fouter[D * D], p[D], centre = 0.0f;
    int i, j, k, n = 0, run = 0, centred = 0;
    memset(sum, 0, sizeof sum);
    memset(outer, 0, sizeof outer);
    memset(fsum, 0, sizeof fsum);
    memset(fouter, 0, sizeof fouter);
    for (k = 0; k < ps->n; k++) {
        if (!keep[k])
            continue;
        if (!centred) {
            centre = ps->mean[k];
            centred = 1;
        }
        for (j = 0; j < R; j++) {
            const float *row = ps->luma + (size_t)(ps->y[k] + j) * ps->width + ps->x[k];
            for (i = 0; i < R; i++)
                p[j * R + i] = row[i] - centre;
        }
        for (i = 0; i < D; i++) {
            const float pi = p[i];
            float *o = fouter + i * D;
            fsum[i] += pi;
            for (j = 0; j < D; j++)
                o[j] += pi * p[j];
        }
        n++;
        if (++run == 64) {
            for (i = 0; i < D; i++)
                sum[i] += fsum[i];
            for (i = 0; i < D * D; i++)
                outer[i] += fouter[i];
            memset(fsum, 0, sizeof fsum);
            memset(fouter, 0, sizeof fouter);
            run = 0;
        }
    }
    for (i = 0; i < D; i++)
        sum[i] += fsum[i];
    for (i = 0; i < D * D; i++)
        outer[i] += fouter[i];
    if (n < 2)
        return n;
    for (i = 0; i < D; i++)
        for (j = i; j < D; j++) {
            const double c = (outer[i * D + j] - sum[i] * sum[j] / n) / (n - 1);
            cov[i * D + j] = cov[j * D + i] = c;
        }
    return n;
}

/* ---- clipping ---------------------------------------------------------------- */

static double phi(double x) { return 0.3989422804 * exp(-0.5 * x * x); }
static double cdf(double x) { return 0.5 * erfc(-x * 0.7071067812); }

/* Variance of N(0, sigma^2) around `mean`, cut to 0..top (each sample of a
 * kept patch is inside), over sigma^2. */
static double truncation(double mean, double sigma, double top)
{
    const double a = (-0.5 - mean) / sigma, b = (top + 0.5 - mean) / sigma;
    const double z = cdf(b) - cdf(a), pa = phi(a), pb = phi(b);
    double f;
    if (z < 1e-12)
        return 1.0;
    f = 1.0 + (a * pa - b * pb) / z - ((pa - pb) / z) * ((pa - pb) / z);
    return f > 0.05 ? f : 0.05;
}

/* The level whose truncated variance over these patches' means is `raw`. */
static double untruncated(const patch_set *ps, const unsigned char *keep, double raw)
{
    double s = raw;
    int it, k;
    if (raw <= 0.0)
        return 0.0;
    for (it = 0; it < 4; it++) {
        double f = 0.0;
        int n = 0;
        for (k = 0; k < ps->n; k += 1 + ps->n / 4000) /* a sample of them is enough */
            if (keep[k]) {
                f += truncation(ps->mean[k], s, ps->top);
                n++;
            }
        if (!n)
            break;
        s = raw / sqrt(f / n);
    }
    return s;
}

/* ---- the patches ------------------------------------------------------------- */

static void free_set(patch_set *ps)
{
    free(ps->x);
    free(ps->y);
    free(ps->energy);
    free(ps->mean);
    free(ps->clipped);
}

/* Candidates on a grid of at most MAX_CANDIDATES patches; clip: a plane
 * of the same size, non-zero where a sample touches 0 or top. */
static float sample_of(const jf_image *img, int x, int y, int c)
{
    const unsigned char *row = img->data + (size_t)y * img->stride;
    return img->sample == JF_SAMPLE_U16 ? (float)((const uint16_t *)(const void *)row)[x * img->channels + c]
                                        : (float)row[x * img->channels + c];
}

static jf_status make_set(const float *luma, const unsigned char *clip, int w, int h, float top,
                          patch_set *ps)
{
    const int nx0 = w - R + 1, ny0 = h - R + 1;
    int step, i, j, k = 0;
    memset(ps, 0, sizeof *ps);
    ps->luma = luma;
    ps->width = w;
    ps->height = h;
    ps->top = top;
    if (nx0 < 1 || ny0 < 1)
        return JF_OK;
    step = (int)ceil(sqrt((double)nx0 * ny0 / MAX_CANDIDATES));
    step = step < 1 ? 1 : step;
    ps->n = ((nx0 + step - 1) / step) * ((ny0 + step - 1) / step);
    ps->x = (int *)malloc(sizeof(int) * (size_t)ps->n);
    ps->y = (int *)malloc(sizeof(int) * (size_t)ps->n);
    ps->energy = (float *)malloc(sizeof(float) * (size_t)ps->n);
    ps->mean = (float *)malloc(sizeof(float) * (size_t)ps->n);
    ps->clipped = (unsigned char *)malloc((size_t)ps->n);
    if (!ps->x || !ps->y || !ps->energy || !ps->mean || !ps->clipped) {
        free_set(ps);
        return jf_fail(JF_ERR_NOMEM, "jf_estimate_noise: out of memory");
    }
    for (j = 0; j < ny0; j += step)
        for (i = 0; i < nx0; i += step) {
            double e = 0.0, m = 0.0;
            int c = 0, u, v;
            for (v = 0; v < R; v++) {
                const float *row = luma + (size_t)(j + v) * w + i;
                const float *next = row + w;
                for (u = 0; u < R; u++) {
                    m += row[u];
                    c |= clip[(size_t)(j + v) * w + i + u];
                    if (u + 1 < R)
                        e += (double)(row[u + 1] - row[u]) * (row[u + 1] - row[u]);
                    if (v + 1 < R)
                        e += (double)(next[u] - row[u]) * (next[u] - row[u]);
                }
            }
            ps->x[k] = i;
            ps->y[k] = j;
            ps->energy[k] = (float)e;
            ps->mean[k] = (float)(m / D);
            ps->clipped[k] = (unsigned char)(c != 0);
            k++;
        }
    ps->n = k;
    return JF_OK;
}

/* The gradient energy pure noise of variance `var` stays under in 999 of
 * 1000 patches: 2 var times the 0.999 quantile of chi-squared with the
 * number of differences as degrees of freedom (Wilson-Hilferty). */
static double energy_limit(double var)
{
    const double n = 2.0 * R * (R - 1), t = 2.0 / (9.0 * n);
    const double q = n * pow(1.0 - t + QUANTILE_Z * sqrt(t), 3.0);
    return 2.0 * var * q;
}

/* keep[k]: unclipped and within the energy the model allows; when fewer
 * than a few per dimension pass, the least textured unclipped ones. */
static int select_weak(const patch_set *ps, double a, double b, unsigned char *keep, int fallback)
{
    int k, n = 0, unclipped = 0;
    for (k = 0; k < ps->n; k++) {
        const double var = a * ps->mean[k] + b;
        keep[k] = !ps->clipped[k] && ps->energy[k] < energy_limit(var > 1e-6 ? var : 1e-6);
        n += keep[k];
        unclipped += !ps->clipped[k];
    }
    if (n < 4 * D && fallback && unclipped > 0) { /* the lowest energies: a threshold by bisection */
        float lo = 0.0f, hi = 0.0f;
        const int want = unclipped / 20 > 4 * D ? unclipped / 20 : (unclipped < 4 * D ? unclipped : 4 * D);
        int it;
        for (k = 0; k < ps->n; k++)
            hi = ps->energy[k] > hi ? ps->energy[k] : hi;
        for (it = 0; it < 40; it++) {
            const float mid = 0.5f * (lo + hi);
            int c = 0;
            for (k = 0; k < ps->n; k++)
                c += !ps->clipped[k] && ps->energy[k] <= mid;
            if (c >= want)
                hi = mid;
            else
                lo = mid;
        }
        for (n = 0, k = 0; k < ps->n; k++) {
            keep[k] = !ps->clipped[k] && ps->energy[k] <= hi;
            n += keep[k];
        }
    }
    return n;
}

/* sigma of the kept patches (and the noise subspace: its first column and
 * the eigenvectors in v); 0 when there are too few. */
static double level_of(const patch_set *ps, const unsigned char *keep, double *v, int *start)
{
    double cov[D * D], lambda[D], var;
    if (covariance(ps, keep, cov) < 2 * D)
        return 0.0;
    eigen_sym(cov, lambda, v);
    *start = noise_start(lambda, &var);
    return untruncated(ps, keep, sqrt(var));
}

static int cmp_float(const void *a, const void *b)
{
    const float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* var = a mean + b through the bins of kept patches, measured in the noise
 * subspace (columns start.. of v); 0 and the line, or -1. */
JF_WIDE_SIMD
static int fit_line(const patch_set *ps, const unsigned char *keep, const double *v, int start,
                    double *a, double *b)
{
    const int m = D - start;
    float lo = 0.0f, hi = 0.0f;
    double bmean[BINS][D], acc[BINS], mu[BINS], xs[BINS], vs[BINS], ws[BINS];
    float edges[BINS + 1];
    double sw = 0, swx = 0, swy = 0, swxx = 0, swxy = 0;
    int count[BINS], n = 0, k, i, j, u, bins = 0, first = 1;
    unsigned char *bin = (unsigned char *)malloc((size_t)ps->n);
    float vf[D * D];
    if (!bin || m < 1) {
        free(bin);
        return -1;
    }
    for (k = 0; k < ps->n; k++)
        if (keep[k]) {
            lo = first || ps->mean[k] < lo ? ps->mean[k] : lo;
            hi = first || ps->mean[k] > hi ? ps->mean[k] : hi;
            first = 0;
            n++;
        }
    if (n < 4 * BINS || hi <= lo) {
        free(bin);
        return -1;
    }
    /* bins of equal counts: edges at quantiles of the kept means */
    {
        float *sorted = (float *)malloc(sizeof(float) * (size_t)n);
        int q = 0;
        if (!sorted) {
            free(bin);
            return -1;
        }
        for (k = 0; k < ps->n; k++)
            if (keep[k])
                sorted[q++] = ps->mean[k];
        qsort(sorted, (size_t)n, sizeof(float), cmp_float);
        for (i = 1; i < BINS; i++)
            edges[i] = sorted[(size_t)n * i / BINS];
        edges[0] = lo - 1.0f;
        edges[BINS] = hi + 1.0f;
        free(sorted);
    }
    memset(bmean, 0, sizeof bmean);
    memset(acc, 0, sizeof acc);
    memset(mu, 0, sizeof mu);
    memset(count, 0, sizeof count);
    for (k = 0; k < ps->n; k++) {
        int t;
        if (!keep[k]) {
            bin[k] = 255;
            continue;
        }
        for (t = 0; t < BINS - 1 && ps->mean[k] >= edges[t + 1]; t++)
            ;
        bin[k] = (unsigned char)t;
        count[t]++;
        mu[t] += ps->mean[k];
        for (j = 0; j < R; j++)
            for (u = 0; u < R; u++)
                bmean[t][j * R + u] += ps->luma[(size_t)(ps->y[k] + j) * ps->width + ps->x[k] + u];
    }
    for (i = 0; i < BINS; i++)
        for (j = 0; count[i] && j < D; j++)
            bmean[i][j] /= count[i];
    for (j = 0; j < D; j++) /* row j: the noise eigenvectors' j-th entries */
        for (u = 0; u < m; u++)
            vf[j * D + u] = (float)v[j * D + start + u];
    for (k = 0; k < ps->n; k++) {
        float p[D];
        double z2 = 0.0;
        if (bin[k] == 255 || count[bin[k]] < 30)
            continue;
        for (j = 0; j < R; j++)
            for (u = 0; u < R; u++)
                p[j * R + u] = ps->luma[(size_t)(ps->y[k] + j) * ps->width + ps->x[k] + u] -
                               (float)bmean[bin[k]][j * R + u];
        {   /* z = p V over the noise subspace: the inner loop along V's rows vectorises */
            float z[D];
            for (u = 0; u < m; u++)
                z[u] = 0.0f;
            for (j = 0; j < D; j++) {
                const float pj = p[j], *row = vf + j * D;
                for (u = 0; u < m; u++)
                    z[u] += pj * row[u];
            }
            for (u = 0; u < m; u++)
                z2 += (double)z[u] * z[u];
        }
        acc[bin[k]] += z2;
    }
    for (i = 0; i < BINS; i++) {
        unsigned char *inbin;
        double raw, s;
        if (count[i] < 30)
            continue;
        if (!(inbin = (unsigned char *)malloc((size_t)ps->n))) {
            free(bin);
            return -1;
        }
        for (k = 0; k < ps->n; k++)
            inbin[k] = bin[k] == i;
        raw = sqrt(acc[i] / ((double)count[i] * m) * count[i] / (count[i] - 1.0));
        s = untruncated(ps, inbin, raw);
        free(inbin);
        xs[bins] = mu[i] / count[i];
        vs[bins] = s * s;
        ws[bins] = count[i] / ((s * s + 1e-6) * (s * s + 1e-6)); /* a variance's precision */
        bins++;
    }
    free(bin);
    if (bins < 2)
        return -1;
    for (i = 0; i < bins; i++) {
        sw += ws[i];
        swx += ws[i] * xs[i];
        swy += ws[i] * vs[i];
        swxx += ws[i] * xs[i] * xs[i];
        swxy += ws[i] * xs[i] * vs[i];
    }
    {
        const double det = sw * swxx - swx * swx;
        *a = det > 0 ? (sw * swxy - swx * swy) / det : 0.0;
        *b = det > 0 ? (swy - *a * swx) / sw : swy / sw;
    }
    if (*a < 0.0) { /* no growth with the signal: a constant */
        *a = 0.0;
        *b = swy / sw;
    } else if (*b < 0.0) { /* through the origin */
        *a = swxx > 0 ? swxy / swxx : 0.0;
        *b = 0.0;
    }
    return 0;
}

/* ---- the estimate ------------------------------------------------------------ */

/* Channel `c` as floats (the plane the patches are cut from), and
 * where a sample is clipped. */
static jf_status channel_of(const jf_image *img, int c, float **luma, unsigned char **clip, float *top)
{
    const int w = img->width, h = img->height, ch = img->channels;
    const unsigned maxv = jf_sample_max(img->sample);
    int x, y;
    *top = (float)maxv;
    *luma = (float *)malloc(sizeof(float) * (size_t)w * h);
    *clip = (unsigned char *)malloc((size_t)w * h);
    if (!*luma || !*clip) {
        free(*luma);
        free(*clip);
        return jf_fail(JF_ERR_NOMEM, "jf_estimate_noise: out of memory");
    }
    for (y = 0; y < h; y++) {
        const unsigned char *row = img->data + (size_t)y * img->stride;
        for (x = 0; x < w; x++) {
            const unsigned v = img->sample == JF_SAMPLE_U16
                                   ? ((const uint16_t *)(const void *)row)[x * ch + c]
                                   : row[x * ch + c];
            (*luma)[(size_t)y * w + x] = (float)v;
            (*clip)[(size_t)y * w + x] = (unsigned char)(v == 0 || v == maxv);
        }
    }
    return JF_OK;
}

/* The noise of channel `c`. */
static jf_status estimate_plane(const jf_image *img, int c, jf_noise_estimate *out)
{
    patch_set ps;
    float *luma = NULL, top;
    unsigned char *clip = NULL, *keep = NULL;
    double v[D * D], sigma = 0.0, a = 0.0, b = 0.0;
    int start = D - 1, it, kept = 0;
    jf_status st;
    memset(out, 0, sizeof *out);
    out->size = sizeof *out;
    if ((st = channel_of(img, c, &luma, &clip, &top)) != JF_OK)
        return st;
    if ((st = make_set(luma, clip, img->width, img->height, top, &ps)) != JF_OK)
        goto done;
    if (ps.n < 2 * D) /* too small to say: no measurable noise */
        goto done;
    if (!(keep = (unsigned char *)malloc((size_t)ps.n))) {
        st = jf_fail(JF_ERR_NOMEM, "jf_estimate_noise: out of memory");
        goto done;
    }
    for (it = 0; it < ps.n; it++)
        keep[it] = !ps.clipped[it];
    sigma = level_of(&ps, keep, v, &start);
    for (it = 0; it < 5 && sigma > 0.0; it++) {
        double next;
        kept = select_weak(&ps, 0.0, sigma * sigma, keep, 0);
        if (kept < 4 * D) { /* texture everywhere: the least textured few would
                               read low; all patches' level is the better guess */
            kept = ps.n;
            break;
        }
        next = level_of(&ps, keep, v, &start);
        if (next <= 0.0)
            break;
        if (fabs(next - sigma) < 0.005 * sigma) {
            sigma = next;
            break;
        }
        sigma = next;
    }
    /* the signal-dependent model, from the same kind of patches */
    a = 0.0;
    b = sigma * sigma;
    for (it = 0; it < 2 && sigma > 0.0; it++) {
        double na, nb;
        select_weak(&ps, a, b, keep, 1);
        if (level_of(&ps, keep, v, &start) <= 0.0 || fit_line(&ps, keep, v, start, &na, &nb) != 0)
            break;
        a = na;
        b = nb;
    }
    out->sigma = sigma;
    out->patches = kept;
    out->poisson_a = a;
    out->poisson_b = b;
    {   /* the noise at a bright level against a dark one, where there is noise */
        const double lo = a * 0.15 * top + b, hi = a * 0.8 * top + b;
        out->signal_dependent = a > 0.0 && lo > 0.0 && hi / lo > 1.69 && /* 30% in sigma */
                                sigma * 255.0 / top >= 1.0;
    }
done:
    free(keep);
    free(luma);
    free(clip);
    free_set(&ps);
    return st;
}

/* The Gaussian level where the patches could not tell (a photo mostly
 * clipped, or too small for 7x7 patches): the median absolute value of the
 * finest diagonal Haar band over 2x2 blocks with no clipped sample, over
 * 0.6745 (Donoho and Johnstone 1994), corrected for the clipping of those
 * blocks as the patches are; texture reads as noise here. */
static double haar_level(const jf_image *img, int c)
{
    const unsigned top = jf_sample_max(img->sample);
    const int w = img->width / 2, h = img->height / 2;
    float *v = (float *)malloc(sizeof(float) * ((size_t)w * h + 1) * 2), *m;
    size_t n = 0, i;
    int x, y, it;
    double raw = 0.0, s;
    if (!v)
        return 0.0;
    m = v + (size_t)w * h + 1;
    for (y = 0; y < h; y++)
        for (x = 0; x < w; x++) {
            const float a = sample_of(img, 2 * x, 2 * y, c), b = sample_of(img, 2 * x + 1, 2 * y, c);
            const float d = sample_of(img, 2 * x, 2 * y + 1, c), e = sample_of(img, 2 * x + 1, 2 * y + 1, c);
            if (a <= 0 || b <= 0 || d <= 0 || e <= 0 || a >= top || b >= top || d >= top || e >= top)
                continue;
            m[n] = (a + b + d + e) * 0.25f;
            v[n++] = fabsf(a - b - d + e) * 0.5f;
        }
    if (n <= 16) {
        free(v);
        return 0.0;
    }
    {
        float *sorted = (float *)malloc(sizeof(float) * n);
        if (sorted) {
            memcpy(sorted, v, sizeof(float) * n);
            qsort(sorted, n, sizeof(float), cmp_float);
            raw = sorted[n / 2] / 0.6745;
            free(sorted);
        }
    }
    for (s = raw, it = 0; it < 4 && raw > 0.0; it++) {
        double f = 0.0;
        size_t k = 0;
        for (i = 0; i < n; i += 1 + n / 4000, k++)
            f += truncation(m[i], s, top);
        s = raw / sqrt(f / (double)k);
    }
    free(v);
    return s;
}

/* Salt and pepper, told from clipped Gaussian noise: a sample at 0 (the
 * top) counts as pepper (salt) where the mean of its 3x3 neighbours that
 * are not extremes lies further than 40 levels and 3 sigma from it; each
 * kind's rate is its count over the samples where it could have been
 * seen (pepper is invisible on black), and the density twice the rarer
 * rate (natural saturation is one-sided). */
static double impulse_outliers(const jf_image *img, double sigma)
{
    const unsigned top = jf_sample_max(img->sample);
    const float gap = (float)(40.0 * top / 255.0 + 3.0 * sigma);
    uint64_t salt = 0, pepper = 0, can_salt = 0, can_pepper = 0;
    int x, y, c, u, v;
    for (y = 0; y < img->height; y++)
        for (x = 0; x < img->width; x++)
            for (c = 0; c < (img->channels >= 3 ? 3 : 1); c++) {
                const float p = sample_of(img, x, y, c);
                float sum = 0.0f, m;
                int n = 0;
                for (v = -1; v <= 1; v++)
                    for (u = -1; u <= 1; u++) {
                        const int sx = x + u, sy = y + v;
                        float q;
                        if ((!u && !v) || sx < 0 || sy < 0 || sx >= img->width || sy >= img->height)
                            continue;
                        q = sample_of(img, sx, sy, c);
                        if (q > 0 && q < top) {
                            sum += q;
                            n++;
                        }
                    }
                if (!n)
                    continue;
                m = sum / n;
                if (m > gap) {
                    can_pepper++;
                    pepper += p <= 0;
                }
                if (m < top - gap) {
                    can_salt++;
                    salt += p >= top;
                }
            }
    if (!can_salt || !can_pepper)
        return 0.0;
    {
        const double rs = (double)salt / can_salt, rp = (double)pepper / can_pepper;
        return 2.0 * (rs < rp ? rs : rp);
    }
}

jf_status jf_estimate_host(jf_context *ctx, const jf_image *img, jf_noise_estimate *out)
{
    /* a colour image by its middle channel: its noise is each channel's
     * (independent, of one level), and it has no mixture of clipped
     * channels (measured: luma read 12% low at sigma 30 on strong colours) */
    jf_status st = estimate_plane(img, img->channels >= 3 ? 1 : 0, out);
    (void)ctx;
    if (st != JF_OK)
        return st;
    if (out->patches < 4 * D) { /* the patches could not tell */
        out->sigma = haar_level(img, img->channels >= 3 ? 1 : 0);
        out->poisson_a = 0.0;
        out->poisson_b = out->sigma * out->sigma;
        out->signal_dependent = 0;
    }
    out->impulse_density = impulse_outliers(img, out->sigma);
    return JF_OK;
}
