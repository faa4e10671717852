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
        (st = jf_image_prepare(dst, src->width, src->height, src->channels, src->sample)) != JF_OK)
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
    } else if (src->sample == JF_SAMPLE_U16) {
        if ((st = jf_pad_scratch(ctx, src, opt.ksize / 2, opt.border, &padded)) != JF_OK)
            return st;
        t0 = jf_now_ms();
        if ((st = jf_median_cpu16(ctx, &padded, opt.ksize, dst)) != JF_OK)
            return st;
    } else {
        if ((st = jf_pad_scratch(ctx, src, opt.ksize / 2, opt.border, &padded)) != JF_OK)
            return st;
        t0 = jf_now_ms();
        if ((st = jf_median_cpu(ctx, &padded, opt.ksize, dst)) != JF_OK)
            return st;
    }
    jf_record(ctx, "median", "cpu", opt.ksize, src, jf_now_ms() - t0,
              (uint64_t)padded.width * padded.height * padded.channels * jf_bps(src),
              (uint64_t)src->width * src->height * src->channels * jf_bps(src));
    return JF_OK;
}

jf_status jf_median(jf_context *ctx, const jf_image *src, jf_image *dst,
                    const jf_median_options *opt)
{
    JF_WITH_CONTEXT(ctx, median_impl(ctx, src, dst, opt));
}

int jf_median_fast_supports(int k) { return k >= 3 && k <= 11 && k % 2; }

/* k = 9 and 11 need 255 registers a thread even with two samples in each
 * (small spills); with one sample per register (the Nano's sm_53, Nano
 * limits) the H100 measured them no faster than the sliding histograms
 * (3840x2160 k = 11: 0.209 vs 0.181 ms), so there they run `shared`. */
int jf_median_fast_runs(const jf_device_info *dev, int k)
{
    return jf_median_fast_supports(k) && (k <= 7 || jf_median_fast_lanes(dev) == 2);
}

int jf_median_fast_lanes(const jf_device_info *dev)
{
    return dev && dev->cc_major >= 9 && !dev->limited ? 2 : 1;
}

/* JF_VARIANT_AUTO on the GPU, from the sweep on an H100
 * (benchmarks/RESULTS.md, "fast median"): the fast variant's shared networks
 * at k = 5 and 7 at every size, and at k = 3 from about 4 million windows
 * (re-measured once the fast kernels read the border themselves and the
 * global one kept its pad pass, H100, whole filter: 1920x1080 grey
 * 0.0153 ms fast, 0.0144 global; 1280x720 RGB 0.0243 vs 0.0180; 1920x1080
 * RGB 0.0324 vs 0.0361: below that the fast kernel's long straight-line
 * code costs about 0.013 ms however small the image); at k = 9 and 11 where it runs with two
 * samples a register (3840x2160 grey: 0.080 and 0.113 ms against the sliding
 * histograms' 0.163 and 0.180); those histograms for larger k, and for 9 and
 * 11 elsewhere; a copy (global) at k = 1.  With fewer
 * multiprocessors the GPU fills sooner, so the threshold scales with the SM
 * count (the Nano's one SM: fast from about 30000 windows).  16-bit images
 * the same, with global where the sliding histograms (8-bit) would run. */
jf_variant jf_median_auto(const jf_device_info *dev, int k, const jf_image *src)
{
    const double windows = (double)src->width * src->height * src->channels;
    const double sms = dev && dev->multiprocessors > 0 ? dev->multiprocessors : 132.0;
    if (k <= 1 || (k == 3 && windows < 4e6 * sms / 132.0))
        return JF_VARIANT_GLOBAL;
    return jf_median_fast_runs(dev, k) ? JF_VARIANT_FAST : jf_variant_fallback(src->sample);
}
