/* jf_median: options, validation, padding on the CPU, dispatch, timing. */
#include "filters/filters.h"
#include "filters/median/median.h"
#include "filters/ops.h"
#include "filters/resolve.h"
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
    jf_choice choice;
    jf_status st;
    double t0;
    int on_gpu;

    if (!user)
        return jf_fail(JF_ERR_ARG, "jf_median: options are NULL");
    if ((st = jf_options_read("jf_median", "jf_median_defaults", &opt, sizeof opt, user)) != JF_OK)
        return st;
    on_gpu = jf_use_gpu(ctx, opt.variant);
    if ((st = jf_check_image("jf_median", "source", src, on_gpu)) != JF_OK ||
        (dst && dst->data && (st = jf_check_image("jf_median", "output", dst, on_gpu)) != JF_OK) ||
        (st = jf_check_ksize("jf_median", opt.ksize, JF_MEDIAN_MAX_KSIZE)) != JF_OK ||
        (st = jf_check_border("jf_median", opt.border)) != JF_OK ||
        (st = jf_choose(ctx, &jf_median_family, "jf_median", src, opt.ksize, 0, opt.variant,
                        opt.block_x, opt.block_y, &choice)) != JF_OK ||
        (st = jf_image_prepare(dst, src->width, src->height, src->channels, src->sample)) != JF_OK)
        return st;
#ifdef JF_HAVE_CUDA
    if (choice.variant != JF_VARIANT_CPU)
        return jf_median_cuda(ctx, src, dst, &opt, &choice);
#endif
    if (opt.ksize == 3 || opt.ksize == 5) { /* no padded copy: the rows pad themselves */
        if ((st = jf_source_apart(ctx, &src, dst, &padded)) != JF_OK)
            return st;
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
