/* jf_convolve: validation, separability check, padding, dispatch, timing. */
#include "filters/conv/conv.h"
#include "filters/filters.h"
#include "filters/pad/pad.h"
#include "io/io.h"
#include "pipeline/context.h"
#include "pipeline/errors.h"
#include "pipeline/gpu.h"

#include <math.h>

jf_status jf_convolve(jf_context *ctx, const jf_image *src, jf_image *dst,
                      const jf_conv_options *opt)
{
    float col[JF_CONV_MAX_KSIZE], row[JF_CONV_MAX_KSIZE];
    jf_image padded = {0};
    jf_status st;
    int i, separable, on_gpu;
    double t0;

    if (!opt || !opt->weights)
        return jf_fail(JF_ERR_ARG, "jf_convolve: options or weights are NULL");
    on_gpu = jf_use_gpu(ctx, opt->variant);
    if ((st = jf_check_variant("jf_convolve", ctx, opt->variant)) != JF_OK ||
        (st = jf_check_image("jf_convolve", "source", src, on_gpu)) != JF_OK ||
        (dst && dst->data && (st = jf_check_image("jf_convolve", "output", dst, on_gpu)) != JF_OK) ||
        (st = jf_check_ksize("jf_convolve", opt->ksize, JF_CONV_MAX_KSIZE)) != JF_OK ||
        (st = jf_check_border("jf_convolve", opt->border)) != JF_OK)
        return st;
    for (i = 0; i < opt->ksize * opt->ksize; i++)
        if (!isfinite(opt->weights[i]))
            return jf_fail(JF_ERR_ARG, "jf_convolve: weight %d is not a finite number", i);
    if ((st = jf_image_prepare(dst, src->width, src->height, src->channels)) != JF_OK)
        return st;
#ifdef JF_HAVE_CUDA
    if (on_gpu)
        return jf_convolve_cuda(ctx, src, dst, opt);
#endif
    if ((st = jf_pad_host(ctx, src, opt->ksize / 2, opt->border, &padded)) != JF_OK)
        return st;
    separable = opt->ksize > 1 && jf_kernel_separate(opt->weights, opt->ksize, col, row);
    t0 = jf_now_ms();
    st = jf_conv_cpu(&padded, opt->ksize, opt->weights, separable ? col : NULL,
                     separable ? row : NULL, dst, jf_threads_of(ctx));
    if (st == JF_OK)
        jf_record(ctx, "conv", separable ? "cpu-separable" : "cpu", opt->ksize, src,
                  jf_now_ms() - t0, (uint64_t)padded.width * padded.height * padded.channels,
                  (uint64_t)src->width * src->height * src->channels);
    jf_image_free(&padded);
    return st;
}
