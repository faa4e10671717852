/* jf_convolve on the CUDA backend: input onto the device (the tiled kernels
 * read the border themselves; the global one pads first), the weights into
 * the context's own device buffer (a copy ordered on its stream) or, for the
 * unrolled fast kernels (k <= 13), the launch's parameters; run the kernel
 * the resolver chose (conv_variants.c), output back or left queued. */
#include "filters/conv/conv.h"
#include "filters/filters.h"
#include "filters/filter_cuda.cuh"

extern "C" jf_status jf_convolve_cuda(jf_context *ctx, const jf_image *src, jf_image *dst,
                                      const jf_conv_options *opt, const jf_choice *c,
                                      const float *col, const float *row)
{
    const int k = opt->ksize, bx = c->block_x, by = c->block_y;
    const int fast = c->variant == JF_VARIANT_FAST;
    const int separable = fast && c->row->impl == JF_CONV_SEPARABLE;
    const int unrolled = fast && c->row->impl == JF_CONV_UNROLLED;
    const float *d_weights = NULL;
    jf_filter_in in;
    jf_dview out;
    jf_status st;
    jf_device_scope scope(ctx);
    if (scope.status != JF_OK)
        return scope.status;
    if ((st = jf_gpu_filter_setup(ctx, src, dst, k / 2, opt->border, &in, &out)) != JF_OK)
        return st;
    if (!separable && !unrolled && (st = jf_gpu_weights(ctx, opt->weights, k, &d_weights)) != JF_OK)
        return st;
    if (c->variant == JF_VARIANT_GLOBAL)
        st = jf_conv_global_launch(ctx, &in, k, d_weights, bx, by, &out);
    else if (c->variant == JF_VARIANT_SHARED)
        st = jf_conv_shared_launch(ctx, &in, k, d_weights, bx, by, &out);
    else if (separable)
        st = jf_conv_separable_launch(ctx, &in, k, col, row, bx, by, &out);
    else if (unrolled)
        st = jf_conv_fast_launch(ctx, &in, k, opt->weights, bx, by, &out);
    else
        st = jf_conv_wide_launch(ctx, &in, k, d_weights, bx, by, &out);
    if (st != JF_OK)
        return st;
    return jf_gpu_finish(ctx, dst, &out);
}
