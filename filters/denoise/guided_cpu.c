/*
 * The guided filter on the CPU (He, Sun and Tang 2010), each colour channel
 * its own guide: in every k x k window the output is a linear function of
 * the input, a = var / (var + eps), b = mean - a mean, and each pixel takes
 * the mean of the a and b of the windows that hold it.  Constant time in
 * k: window means from integral images (in double, so that the variance
 * is not lost to cancellation).  Samples are scaled to 0..1 inside; eps is
 * in levels squared.  Alpha is kept.
 */
#include "filters/denoise/denoise.h"
#include "filters/filters.h"
#include "core/context.h"
#include "core/errors.h"

#include <stdlib.h>
#include <string.h>

typedef struct gd_job {
    const jf_planes *in;
    int c, r, pad;          /* channel, radius, the planes' pad (2r) */
    int w1, h1;             /* the region of a and b: the image and r around it */
    const double *si, *sii; /* integral images of the planes, (w + 1) x (h + 1) */
    double *sa, *sb;        /* of a and b over the region */
    float *a, *b;           /* w1 x h1 */
    double eps;
    float scale;            /* 1 / the largest level */
    const jf_image *src;
    jf_image *dst;
    int colour;
} gd_job;

static double box(const double *s, size_t stride, int x0, int y0, int x1, int y1)
{
    return s[(size_t)y1 * stride + x1] - s[(size_t)y0 * stride + x1] - s[(size_t)y1 * stride + x0] +
           s[(size_t)y0 * stride + x0];
}

/* a and b over the region: window centred on region pixel (x, y), which
 * is planes pixel (x + r, y + r). */
static void ab_rows(void *arg, int begin, int end, int worker)
{
    const gd_job *j = (const gd_job *)arg;
    const size_t st = (size_t)j->in->width + 1;
    const int k = 2 * j->r + 1;
    const double n = (double)k * k;
    int x, y;
    (void)worker;
    for (y = begin; y < end; y++)
        for (x = 0; x < j->w1; x++) {
            const double m = box(j->si, st, x, y, x + k, y + k) / n;
            const double mm = box(j->sii, st, x, y, x + k, y + k) / n;
            double var = mm - m * m, a;
            var = var > 0.0 ? var : 0.0;
            a = var / (var + j->eps);
            j->a[(size_t)y * j->w1 + x] = (float)a;
            j->b[(size_t)y * j->w1 + x] = (float)(m - a * m);
        }
}

static void out_rows(void *arg, int begin, int end, int worker)
{
    const gd_job *j = (const gd_job *)arg;
    const size_t st = (size_t)j->w1 + 1;
    const int k = 2 * j->r + 1, ch = j->dst->channels;
    const double n = (double)k * k;
    const float top = 1.0f / j->scale;
    int x, y;
    (void)worker;
    for (y = begin; y < end; y++) {
        const float *p = jf_plane_row(j->in, j->c, y + j->pad) + j->pad;
        unsigned char *row = j->dst->data + (size_t)y * j->dst->stride;
        for (x = 0; x < j->dst->width; x++) {
            const double ma = box(j->sa, st, x, y, x + k, y + k) / n;
            const double mb = box(j->sb, st, x, y, x + k, y + k) / n;
            const float v = (float)((ma * p[x] * j->scale + mb) * top);
            if (j->dst->sample == JF_SAMPLE_U16)
                ((uint16_t *)(void *)row)[x * ch + j->c] = jf_saturate_round16(v);
            else
                row[x * ch + j->c] = jf_saturate_round(v);
        }
    }
}

/* Integral image of w x h values (scaled, squared or not) into s, (w + 1) x (h + 1). */
static void integral_planes(const jf_planes *in, int c, float scale, int square, double *s)
{
    const size_t st = (size_t)in->width + 1;
    int x, y;
    memset(s, 0, sizeof(double) * st);
    for (y = 0; y < in->height; y++) {
        const float *p = jf_plane_row(in, c, y);
        double run = 0.0;
        s[(size_t)(y + 1) * st] = 0.0;
        for (x = 0; x < in->width; x++) {
            const double v = (double)p[x] * scale;
            run += square ? v * v : v;
            s[(size_t)(y + 1) * st + x + 1] = s[(size_t)y * st + x + 1] + run;
        }
    }
}

static void integral_floats(const float *v, int w, int h, double *s)
{
    const size_t st = (size_t)w + 1;
    int x, y;
    memset(s, 0, sizeof(double) * st);
    for (y = 0; y < h; y++) {
        double run = 0.0;
        s[(size_t)(y + 1) * st] = 0.0;
        for (x = 0; x < w; x++) {
            run += v[(size_t)y * w + x];
            s[(size_t)(y + 1) * st + x + 1] = s[(size_t)y * st + x + 1] + run;
        }
    }
}

jf_status jf_guided_cpu(jf_context *ctx, const jf_image *src, jf_image *dst,
                        const jf_guided_params *prm, jf_border border)
{
    const jf_plane_map map = {0, 0, 0.0f, 0.0f, src->channels >= 3 ? 3 : 1};
    const int r = prm->ksize / 2, pad = 2 * r;
    const float top = (float)jf_sample_max(src->sample);
    jf_planes planes;
    gd_job j;
    double *si = NULL, *sii = NULL, *sa = NULL, *sb = NULL;
    float *ab = NULL;
    size_t n1, n2;
    int c, x, y;
    jf_status st;
    if ((st = jf_planes_from_image(ctx, src, pad, border, &map, &planes, JF_SCRATCH_PAD)) != JF_OK)
        return st;
    /* the region's windows fill the planes (2r around the image): r of
     * them beyond the region on every side */
    j.w1 = planes.width - 2 * r;
    j.h1 = planes.height - 2 * r;
    n1 = ((size_t)planes.width + 1) * ((size_t)planes.height + 1);
    n2 = ((size_t)j.w1 + 1) * ((size_t)j.h1 + 1);
    si = (double *)malloc(sizeof(double) * n1);
    sii = (double *)malloc(sizeof(double) * n1);
    sa = (double *)malloc(sizeof(double) * n2);
    sb = (double *)malloc(sizeof(double) * n2);
    ab = (float *)malloc(sizeof(float) * 2 * (size_t)j.w1 * j.h1);
    if (!si || !sii || !sa || !sb || !ab) {
        st = jf_fail(JF_ERR_NOMEM, "guided: out of memory");
        goto done;
    }
    j.in = &planes;
    j.r = r;
    j.pad = pad;
    j.si = si;
    j.sii = sii;
    j.sa = sa;
    j.sb = sb;
    j.a = ab;
    j.b = ab + (size_t)j.w1 * j.h1;
    j.scale = 1.0f / top;
    j.eps = prm->eps / ((double)top * top);
    j.src = src;
    j.dst = dst;
    j.colour = map.colour;
    for (c = 0; c < map.colour; c++) {
        j.c = c;
        integral_planes(&planes, c, j.scale, 0, si);
        integral_planes(&planes, c, j.scale, 1, sii);
        jf_parallel_for(ctx, j.h1, ab_rows, &j);
        integral_floats(j.a, j.w1, j.h1, sa);
        integral_floats(j.b, j.w1, j.h1, sb);
        jf_parallel_for(ctx, src->height, out_rows, &j);
    }
    for (c = map.colour; c < src->channels; c++) /* alpha, as it was */
        for (y = 0; y < src->height; y++)
            for (x = 0; x < src->width; x++) {
                const size_t i = (size_t)x * src->channels + c;
                if (src->sample == JF_SAMPLE_U16)
                    ((uint16_t *)(void *)(dst->data + (size_t)y * dst->stride))[i] =
                        ((const uint16_t *)(const void *)(src->data + (size_t)y * src->stride))[i];
                else
                    dst->data[(size_t)y * dst->stride + i] = src->data[(size_t)y * src->stride + i];
            }
done:
    free(si);
    free(sii);
    free(sa);
    free(sb);
    free(ab);
    return st;
}
