/* jf_convolve on the CUDA backend: input onto the device (the tiled kernels
 * read the border themselves; the global one pads first), the weights into
 * the context's own device buffer (a copy ordered on its stream) or, for the
 * unrolled fast kernels (k <= 13), the launch's parameters; run the chosen
 * variant (fast: separable for rank-1 weights from k = 7, unrolled to
 * k = 13, run-time k beyond), output back or left queued. */
#include "filters/conv/conv.h"
#include "filters/filters.h"
#include "filters/filter_cuda.cuh"

extern "C" jf_status jf_convolve_cuda(jf_context *ctx, const jf_image *src, jf_image *dst,
                                      const jf_conv_options *opt)
{
    const int k = opt->ksize;
    float col[JF_CONV_MAX_KSIZE], row[JF_CONV_MAX_KSIZE];
    const int rank1 = k > 1 && jf_kernel_separate(opt->weights, k, col, row);
    int bx = opt->block_x, by = opt->block_y;
    jf_variant v = opt->variant == JF_VARIANT_AUTO
                       ? jf_auto_choice(ctx, rank1 ? "conv-rank1" : "conv", src, k,
                                        jf_conv_auto(k), &bx, &by)
                       : opt->variant;
    const int asked = bx || by; /* else the fast variant picks its own block */
    const float *d_weights = NULL;
    jf_filter_in in;
    jf_dview out;
    jf_status st;
    jf_device_scope scope(ctx);
    if (scope.status != JF_OK)
        return scope.status;
    if ((st = jf_check_variant_sample("jf_convolve", v, src)) != JF_OK)
        return st;
    if (v == JF_VARIANT_FAST && !jf_conv_fast_supports(k))
        v = jf_variant_fallback(src->sample); /* k = 1 */
    if ((st = jf_block_shape("jf_convolve", &bx, &by, 32, 8)) != JF_OK ||
        (st = jf_gpu_filter_setup(ctx, src, dst, k / 2, opt->border, &in, &out)) != JF_OK)
        return st;
    const int separable = v == JF_VARIANT_FAST && jf_conv_separable_path(k, rank1);
    const int wide = v == JF_VARIANT_FAST && !separable && k > JF_CONV_FAST_UNROLLED_MAX_K;
    if (wide && !asked && !jf_conv_wide_fits(ctx, src, k))
        v = jf_variant_fallback(src->sample); /* its tile and weights exceed the device's shared memory */
    if ((v != JF_VARIANT_FAST || wide) && (st = jf_gpu_weights(ctx, opt->weights, k, &d_weights)) != JF_OK)
        return st;
    if (v == JF_VARIANT_GLOBAL)
        st = jf_conv_global_launch(ctx, &in, k, d_weights, bx, by, &out);
    else if (v == JF_VARIANT_FAST && separable)
        st = jf_conv_separable_launch(ctx, &in, k, col, row, asked ? bx : 0,
                                      asked ? by : 0, &out);
    else if (v == JF_VARIANT_FAST && wide)
        st = jf_conv_wide_launch(ctx, &in, k, d_weights, asked ? bx : 0, asked ? by : 0, &out);
    else if (v == JF_VARIANT_FAST)
        st = jf_conv_fast_launch(ctx, &in, k, opt->weights, asked ? bx : 0,
                                 asked ? by : 0, &out);
    else
        st = jf_conv_shared_launch(ctx, &in, k, d_weights, bx, by, &out);
    if (st != JF_OK)
        return st;
    return jf_gpu_finish(ctx, dst, &out);
}
