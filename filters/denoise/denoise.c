/*
 * The denoisers of camera noise as the operation table runs them:
 * non-local means, bilateral, guided, the per-image `auto`, and the noise
 * estimate (jf_estimate_noise).  Each checks its images, resolves its
 * variant, reads the image's noise where a setting is left to it, chooses
 * its parameters from it and runs on the CPU or the GPU.
 */
#include "filters/denoise/denoise.h"
#include "filters/denoise/denoise_math.h"
#include "filters/filters.h"
#include "filters/ops.h"
#include "filters/resolve.h"
#include "core/context.h"
#include "core/errors.h"
#include "core/image.h"
#include "core/stats.h"
#include "core/util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- the estimate, wherever the image lives ------------------------------------ */

static jf_status estimate_any(jf_context *ctx, const char *fn, const jf_image *img,
                              jf_noise_estimate *out)
{
    jf_status st;
    if (img->location == JF_LOC_DEVICE) { /* the CPU reads a host copy */
        jf_image host;
        memset(&host, 0, sizeof host);
        if ((st = jf_image_alloc_as(&host, img->width, img->height, img->channels, img->sample)) != JF_OK)
            return st;
        if ((st = jf_image_transfer(ctx, img, &host)) == JF_OK)
            st = jf_estimate_host(ctx, &host, out);
        jf_image_free(&host);
        return st;
    }
    if (img->location != JF_LOC_HOST && jf_context_backend(ctx) == JF_BACKEND_CUDA &&
        (st = jf_context_sync(ctx)) != JF_OK) /* mapped or managed: earlier GPU work first */
        return st;
    (void)fn;
    return jf_estimate_host(ctx, img, out);
}

static jf_status estimate_impl(jf_context *ctx, const jf_image *img, jf_noise_estimate *out)
{
    jf_status st;
    double t0 = jf_now_ms();
    if (!out)
        return jf_fail(JF_ERR_ARG, "jf_estimate_noise: out is NULL");
    if ((st = jf_check_image("jf_estimate_noise", "image", img,
                             jf_context_backend(ctx) == JF_BACKEND_CUDA)) != JF_OK ||
        (st = jf_check_sample("jf_estimate_noise", img)) != JF_OK)
        return st;
    if ((st = estimate_any(ctx, "jf_estimate_noise", img, out)) == JF_OK)
        jf_record(ctx, "estimate", "cpu", 0, img, jf_now_ms() - t0,
                  (uint64_t)img->width * img->height * img->channels * jf_sample_size(img->sample), 0);
    return st;
}

jf_status jf_estimate_noise(jf_context *ctx, const jf_image *img, jf_noise_estimate *out)
{
    JF_WITH_CONTEXT(ctx, estimate_impl(ctx, img, out));
}

/* ---- what every denoiser does first --------------------------------------------- */

/* 8-bit levels of a sample type's level (the parameters are chosen by how
 * visible the noise is, at any depth). */
static double to8(const jf_image *img) { return 255.0 / jf_sample_max(img->sample); }

/* Images checked; with a family, the variant chosen (else later). */
static jf_status begin(jf_context *ctx, const jf_family *family, const char *fn, const jf_image *src,
                       const jf_image *dst, int k, jf_variant variant, jf_choice *choice)
{
    const int on_gpu = jf_use_gpu(ctx, variant);
    jf_status st;
    if ((st = jf_check_image(fn, "source", src, on_gpu)) != JF_OK ||
        (st = jf_check_sample(fn, src)) != JF_OK ||
        (dst->data && (st = jf_check_image(fn, "output", dst, on_gpu)) != JF_OK))
        return st;
    return family ? jf_choose(ctx, family, fn, src, k, 0, NULL, variant, 0, 0, choice) : JF_OK;
}

static jf_status make_output(const jf_image *src, jf_image *dst)
{
    return jf_image_prepare(dst, src->width, src->height, src->channels, src->sample);
}

/* The noise, given (8-bit levels, scaled to the image's) or estimated. */
static jf_status noise_of(jf_context *ctx, const char *fn, const jf_image *src, double given8,
                          jf_noise_estimate *est)
{
    memset(est, 0, sizeof *est);
    if (given8 > 0.0) {
        est->sigma = given8 / to8(src);
        est->poisson_b = est->sigma * est->sigma;
        return JF_OK;
    }
    return estimate_any(ctx, fn, src, est);
}

/* ---- non-local means ---------------------------------------------------------------- */

/* ---- the parameters by Stein's unbiased risk estimate ---- */

/* What non-local means may run with when nothing is given: patch sides and
 * h / sigma, tried on the image by SURE (Van De Ville and Kocher 2009). */
static const struct {
    int patch;
    double hfactor;
} SURE_CANDIDATES[] = {{3, 0.8}, {5, 0.6}, {7, 0.5}, {5, 0.8}, {7, 0.7}};
#define SURE_CROP 48
/* at most this share of the noisy pixel is kept (the estimate rests on
 * four small crops) */
#define SURE_KEEP_MAX 0.7

/* A deterministic +-1 a sample (xorshift): the probe of the divergence. */
static float probe_sign(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (*s >> 40) & 1 ? 1.0f : -1.0f;
}

/* What Monte-Carlo SURE (Ramani, Blu and Unser 2008) needs of non-local
 * means with (patch, h) on `in` (planes of a crop, padded by `pad`):
 * err = |y - f(y)|^2 and div = div f, from one more run on y + eps b,
 * added to the sums. */
static jf_status sure_terms(jf_context *ctx, const jf_planes *in, const jf_planes *probe, int pad,
                      const jf_nlm_params *prm, float eps, const float *b, jf_planes *out,
                      jf_planes *out2, double *err_sum, double *div_sum)
{
    const int w = in->width - 2 * pad, h = in->height - 2 * pad;
    double err = 0.0, div = 0.0;
    int c, x, y;
    jf_status st;
    if ((st = jf_nlmeans_cpu(ctx, in, pad, prm, out)) != JF_OK ||
        (st = jf_nlmeans_cpu(ctx, probe, pad, prm, out2)) != JF_OK)
        return st;
    for (c = 0; c < in->channels; c++)
        for (y = 0; y < h; y++) {
            const float *yy = jf_plane_row(in, c, y + pad) + pad;
            const float *f1 = jf_plane_row(out, c, y + pad) + pad, *f2 = jf_plane_row(out2, c, y + pad) + pad;
            const float *bb = b + ((size_t)c * in->height + y + pad) * in->width + pad;
            for (x = 0; x < w; x++) {
                err += (double)(yy[x] - f1[x]) * (yy[x] - f1[x]);
                div += (double)bb[x] * (f2[x] - f1[x]);
            }
        }
    *err_sum += err;
    *div_sum += div / eps;
    return JF_OK;
}

/* The estimated mean squared error of (1 - keep) f(y) + keep y, with
 * A = |y - f(y)|^2 / N and D = div f / N: (1 - keep)^2 A - s2 +
 * 2 s2 ((1 - keep) D + keep), least at keep = 1 - s2 (1 - D) / A; `keep`
 * receives that within 0 .. SURE_KEEP_MAX. */
static double sure_with_keep(double A, double D, double s2, double *keep)
{
    double k = A > 0.0 ? 1.0 - s2 * (1.0 - D) / A : 0.0;
    k = k < 0.0 ? 0.0 : k > SURE_KEEP_MAX ? SURE_KEEP_MAX : k;
    *keep = k;
    return (1.0 - k) * (1.0 - k) * A - s2 + 2.0 * s2 * ((1.0 - k) * D + k);
}

/* SURE over up to four crops of a host image (their planes through `map`):
 * the candidate with the least estimated error, each with the share of the
 * noisy pixel that is best to keep (texture that no patch repeats is
 * better kept than averaged away), into prm->patch, prm->keep and the
 * factor of h. */
static jf_status sure_choose(jf_context *ctx, const jf_image *src, const jf_plane_map *map,
                             jf_border border, jf_nlm_params *prm, double *hfactor)
{
    const int cw = src->width < SURE_CROP ? src->width : SURE_CROP;
    const int chh = src->height < SURE_CROP ? src->height : SURE_CROP;
    const int nx = src->width >= 3 * SURE_CROP ? 2 : 1, ny = src->height >= 3 * SURE_CROP ? 2 : 1;
    const int search = prm->search < 15 ? prm->search : 15;
    const int pad = search / 2 + JF_NLM_MAX_PATCH / 2;
    const float eps = prm->sigma / 50.0f;
    enum { NCAND = sizeof SURE_CANDIDATES / sizeof SURE_CANDIDATES[0] };
    double err[NCAND], div[NCAND], n_all = 0.0, best_mse = INFINITY;
    const double s2 = (double)prm->sigma * prm->sigma;
    int i, j, k, best = 0;
    memset(err, 0, sizeof err);
    memset(div, 0, sizeof div);
    for (j = 0; j < ny; j++)
        for (i = 0; i < nx; i++) {
            jf_image crop = *src;
            jf_planes in, probe, out, out2;
            size_t n, q;
            float *b;
            uint64_t seed = 0x9E3779B97F4A7C15ull ^ (uint64_t)(j * 2 + i + 1);
            jf_status st;
            /* a crop centred in each quadrant (or the whole of a small image) */
            const int x0 = nx == 2 ? (src->width / 2) * i + (src->width / 2 - cw) / 2 : (src->width - cw) / 2;
            const int y0 = ny == 2 ? (src->height / 2) * j + (src->height / 2 - chh) / 2 : (src->height - chh) / 2;
            crop.width = cw;
            crop.height = chh;
            crop.data = src->data + (size_t)y0 * src->stride + (size_t)x0 * src->channels * jf_sample_size(src->sample);
            if ((st = jf_planes_from_image(ctx, &crop, pad, border, map, &in, JF_SCRATCH_PAD)) != JF_OK)
                return st;
            n = in.plane * (size_t)in.channels;
            if (!(b = (float *)jf_scratch_get(ctx, JF_SCRATCH_AUX, sizeof(float) * n * 4)))
                return JF_ERR_NOMEM;
            probe = in;
            probe.data = b + n;
            out = in;
            out.data = b + 2 * n;
            out2 = in;
            out2.data = b + 3 * n;
            for (q = 0; q < n; q++) {
                b[q] = probe_sign(&seed);
                probe.data[q] = in.data[q] + eps * b[q];
            }
            for (k = 0; k < NCAND; k++) {
                jf_nlm_params c = *prm;
                c.search = search;
                c.patch = SURE_CANDIDATES[k].patch;
                c.h = (float)(SURE_CANDIDATES[k].hfactor * prm->sigma);
                c.keep = 0.0f;
                if ((st = sure_terms(ctx, &in, &probe, pad, &c, eps, b, &out, &out2, &err[k],
                                     &div[k])) != JF_OK)
                    return st;
            }
            n_all += (double)cw * chh * in.channels;
        }
    for (k = 0; k < NCAND; k++) {
        double keep;
        const double mse = sure_with_keep(err[k] / n_all, div[k] / n_all, s2, &keep);
        if (mse < best_mse) {
            best_mse = mse;
            best = k;
            prm->keep = (float)keep;
        }
    }
    prm->patch = SURE_CANDIDATES[best].patch;
    *hfactor = SURE_CANDIDATES[best].hfactor;
    return JF_OK;
}

/* The patch side and the weights' width for noise of `sigma8` 8-bit levels:
 * 3 x 3 patches below 15, 5 x 5 below 40, 7 x 7 above, and h a fraction
 * of sigma that shrinks as the patch grows (the patch distance of larger
 * patches varies less): measured on photos against OpenCV's non-local
 * means (benchmarks/RESULTS.md, "Camera noise"). */
static int nlm_patch(double sigma8) { return sigma8 < 15.0 ? 3 : sigma8 < 40.0 ? 5 : 7; }
static double nlm_hfactor(int patch)
{
    return patch <= 1 ? 1.2 : patch == 3 ? 0.8 : patch == 5 ? 0.6 : patch == 7 ? 0.5 : 0.45;
}

/* `known`: the image's noise when the caller estimated it already (auto). */
static jf_status nlmeans_run(jf_context *ctx, const jf_op_plan *p, jf_image *src, jf_image *dst,
                             const jf_noise_estimate *known, jf_op_note *note)
{
    const char *fn = "nlmeans";
    jf_noise_estimate est;
    jf_choice choice;
    jf_plane_map map;
    jf_nlm_params prm;
    double sigma8, hfactor, t0 = jf_now_ms();
    jf_status st;
    const int search = p->args.search ? p->args.search : 21;
    if ((st = begin(ctx, NULL, fn, src, dst, 0, p->args.variant, &choice)) != JF_OK)
        return st;
    if (known)
        est = *known;
    else if ((st = noise_of(ctx, fn, src, p->args.noise_sigma, &est)) != JF_OK)
        return st;
    memset(&map, 0, sizeof map);
    map.colour = src->channels >= 3 ? 3 : 1;
    map.decorrelate = map.colour == 3;
    map.vst = p->args.noise_sigma <= 0.0 && est.signal_dependent;
    map.a = (float)est.poisson_a;
    map.b = (float)est.poisson_b;
    prm.search = search;
    prm.keep = 0.0f; /* SURE's blend only when it chooses the settings */
    if (map.vst) {
        /* noise of level 1 after the transform: the parameters by the level
         * it has against the transformed range */
        const double range = jf_gat_forward((float)jf_sample_max(src->sample), map.a, map.b) -
                             jf_gat_forward(0.0f, map.a, map.b);
        sigma8 = range > 0.0 ? 255.0 / range : 0.0;
        prm.sigma = 1.0f;
    } else {
        sigma8 = est.sigma * to8(src);
        prm.sigma = (float)est.sigma;
    }
    prm.patch = p->args.patch ? p->args.patch : nlm_patch(sigma8);
    hfactor = nlm_hfactor(prm.patch);
    if (!(p->args.given & (JF_P_PATCH | JF_P_STRENGTH)) && prm.sigma > 0.0f) {
        /* nothing set: the patch and h that SURE finds best on this image */
        if (src->location == JF_LOC_DEVICE) {
            jf_image host;
            memset(&host, 0, sizeof host);
            if ((st = jf_image_alloc_as(&host, src->width, src->height, src->channels, src->sample)) != JF_OK)
                return st;
            if ((st = jf_image_transfer(ctx, src, &host)) == JF_OK)
                st = sure_choose(ctx, &host, &map, p->args.border, &prm, &hfactor);
            jf_image_free(&host);
        } else {
            st = sure_choose(ctx, src, &map, p->args.border, &prm, &hfactor);
        }
        if (st != JF_OK)
            return st;
    }
    prm.h = (float)(hfactor * p->args.strength * prm.sigma);
    /* the variant for what a pixel's result reads: its search and patch */
    if ((st = jf_choose(ctx, &jf_nlmeans_family, fn, src, prm.search + prm.patch - 1, 0, NULL,
                        p->args.variant, 0, 0, &choice)) != JF_OK ||
        (st = make_output(src, dst)) != JF_OK)
        return st;
    if (note) {
        note->estimate = est.sigma;
        if (map.vst)
            snprintf(note->text, sizeof note->text, "nlmeans sigma %.3g patch %d; Poisson-Gaussian "
                     "a %.3g b %.3g, Anscombe", est.sigma, prm.patch, est.poisson_a, est.poisson_b);
        else
            snprintf(note->text, sizeof note->text, "nlmeans sigma %.3g patch %d h %.3g", est.sigma,
                     prm.patch, prm.h);
        if (prm.keep > 0.0f) {
            const size_t used = strlen(note->text);
            snprintf(note->text + used, sizeof note->text - used, " keep %.2f", prm.keep);
        }
    }
    if (prm.sigma <= 0.0f || prm.h <= 0.0f) /* no noise: nothing to take away */
        return jf_image_transfer(ctx, src, dst);
#ifdef JF_HAVE_CUDA
    if (choice.variant != JF_VARIANT_CPU)
        return jf_nlmeans_cuda(ctx, src, dst, &prm, &map, p->args.border, &choice);
#endif
    {
        const int pad = prm.search / 2 + prm.patch / 2;
        jf_planes in, out;
        if ((st = jf_planes_from_image(ctx, src, pad, p->args.border, &map, &in, JF_SCRATCH_PAD)) != JF_OK)
            return st;
        out = in;
        if (!(out.data = (float *)jf_scratch_get(ctx, JF_SCRATCH_ROWS,
                                                 sizeof(float) * in.plane * (size_t)in.channels)))
            return JF_ERR_NOMEM;
        if ((st = jf_nlmeans_cpu(ctx, &in, pad, &prm, &out)) != JF_OK)
            return st;
        jf_planes_to_image(ctx, &out, pad, &map, src, dst);
    }
    jf_record(ctx, "nlmeans", "cpu", prm.search, src, jf_now_ms() - t0,
              (uint64_t)src->width * src->height * src->channels * jf_sample_size(src->sample),
              (uint64_t)src->width * src->height * src->channels * jf_sample_size(src->sample));
    return JF_OK;
}

jf_status jf_op_nlmeans(jf_context *ctx, const jf_op_plan *p, jf_image *src, jf_image *dst,
                        jf_op_note *note)
{
    return nlmeans_run(ctx, p, src, dst, NULL, note);
}

/* ---- bilateral ------------------------------------------------------------------------ */

jf_status jf_op_bilateral(jf_context *ctx, const jf_op_plan *p, jf_image *src, jf_image *dst,
                          jf_op_note *note)
{
    const char *fn = "bilateral";
    jf_noise_estimate est;
    jf_choice choice;
    jf_bilateral_params prm;
    double t0 = jf_now_ms();
    jf_status st;
    if ((st = begin(ctx, &jf_bilateral_family, fn, src, dst, p->ksize, p->args.variant, &choice)) != JF_OK ||
        (st = make_output(src, dst)) != JF_OK)
        return st;
    memset(&est, 0, sizeof est);
    if (p->args.sigma_color <= 0.0 && (st = noise_of(ctx, fn, src, 0.0, &est)) != JF_OK)
        return st;
    prm.ksize = p->ksize;
    /* twice the noise keeps edges a noise step apart as edges (8-bit levels) */
    prm.sigma_color = (float)(p->args.sigma_color > 0.0 ? p->args.sigma_color / to8(src)
                                                         : 2.5 * (est.sigma > 0.5 / to8(src) ? est.sigma : 0.5 / to8(src)));
    prm.sigma_space = (float)(p->args.sigma_space > 0.0 ? p->args.sigma_space : p->ksize / 3.0);
    if (note) {
        note->estimate = p->args.sigma_color > 0.0 ? NAN : est.sigma;
        snprintf(note->text, sizeof note->text, "bilateral k=%d sigma-color %.3g sigma-space %.3g",
                 prm.ksize, prm.sigma_color, prm.sigma_space);
    }
#ifdef JF_HAVE_CUDA
    if (choice.variant != JF_VARIANT_CPU)
        return jf_bilateral_cuda(ctx, src, dst, &prm, p->args.border, &choice);
#endif
    {
        jf_image copy;
        const jf_image *in = src;
        if ((st = jf_source_apart(ctx, &in, dst, &copy)) != JF_OK ||
            (st = jf_bilateral_cpu(ctx, in, dst, &prm, p->args.border)) != JF_OK)
            return st;
    }
    jf_record(ctx, "bilateral", "cpu", prm.ksize, src, jf_now_ms() - t0,
              (uint64_t)src->width * src->height * src->channels * jf_sample_size(src->sample),
              (uint64_t)src->width * src->height * src->channels * jf_sample_size(src->sample));
    return JF_OK;
}

/* ---- guided ------------------------------------------------------------------------------ */

static jf_status guided_run(jf_context *ctx, const jf_op_plan *p, jf_image *src, jf_image *dst,
                            const jf_noise_estimate *known, jf_op_note *note)
{
    const char *fn = "guided";
    jf_noise_estimate est;
    jf_choice choice;
    jf_guided_params prm;
    double t0 = jf_now_ms();
    jf_status st;
    if ((st = begin(ctx, &jf_guided_family, fn, src, dst, p->ksize, p->args.variant, &choice)) != JF_OK ||
        (st = make_output(src, dst)) != JF_OK)
        return st;
    memset(&est, 0, sizeof est);
    if (known)
        est = *known;
    else if (p->args.eps <= 0.0 && (st = noise_of(ctx, fn, src, 0.0, &est)) != JF_OK)
        return st;
    prm.ksize = p->ksize;
    {   /* eps in the image's levels squared */
        const double s = est.sigma > 0.5 / to8(src) ? est.sigma : 0.5 / to8(src);
        prm.eps = (float)(p->args.eps > 0.0 ? p->args.eps / (to8(src) * to8(src)) : 2.0 * s * s);
    }
    if (note) {
        note->estimate = p->args.eps > 0.0 ? NAN : est.sigma;
        snprintf(note->text, sizeof note->text, "guided k=%d eps %.3g", prm.ksize, prm.eps);
    }
#ifdef JF_HAVE_CUDA
    if (choice.variant != JF_VARIANT_CPU)
        return jf_guided_cuda(ctx, src, dst, &prm, p->args.border, &choice);
#endif
    if ((st = jf_guided_cpu(ctx, src, dst, &prm, p->args.border)) != JF_OK)
        return st;
    jf_record(ctx, "guided", "cpu", prm.ksize, src, jf_now_ms() - t0,
              (uint64_t)src->width * src->height * src->channels * jf_sample_size(src->sample),
              (uint64_t)src->width * src->height * src->channels * jf_sample_size(src->sample));
    return JF_OK;
}

jf_status jf_op_guided(jf_context *ctx, const jf_op_plan *p, jf_image *src, jf_image *dst,
                       jf_op_note *note)
{
    return guided_run(ctx, p, src, dst, NULL, note);
}

/* ---- auto: the denoiser chosen per image -------------------------------------------- */

/* Impulses above this density go to auto-impulse; noise below this level
 * (8-bit) is left alone. */
#define AUTO_IMPULSE_DENSITY 0.005
#define AUTO_CLEAN_SIGMA8 1.5

jf_status jf_op_auto(jf_context *ctx, const jf_op_plan *p, jf_image *src, jf_image *dst,
                     jf_op_note *note)
{
    jf_noise_estimate est;
    jf_op_plan sub;
    jf_op_note inner;
    jf_status st;
    const int on_gpu = jf_use_gpu(ctx, p->args.variant);
    if ((st = jf_check_image("auto", "source", src, on_gpu)) != JF_OK ||
        (st = jf_check_sample("auto", src)) != JF_OK ||
        (st = estimate_any(ctx, "auto", src, &est)) != JF_OK)
        return st;
    memset(&inner, 0, sizeof inner);
    inner.estimate = NAN;
    sub = *p;
    if (src->sample == JF_SAMPLE_U8 && est.impulse_density >= AUTO_IMPULSE_DENSITY) {
        jf_impulse_options o = jf_impulse_defaults();
        jf_impulse_choice c;
        o.max_ksize = 0;
        o.border = p->args.border;
        o.variant = p->args.variant == JF_VARIANT_AUTO || p->args.variant == JF_VARIANT_CPU
                        ? p->args.variant : JF_VARIANT_GLOBAL;
        if ((st = jf_impulse_auto(ctx, src, dst, &o, &c)) != JF_OK)
            return st;
        if (note) {
            note->estimate = est.impulse_density;
            snprintf(note->text, sizeof note->text, "auto-impulse: salt and pepper %.3g; "
                     "switching-median k<=%d%s", est.impulse_density, c.max_ksize,
                     c.filtered == 2 ? " refine" : "");
        }
        return JF_OK;
    }
    if (est.sigma * to8(src) < AUTO_CLEAN_SIGMA8 && !est.signal_dependent) {
        if ((st = make_output(src, dst)) != JF_OK)
            return st;
        if (note) {
            note->estimate = est.sigma;
            snprintf(note->text, sizeof note->text, "none: clean (sigma %.3g)", est.sigma);
        }
        return dst->data == src->data ? JF_OK : jf_image_transfer(ctx, src, dst);
    }
    /* the estimate handed on, so that it is not made twice */
    sub.args.noise_sigma = 0.0;
    if (p->args.speed == 1) { /* fast: the guided filter, a window for the noise */
        sub.ksize = est.sigma * to8(src) < 15.0 ? 5 : 7;
        sub.args.eps = 0.0;
        st = guided_run(ctx, &sub, src, dst, &est, &inner);
    } else {
        sub.args.search = 21;
        sub.args.patch = 0;
        sub.args.strength = 1.0;
        st = nlmeans_run(ctx, &sub, src, dst, &est, &inner);
    }
    if (st == JF_OK && note) {
        note->estimate = est.sigma;
        snprintf(note->text, sizeof note->text, "%s", inner.text);
    }
    return st;
}
