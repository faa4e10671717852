/* jf_median: validation, padding, dispatch to a variant, timing. */
#include "filters/filters.h"
#include "filters/median/median.h"
#include "filters/pad/pad.h"
#include "io/io.h"
#include "pipeline/context.h"
#include "pipeline/errors.h"
#include "pipeline/gpu.h"

jf_status jf_median(jf_context *ctx, const jf_image *src, jf_image *dst,
                    const jf_median_options *opt)
{
    jf_image padded = {0};
    jf_status st;
    double t0;
    int on_gpu;

    if (!opt)
        return jf_fail(JF_ERR_ARG, "jf_median: options are NULL");
    on_gpu = jf_use_gpu(ctx, opt->variant);
    if ((st = jf_check_variant("jf_median", ctx, opt->variant)) != JF_OK ||
        (st = jf_check_image("jf_median", "source", src, on_gpu)) != JF_OK ||
        (dst && dst->data && (st = jf_check_image("jf_median", "output", dst, on_gpu)) != JF_OK) ||
        (st = jf_check_ksize("jf_median", opt->ksize, JF_MEDIAN_MAX_KSIZE)) != JF_OK ||
        (st = jf_check_border("jf_median", opt->border)) != JF_OK ||
        (st = jf_image_prepare(dst, src->width, src->height, src->channels)) != JF_OK)
        return st;
#ifdef JF_HAVE_CUDA
    if (on_gpu)
        return jf_median_cuda(ctx, src, dst, opt);
#endif
    if ((st = jf_pad_host(ctx, src, opt->ksize / 2, opt->border, &padded)) != JF_OK)
        return st;
    t0 = jf_now_ms();
    st = jf_median_cpu(&padded, opt->ksize, dst, jf_threads_of(ctx));
    if (st == JF_OK)
        jf_record(ctx, "median", "cpu", opt->ksize, src, jf_now_ms() - t0,
                  (uint64_t)padded.width * padded.height * padded.channels,
                  (uint64_t)src->width * src->height * src->channels);
    jf_image_free(&padded);
    return st;
}
