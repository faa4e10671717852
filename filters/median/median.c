/* jf_median: options, validation, padding on the CPU, dispatch, timing. */
#include "filters/filters.h"
#include "filters/median/median.h"
#include "filters/pad/pad.h"
#include "core/context.h"
#include "core/errors.h"
#include "core/image.h"
#include "core/options.h"
#include "core/stats.h"
#include "core/util.h"

jf_median_options jf_median_defaults(void)
{
    jf_median_options o = JF_MEDIAN_OPTIONS_INIT;
    return o;
}

static jf_status median_impl(jf_context *ctx, const jf_image *src, jf_image *dst,
                             const jf_median_options *user)
{
    jf_median_options opt = jf_median_defaults();
    jf_image padded;
    jf_status st;
    double t0;
    int on_gpu;

    if (!user)
        return jf_fail(JF_ERR_ARG, "jf_median: options are NULL");
    if ((st = jf_options_read("jf_median", "jf_median_defaults", &opt, sizeof opt, user)) != JF_OK)
        return st;
    on_gpu = jf_use_gpu(ctx, opt.variant);
    if ((st = jf_check_variant("jf_median", ctx, opt.variant)) != JF_OK ||
        (st = jf_check_image("jf_median", "source", src, on_gpu)) != JF_OK ||
        (dst && dst->data && (st = jf_check_image("jf_median", "output", dst, on_gpu)) != JF_OK) ||
        (st = jf_check_ksize("jf_median", opt.ksize, JF_MEDIAN_MAX_KSIZE)) != JF_OK ||
        (st = jf_check_border("jf_median", opt.border)) != JF_OK ||
        (st = jf_image_prepare(dst, src->width, src->height, src->channels)) != JF_OK)
        return st;
#ifdef JF_HAVE_CUDA
    if (on_gpu)
        return jf_median_cuda(ctx, src, dst, &opt);
#endif
    if (opt.ksize == 3 || opt.ksize == 5) { /* no padded copy: the rows pad themselves */
        t0 = jf_now_ms();
        if ((st = jf_median_cpu_small(ctx, src, opt.ksize, opt.border, dst)) != JF_OK)
            return st;
        padded = *src;
    } else {
        if ((st = jf_pad_scratch(ctx, src, opt.ksize / 2, opt.border, &padded)) != JF_OK)
            return st;
        t0 = jf_now_ms();
        if ((st = jf_median_cpu(ctx, &padded, opt.ksize, dst)) != JF_OK)
            return st;
    }
    jf_record(ctx, "median", "cpu", opt.ksize, src, jf_now_ms() - t0,
              (uint64_t)padded.width * padded.height * padded.channels,
              (uint64_t)src->width * src->height * src->channels);
    return JF_OK;
}

jf_status jf_median(jf_context *ctx, const jf_image *src, jf_image *dst,
                    const jf_median_options *opt)
{
    JF_WITH_CONTEXT(ctx, median_impl(ctx, src, dst, opt));
}

/* JF_VARIANT_AUTO on the GPU, from the sweep on an H200 (benchmarks/RESULTS.md):
 * the window network of the global variant wins at k = 3; the shared
 * variant's sliding histograms win for k >= 9 at every size, and for k = 5
 * and 7 once there are enough windows to hide their serial strips (grey
 * 1007x567: global 0.019 ms, shared 0.024 ms at k = 5, but 0.032 vs 0.027 at
 * k = 7).  On a device with few multiprocessors (the Nano has one) the
 * strips are hidden sooner, so the thresholds scale with the SM count. */
jf_variant jf_median_auto(const jf_device_info *dev, int k, const jf_image *src)
{
    const double windows = (double)src->width * src->height * src->channels;
    const double sms = dev && dev->multiprocessors > 0 ? dev->multiprocessors : 132.0;
    const double scale = sms / 132.0;
    if (k <= 3)
        return JF_VARIANT_GLOBAL;
    if (k == 5)
        return windows >= 1.0e6 * scale ? JF_VARIANT_SHARED : JF_VARIANT_GLOBAL;
    if (k == 7)
        return windows >= 0.5e6 * scale ? JF_VARIANT_SHARED : JF_VARIANT_GLOBAL;
    return JF_VARIANT_SHARED;
}
