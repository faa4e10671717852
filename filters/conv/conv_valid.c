/* The convolution that leaves samples out (depth holes, NaN): each output
 * is the weighted mean of its window's valid samples,
 *   out = sum(w v [valid]) / sum(w [valid]),
 * the sample itself where the window holds none (normalised convolution).
 * Sums in double on the CPU; rank-1 weights a column pass then a row pass
 * for each output row, others the whole window. */
#include "filters/conv/conv.h"
#include "filters/filters.h"
#include "core/context.h"
#include "core/errors.h"
#include "core/image.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct valid_job {
    const jf_image *src;
    jf_image *dst;
    int k, ignore;
    jf_border border;
    const float *weights, *col, *row; /* col, row: NULL unless rank 1 */
    double value;
    int failed;
} valid_job;

static double sample_of(const jf_image *img, int x, int y, int c)
{
    const unsigned char *row = img->data + (size_t)y * img->stride;
    const size_t at = (size_t)x * (size_t)img->channels + (size_t)c;
    switch (img->sample) {
    case JF_SAMPLE_F32: return ((const float *)(const void *)row)[at];
    case JF_SAMPLE_U16: return ((const uint16_t *)(const void *)row)[at];
    default: return row[at];
    }
}

/* The sample at (x, y) through the border (0 outside with the zero border). */
static double bordered(const valid_job *j, int x, int y, int c)
{
    const int sx = jf_border_index(x, j->src->width, j->border);
    const int sy = jf_border_index(y, j->src->height, j->border);
    return sx < 0 || sy < 0 ? 0.0 : sample_of(j->src, sx, sy, c);
}

static int valid(const valid_job *j, double v)
{
    return j->ignore == JF_IGNORE_NAN ? !isnan(v) : v != j->value; /* -0 == +0 */
}

static void store(const valid_job *j, int x, int y, int c, double num, double den)
{
    unsigned char *row = j->dst->data + (size_t)y * j->dst->stride;
    const size_t at = (size_t)x * (size_t)j->dst->channels + (size_t)c;
    const double v = den > 0 ? num / den : sample_of(j->src, x, y, c);
    switch (j->dst->sample) {
    case JF_SAMPLE_F32: ((float *)(void *)row)[at] = (float)v; break;
    case JF_SAMPLE_U16: ((uint16_t *)(void *)row)[at] = jf_saturate_round16((float)v); break;
    default: row[at] = jf_saturate_round((float)v); break;
    }
}

static void valid_rows(void *arg, int begin, int end, int worker)
{
    valid_job *j = (valid_job *)arg;
    const int w = j->src->width, ch = j->src->channels, k = j->k, r = k / 2;
    const size_t wide = (size_t)(w + 2 * r) * (size_t)ch;
    double *num = NULL, *den = NULL;
    int x, y, c, i, jj;
    (void)worker;
    if (j->col && (!(num = (double *)malloc(wide * sizeof *num)) ||
                   !(den = (double *)malloc(wide * sizeof *den)))) {
        j->failed = 1;
        free(num);
        return;
    }
    for (y = begin; y < end; y++) {
        if (j->col) {
            /* columns of the k rows around y, over the bordered width */
            for (x = -r; x < w + r; x++)
                for (c = 0; c < ch; c++) {
                    double n = 0, d = 0;
                    for (jj = 0; jj < k; jj++) {
                        const double v = bordered(j, x, y + jj - r, c);
                        if (valid(j, v)) {
                            n += j->col[jj] * v;
                            d += j->col[jj];
                        }
                    }
                    num[(size_t)(x + r) * ch + c] = n;
                    den[(size_t)(x + r) * ch + c] = d;
                }
            for (x = 0; x < w; x++)
                for (c = 0; c < ch; c++) {
                    double n = 0, d = 0;
                    for (i = 0; i < k; i++) {
                        n += j->row[i] * num[(size_t)(x + i) * ch + c];
                        d += j->row[i] * den[(size_t)(x + i) * ch + c];
                    }
                    store(j, x, y, c, n, d);
                }
        } else {
            for (x = 0; x < w; x++)
                for (c = 0; c < ch; c++) {
                    double n = 0, d = 0;
                    for (jj = 0; jj < k; jj++)
                        for (i = 0; i < k; i++) {
                            const double v = bordered(j, x + i - r, y + jj - r, c);
                            if (valid(j, v)) {
                                n += j->weights[jj * k + i] * v;
                                d += j->weights[jj * k + i];
                            }
                        }
                    store(j, x, y, c, n, d);
                }
        }
    }
    free(num);
    free(den);
}

jf_status jf_conv_valid_cpu(jf_context *ctx, const jf_image *src, int k, jf_border border,
                            const float *weights, const float *col, const float *row, int ignore,
                            double value, jf_image *dst)
{
    valid_job job;
    jf_image copy;
    jf_status st;
    memset(&job, 0, sizeof job);
    if ((st = jf_source_apart(ctx, &src, dst, &copy)) != JF_OK)
        return st;
    job.src = src;
    job.dst = dst;
    job.k = k;
    job.border = border;
    job.weights = weights;
    job.col = col;
    job.row = col ? row : NULL;
    job.ignore = ignore;
    job.value = value;
    jf_parallel_for(ctx, src->height, valid_rows, &job);
    return job.failed ? jf_fail(JF_ERR_NOMEM, "jf_convolve: out of memory for a row's sums") : JF_OK;
}
