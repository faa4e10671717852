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

static jf_status check_pair(const char *fn, const jf_image *a, const jf_image *b, int on_gpu)
{
    jf_status st;
    if ((st = jf_check_image(fn, "first", a, on_gpu)) != JF_OK ||
        (st = jf_check_image(fn, "second", b, on_gpu)) != JF_OK)
        return st;
    if (a->width != b->width || a->height != b->height || a->channels != b->channels)
        return jf_fail(JF_ERR_ARG, "%s: images differ in shape (%dx%dx%d vs %dx%dx%d)", fn,
                       a->width, a->height, a->channels, b->width, b->height, b->channels);
    if (a->sample != b->sample)
        return jf_fail(JF_ERR_ARG, "%s: images differ in depth (%d-bit vs %d-bit)", fn,
                       8 * (int)jf_sample_size(a->sample), 8 * (int)jf_sample_size(b->sample));
    return JF_OK;
}

static jf_status psnr_impl(jf_context *ctx, const jf_image *a, const jf_image *b,
                          double *psnr_db, double *mse)
{
    double sse = 0.0, m;
    jf_choice choice;
    jf_status st;
    double t0 = jf_now_ms();
    const int on_gpu = jf_use_gpu(ctx, JF_VARIANT_AUTO);
    if (!psnr_db)
        return jf_fail(JF_ERR_ARG, "jf_psnr: psnr_db is NULL");
    if ((st = check_pair("jf_psnr", a, b, on_gpu)) != JF_OK ||
        (st = jf_choose(ctx, &jf_psnr_family, "jf_psnr", a, 1, 0, NULL, JF_VARIANT_AUTO, 0, 0, &choice)) != JF_OK)
        return st;
#ifdef JF_HAVE_CUDA
    if (on_gpu)
        st = jf_sse_cuda(ctx, a, b, &sse);
    else
#endif
        st = jf_sse_cpu(ctx, a, b, &sse);
    if (st != JF_OK)
        return st;
    m = sse / ((double)a->width * a->height * a->channels);
    {
        const double L = jf_sample_max(a->sample);
        *psnr_db = m == 0.0 ? INFINITY : 10.0 * log10(L * L / m);
    }
    if (mse)
        *mse = m;
    if (!on_gpu)
        jf_record(ctx, "psnr", "cpu", 0, a, jf_now_ms() - t0,
                  2ull * (uint64_t)a->width * a->height * a->channels * jf_sample_size(a->sample), 0);
    return JF_OK;
}

jf_status jf_psnr(jf_context *ctx, const jf_image *a, const jf_image *b, double *psnr_db,
                  double *mse)
{
    JF_WITH_CONTEXT(ctx, psnr_impl(ctx, a, b, psnr_db, mse));
}

static jf_status ssim_impl(jf_context *ctx, const jf_image *a, const jf_image *b, double *ssim)
{
    double sum = 0.0, v;
    jf_choice choice;
    jf_status st;
    int c;
    double t0 = jf_now_ms();
    const int on_gpu = jf_use_gpu(ctx, JF_VARIANT_AUTO);
    if (!ssim)
        return jf_fail(JF_ERR_ARG, "jf_ssim: ssim is NULL");
    if ((st = check_pair("jf_ssim", a, b, on_gpu)) != JF_OK ||
        (st = jf_choose(ctx, &jf_ssim_family, "jf_ssim", a, 1, 0, NULL, JF_VARIANT_AUTO, 0, 0, &choice)) != JF_OK)
        return st;
    if (a->width < 11 || a->height < 11)
        return jf_fail(JF_ERR_ARG, "jf_ssim: image %dx%d is smaller than the 11x11 window",
                       a->width, a->height);
#ifdef JF_HAVE_CUDA
    if (on_gpu)
        return jf_ssim_cuda(ctx, a, b, ssim);
#endif
    for (c = 0; c < a->channels; c++) {
        if ((st = jf_ssim_cpu(ctx, a, b, c, &v)) != JF_OK)
            return st;
        sum += v;
    }
    *ssim = sum / a->channels;
    jf_record(ctx, "ssim", "cpu", 11, a, jf_now_ms() - t0,
              2ull * (uint64_t)a->width * a->height * a->channels * jf_sample_size(a->sample), 0);
    return JF_OK;
}

jf_status jf_ssim(jf_context *ctx, const jf_image *a, const jf_image *b, double *ssim)
{
    JF_WITH_CONTEXT(ctx, ssim_impl(ctx, a, b, ssim));
}
