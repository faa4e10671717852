/*
 * The bilateral filter on the CPU (Tomasi and Manduchi 1998): each pixel
 * the mean of its circular window of diameter k, each neighbour weighted by
 *   exp(-r^2 / (2 sigma_space^2)) * exp(-|colour difference|^2 / (2 sigma_color^2)),
 * the colour difference Euclidean over the colour channels (alpha is kept).
 * Rows of a tap vectorise; rows go to the context's threads.
 */
#include "filters/denoise/denoise.h"
#include "filters/denoise/denoise_math.h"
#include "core/context.h"
#include "core/errors.h"

#include <math.h>
#include <stdlib.h>

typedef struct bl_job {
    const jf_planes *in;
    int r;
    const float *space;  /* (2r+1)^2 spatial weights, 0 outside the circle */
    float inv_2sc2;
    const jf_image *src;
    jf_image *dst;
    float *rows;         /* per worker: (C + 1) x width floats */
} bl_job;

JF_WIDE_SIMD
static void bl_rows(void *arg, int begin, int end, int worker)
{
    const bl_job *j = (const bl_job *)arg;
    const jf_planes *in = j->in;
    const int C = in->channels, W = j->dst->width, k = 2 * j->r + 1, ch = j->dst->channels;
    float *acc = j->rows + (size_t)worker * (size_t)(C + 1) * W, *den = acc + (size_t)C * W;
    int y, x, c, u, v;
    for (y = begin; y < end; y++) {
        for (x = 0; x < W * (C + 1); x++)
            acc[x] = 0.0f;
        for (v = 0; v < k; v++)
            for (u = 0; u < k; u++) {
                const float ws = j->space[v * k + u];
                if (ws == 0.0f)
                    continue;
                {
                    float wrow[4096];
                    int x0;
                    for (x0 = 0; x0 < W; x0 += 4096) {
                        const int n = W - x0 < 4096 ? W - x0 : 4096;
                        for (x = 0; x < n; x++)
                            wrow[x] = 0.0f;
                        for (c = 0; c < C; c++) {
                            const float *p = jf_plane_row(in, c, y + j->r) + j->r + x0;
                            const float *q = jf_plane_row(in, c, y + v) + u + x0;
                            for (x = 0; x < n; x++) {
                                const float e = q[x] - p[x];
                                wrow[x] += e * e;
                            }
                        }
                        for (x = 0; x < n; x++)
                            wrow[x] = ws * jf_exp_neg(wrow[x] * j->inv_2sc2);
                        for (c = 0; c < C; c++) {
                            const float *q = jf_plane_row(in, c, y + v) + u + x0;
                            float *a = acc + (size_t)c * W + x0;
                            for (x = 0; x < n; x++)
                                a[x] += wrow[x] * q[x];
                        }
                        for (x = 0; x < n; x++)
                            den[x0 + x] += wrow[x];
                    }
                }
            }
        {
            unsigned char *row = j->dst->data + (size_t)y * j->dst->stride;
            const unsigned char *srow = j->src->data + (size_t)y * j->src->stride;
            for (x = 0; x < W; x++)
                for (c = 0; c < ch; c++) {
                    const float f = c < C ? acc[(size_t)c * W + x] / den[x] : 0.0f;
                    if (j->dst->sample == JF_SAMPLE_U16)
                        ((uint16_t *)(void *)row)[x * ch + c] =
                            c < C ? jf_saturate_round16(f) : ((const uint16_t *)(const void *)srow)[x * ch + c];
                    else
                        row[x * ch + c] = c < C ? jf_saturate_round(f) : srow[x * ch + c];
                }
        }
    }
}

/* The spatial weights of a circular window of radius r. */
void jf_bilateral_space(int r, float sigma_space, float *w)
{
    const int k = 2 * r + 1;
    int u, v;
    for (v = 0; v < k; v++)
        for (u = 0; u < k; u++) {
            const int d2 = (u - r) * (u - r) + (v - r) * (v - r);
            w[v * k + u] = d2 > r * r ? 0.0f
                                      : (float)exp(-(double)d2 / (2.0 * sigma_space * sigma_space));
        }
}

jf_status jf_bilateral_cpu(jf_context *ctx, const jf_image *src, jf_image *dst,
                           const jf_bilateral_params *prm, jf_border border)
{
    const jf_plane_map map = {0, 0, 0.0f, 0.0f, src->channels >= 3 ? 3 : 1};
    const int r = prm->ksize / 2, k = prm->ksize;
    jf_planes planes;
    bl_job j;
    float *space;
    jf_status st;
    if ((st = jf_planes_from_image(ctx, src, r, border, &map, &planes, JF_SCRATCH_PAD)) != JF_OK)
        return st;
    if (!(space = (float *)malloc(sizeof(float) * (size_t)k * k)))
        return jf_fail(JF_ERR_NOMEM, "bilateral: out of memory");
    jf_bilateral_space(r, prm->sigma_space, space);
    j.in = &planes;
    j.r = r;
    j.space = space;
    j.inv_2sc2 = 1.0f / (2.0f * prm->sigma_color * prm->sigma_color);
    j.src = src;
    j.dst = dst;
    j.rows = (float *)jf_scratch_get(ctx, JF_SCRATCH_BANDS,
                                     sizeof(float) * (size_t)(map.colour + 1) * src->width *
                                         (size_t)jf_parallel_bands(ctx, src->height));
    if (!j.rows) {
        free(space);
        return JF_ERR_NOMEM;
    }
    jf_parallel_for(ctx, src->height, bl_rows, &j);
    free(space);
    return JF_OK;
}
