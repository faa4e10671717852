/* jf_psnr and jf_ssim: validation and dispatch. */
#include "filters/filters.h"
#include "filters/metrics/metrics.h"
#include "filters/ops.h"
#include "filters/resolve.h"
#include "core/context.h"
#include "core/errors.h"
#include "core/stats.h"
#include "core/util.h"

#include <math.h>
#include <string.h>

static jf_status check_pair(const char *fn, const jf_image *a, const jf_image *b, int on_gpu)
{
    jf_status st;
    if ((st = jf_check_image_any(fn, "first", a, on_gpu)) != JF_OK ||
        (st = jf_check_image_any(fn, "second", b, on_gpu)) != JF_OK)
        return st;
    if (a->width != b->width || a->height != b->height || a->channels != b->channels)
        return jf_fail(JF_ERR_ARG, "%s: images differ in shape (%dx%dx%d vs %dx%dx%d)", fn,
                       a->width, a->height, a->channels, b->width, b->height, b->channels);
    if (a->sample != b->sample)
        return jf_fail(JF_ERR_ARG, "%s: images differ in sample type (%s vs %s)", fn,
                       jf_sample_name(a->sample), jf_sample_name(b->sample));
    return JF_OK;
}

/* The data range: the caller's, or the sample type's top (255, 65535, 1). */
static jf_status range_of(const char *fn, const jf_image *a, double asked, double *L)
{
    if (asked == 0) {
        *L = jf_sample_max(a->sample);
        return JF_OK;
    }
    if (!(asked > 0) || !isfinite(asked))
        return jf_fail(JF_ERR_ARG, "%s: data range %g is not a positive number", fn, asked);
    *L = asked;
    return JF_OK;
}

/* Where the GPU's kernels do not take the call (float32 samples, a data
 * range other than the type's), the CPU reads the images: device images
 * through host copies, mapped and managed ones once earlier GPU work is done. */
static jf_status host_view(jf_context *ctx, const jf_image *img, jf_image *copy, const jf_image **view)
{
    jf_status st;
    memset(copy, 0, sizeof *copy);
    *view = img;
    if (img->location == JF_LOC_DEVICE) {
        if ((st = jf_image_alloc_as(copy, img->width, img->height, img->channels, img->sample)) != JF_OK)
            return st;
        *view = copy;
        return jf_image_transfer(ctx, img, copy);
    }
    if (img->location != JF_LOC_HOST && jf_context_backend(ctx) == JF_BACKEND_CUDA)
        return jf_context_sync(ctx);
    return JF_OK;
}

/* Runs `measure` on host views of a and b. */
static jf_status on_host(jf_context *ctx, const jf_image *a, const jf_image *b, double L,
                         jf_status (*measure)(jf_context *, const jf_image *, const jf_image *,
                                              double, double *, double *),
                         double *v, double *v2)
{
    jf_image ca, cb;
    const jf_image *ha, *hb;
    jf_status st;
    memset(&cb, 0, sizeof cb);
    if ((st = host_view(ctx, a, &ca, &ha)) == JF_OK && (st = host_view(ctx, b, &cb, &hb)) == JF_OK)
        st = measure(ctx, ha, hb, L, v, v2);
    jf_image_free(&ca);
    jf_image_free(&cb);
    return st;
}

static jf_status psnr_cpu(jf_context *ctx, const jf_image *a, const jf_image *b, double L,
                          double *psnr_db, double *mse)
{
    const double t0 = jf_now_ms();
    double sse = 0.0, m;
    jf_status st;
    if ((st = jf_sse_cpu(ctx, a, b, &sse)) != JF_OK)
        return st;
    m = sse / ((double)a->width * a->height * a->channels);
    *psnr_db = m == 0.0 ? INFINITY : 10.0 * log10(L * L / m);
    if (mse)
        *mse = m;
    jf_record(ctx, "psnr", "cpu", 0, a, jf_now_ms() - t0,
              2ull * (uint64_t)a->width * a->height * a->channels * jf_sample_size(a->sample), 0);
    return JF_OK;
}

/* The GPU's kernels: integer samples, the type's own range. */
static int gpu_takes(const jf_context *ctx, const jf_image *a, double L)
{
    return jf_use_gpu(ctx, JF_VARIANT_AUTO) && a->sample != JF_SAMPLE_F32 &&
           L == (double)jf_sample_max(a->sample);
}

static jf_status psnr_impl(jf_context *ctx, const jf_image *a, const jf_image *b, double range,
                           double *psnr_db, double *mse)
{
    jf_choice choice;
    jf_status st;
    double L = 0.0;
    const int on_gpu = jf_use_gpu(ctx, JF_VARIANT_AUTO);
    if (!psnr_db)
        return jf_fail(JF_ERR_ARG, "jf_psnr: psnr_db is NULL");
    if ((st = check_pair("jf_psnr", a, b, on_gpu)) != JF_OK ||
        (st = range_of("jf_psnr", a, range, &L)) != JF_OK)
        return st;
    if ((st = jf_choose(ctx, &jf_psnr_family, "jf_psnr", a, 1, 0, NULL,
                        gpu_takes(ctx, a, L) ? JF_VARIANT_AUTO : JF_VARIANT_CPU, 0, 0, &choice)) != JF_OK)
        return st;
    if (choice.variant == JF_VARIANT_CPU)
        return on_host(ctx, a, b, L, psnr_cpu, psnr_db, mse);
#ifdef JF_HAVE_CUDA
    {
        double sse = 0.0, m;
        if ((st = jf_sse_cuda(ctx, a, b, &sse)) != JF_OK)
            return st;
        m = sse / ((double)a->width * a->height * a->channels);
        *psnr_db = m == 0.0 ? INFINITY : 10.0 * log10(L * L / m);
        if (mse)
            *mse = m;
        return JF_OK;
    }
#else
    return jf_fail(JF_ERR_INTERNAL, "jf_psnr: a GPU without CUDA");
#endif
}

jf_status jf_psnr(jf_context *ctx, const jf_image *a, const jf_image *b, double *psnr_db,
                  double *mse)
{
    JF_WITH_CONTEXT(ctx, psnr_impl(ctx, a, b, 0.0, psnr_db, mse));
}

jf_status jf_psnr_range(jf_context *ctx, const jf_image *a, const jf_image *b, double data_range,
                        double *psnr_db, double *mse)
{
    JF_WITH_CONTEXT(ctx, psnr_impl(ctx, a, b, data_range, psnr_db, mse));
}

static jf_status ssim_cpu(jf_context *ctx, const jf_image *a, const jf_image *b, double L,
                          double *ssim, double *unused)
{
    const double t0 = jf_now_ms();
    double sum = 0.0, v;
    jf_status st;
    int c;
    (void)unused;
    for (c = 0; c < a->channels; c++) {
        if ((st = jf_ssim_cpu(ctx, a, b, c, L, &v)) != JF_OK)
            return st;
        sum += v;
    }
    *ssim = sum / a->channels;
    jf_record(ctx, "ssim", "cpu", 11, a, jf_now_ms() - t0,
              2ull * (uint64_t)a->width * a->height * a->channels * jf_sample_size(a->sample), 0);
    return JF_OK;
}

static jf_status ssim_impl(jf_context *ctx, const jf_image *a, const jf_image *b, double range,
                           double *ssim)
{
    jf_choice choice;
    jf_status st;
    double L = 0.0;
    const int on_gpu = jf_use_gpu(ctx, JF_VARIANT_AUTO);
    if (!ssim)
        return jf_fail(JF_ERR_ARG, "jf_ssim: ssim is NULL");
    if ((st = check_pair("jf_ssim", a, b, on_gpu)) != JF_OK ||
        (st = range_of("jf_ssim", a, range, &L)) != JF_OK)
        return st;
    if (a->width < 11 || a->height < 11)
        return jf_fail(JF_ERR_ARG, "jf_ssim: image %dx%d is smaller than the 11x11 window",
                       a->width, a->height);
    if ((st = jf_choose(ctx, &jf_ssim_family, "jf_ssim", a, 1, 0, NULL,
                        gpu_takes(ctx, a, L) ? JF_VARIANT_AUTO : JF_VARIANT_CPU, 0, 0, &choice)) != JF_OK)
        return st;
    if (choice.variant == JF_VARIANT_CPU)
        return on_host(ctx, a, b, L, ssim_cpu, ssim, NULL);
#ifdef JF_HAVE_CUDA
    return jf_ssim_cuda(ctx, a, b, ssim);
#else
    return jf_fail(JF_ERR_INTERNAL, "jf_ssim: a GPU without CUDA");
#endif
}

jf_status jf_ssim(jf_context *ctx, const jf_image *a, const jf_image *b, double *ssim)
{
    JF_WITH_CONTEXT(ctx, ssim_impl(ctx, a, b, 0.0, ssim));
}

jf_status jf_ssim_range(jf_context *ctx, const jf_image *a, const jf_image *b, double data_range,
                        double *ssim)
{
    JF_WITH_CONTEXT(ctx, ssim_impl(ctx, a, b, data_range, ssim));
}
