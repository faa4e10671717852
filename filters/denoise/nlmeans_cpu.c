/*
 * Non-local means on the CPU (Buades, Coll and Morel 2005), in the form of
 * the IPOL implementation: each pixel the weighted mean of the pixels of
 * its search window, a pixel's weight
 *   w = exp(-max(d - 2 sigma^2, 0) / h^2),
 * d the mean squared difference of the two patches over their pixels and
 * channels (so patches that differ only by the noise weigh about 1), the
 * pixel itself weighted as its most similar neighbour.
 *
 * Fast and exact (Darbon et al. 2008): for one offset of the search window
 * at a time, the squared differences of a tile's pixels, their patch sums
 * by a running sum down the columns and a sum across, then the weights;
 * every inner loop runs along a row, so it vectorises.  Tiles go to the
 * context's threads.
 */
#include "filters/denoise/denoise.h"
#include "filters/denoise/denoise_math.h"
#include "core/context.h"

#include <string.h>

#define TW 64 /* a tile's columns */
#define TH 32 /* and rows */

typedef struct nlm_job {
    const jf_planes *in;
    jf_planes *out;
    int pad;
    const jf_nlm_params *prm;
    int tiles_x, tiles_y;
    float *scratch;  /* per worker */
    size_t per_worker;
} nlm_job;

/* The tile at (x0, y0) of w x h pixels; P (the patch) and C (the
 * channels) are constants in each copy, so that the sums across unroll and
 * each row is one vectorised loop. */
static inline __attribute__((always_inline)) void
nlm_tile_body(const nlm_job *j, int x0, int y0, int w, int h, float *buf, const int P, const int C)
{
    const jf_planes *in = j->in;
    const int f = P / 2, r = j->prm->search / 2;
    const int dw = w + 2 * f, dh = h + 2 * f;
    const float two_s2 = 2.0f * j->prm->sigma * j->prm->sigma;
    const float inv_h2 = 1.0f / (j->prm->h * j->prm->h), inv_n = 1.0f / (float)(P * P * C);
    const float keep = j->prm->keep;
    float *dist = buf;                          /* dh x dw */
    float *vsum = dist + (size_t)dh * dw;       /* dw: the running column sums */
    float *den = vsum + dw;                     /* h x w */
    float *wmax = den + (size_t)h * w;
    float *acc = wmax + (size_t)h * w;          /* C x h x w */
    int dx, dy, x, y, c, i;
    memset(den, 0, sizeof(float) * (size_t)h * w * (2 + C));
    for (dy = -r; dy <= r; dy++)
        for (dx = -r; dx <= r; dx++) {
            if (dx == 0 && dy == 0)
                continue;
            /* squared differences over the tile and the patches' reach */
            for (y = 0; y < dh; y++) {
                float *restrict d = dist + (size_t)y * dw;
                const int py = y0 + y - f + j->pad, qy = py + dy;
                const int px = x0 - f + j->pad, qx = px + dx;
                const float *restrict p0 = jf_plane_row(in, 0, py) + px;
                const float *restrict q0 = jf_plane_row(in, 0, qy) + qx;
                for (x = 0; x < dw; x++) {
                    float e = p0[x] - q0[x], sum = e * e;
                    for (c = 1; c < C; c++) {
                        e = jf_plane_row(in, c, py)[px + x] - jf_plane_row(in, c, qy)[qx + x];
                        sum += e * e;
                    }
                    d[x] = sum;
                }
            }
            /* patch sums: a running sum down each column, a sum across */
            for (x = 0; x < dw; x++) {
                float v = 0.0f;
                for (y = 0; y < P - 1; y++)
                    v += dist[(size_t)y * dw + x];
                vsum[x] = v;
            }
            for (y = 0; y < h; y++) {
                const float *restrict add = dist + (size_t)(y + P - 1) * dw;
                const float *restrict sub = dist + (size_t)y * dw;
                float *restrict dn = den + (size_t)y * w, *restrict wm = wmax + (size_t)y * w;
                const int qy = y0 + y + dy + j->pad, qx = x0 + dx + j->pad;
                float wrow[TW];
                for (x = 0; x < dw; x++)
                    vsum[x] += add[x];
                for (x = 0; x < w; x++) {
                    float s = vsum[x], e, wt;
                    for (i = 1; i < P; i++)
                        s += vsum[x + i];
                    e = s * inv_n - two_s2;
                    e = e > 0.0f ? e : 0.0f;
                    wt = jf_exp_neg(e * inv_h2);
                    wrow[x] = wt;
                    dn[x] += wt;
                    wm[x] = wm[x] > wt ? wm[x] : wt;
                }
                for (c = 0; c < C; c++) {
                    const float *restrict q = jf_plane_row(in, c, qy) + qx;
                    float *restrict a = acc + ((size_t)c * h + y) * w;
                    for (x = 0; x < w; x++)
                        a[x] += wrow[x] * q[x];
                }
                for (x = 0; x < dw; x++) /* the row that leaves the running sum */
                    vsum[x] -= sub[x];
            }
        }
    /* the pixel itself, weighted as its most similar neighbour */
    for (y = 0; y < h; y++)
        for (c = 0; c < C; c++) {
            const float *p = jf_plane_row(in, c, y0 + y + j->pad) + x0 + j->pad;
            const float *a = acc + ((size_t)c * h + y) * w;
            const float *dn = den + (size_t)y * w, *wm = wmax + (size_t)y * w;
            float *o = jf_plane_row(j->out, c, y0 + y + j->pad) + x0 + j->pad;
            for (x = 0; x < w; x++) /* wm >= 2^-126 (jf_exp_neg): never 0 / 0 */
                o[x] = jf_nlm_keep((a[x] + wm[x] * p[x]) / (dn[x] + wm[x]), p[x], keep);
        }
}

JF_WIDE_SIMD
static void nlm_tile(const nlm_job *j, int x0, int y0, int w, int h, float *buf)
{
    const int C = j->in->channels;
    switch (j->prm->patch * 4 + C) {
    case 1 * 4 + 1: nlm_tile_body(j, x0, y0, w, h, buf, 1, 1); break;
    case 3 * 4 + 1: nlm_tile_body(j, x0, y0, w, h, buf, 3, 1); break;
    case 5 * 4 + 1: nlm_tile_body(j, x0, y0, w, h, buf, 5, 1); break;
    case 7 * 4 + 1: nlm_tile_body(j, x0, y0, w, h, buf, 7, 1); break;
    case 9 * 4 + 1: nlm_tile_body(j, x0, y0, w, h, buf, 9, 1); break;
    case 1 * 4 + 3: nlm_tile_body(j, x0, y0, w, h, buf, 1, 3); break;
    case 3 * 4 + 3: nlm_tile_body(j, x0, y0, w, h, buf, 3, 3); break;
    case 5 * 4 + 3: nlm_tile_body(j, x0, y0, w, h, buf, 5, 3); break;
    case 7 * 4 + 3: nlm_tile_body(j, x0, y0, w, h, buf, 7, 3); break;
    default: nlm_tile_body(j, x0, y0, w, h, buf, 9, 3); break; /* patch 9, 3 channels */
    }
}

static void nlm_tiles(void *arg, int begin, int end, int worker)
{
    const nlm_job *j = (const nlm_job *)arg;
    float *buf = j->scratch + (size_t)worker * j->per_worker;
    int t;
    for (t = begin; t < end; t++) {
        const int tx = t % j->tiles_x, ty = t / j->tiles_x;
        const int x0 = tx * TW, y0 = ty * TH;
        const int w = j->in->width - 2 * j->pad - x0, h = j->in->height - 2 * j->pad - y0;
        nlm_tile(j, x0, y0, w < TW ? w : TW, h < TH ? h : TH, buf);
    }
}

jf_status jf_nlmeans_cpu(jf_context *ctx, const jf_planes *in, int pad, const jf_nlm_params *prm,
                         jf_planes *out)
{
    nlm_job j;
    const int W = in->width - 2 * pad, H = in->height - 2 * pad, f = prm->patch / 2;
    int tiles;
    j.in = in;
    j.out = out;
    j.pad = pad;
    j.prm = prm;
    j.tiles_x = (W + TW - 1) / TW;
    j.tiles_y = (H + TH - 1) / TH;
    tiles = j.tiles_x * j.tiles_y;
    j.per_worker = (size_t)(TH + 2 * f) * (TW + 2 * f) + (TW + 2 * f) +
                   (size_t)TH * TW * (2 + (size_t)in->channels) + 16;
    j.scratch = (float *)jf_scratch_get(ctx, JF_SCRATCH_BANDS,
                                        sizeof(float) * j.per_worker * (size_t)jf_parallel_bands(ctx, tiles));
    if (!j.scratch)
        return JF_ERR_NOMEM; /* recorded by jf_scratch_get */
    jf_parallel_for(ctx, tiles, nlm_tiles, &j);
    return JF_OK;
}
