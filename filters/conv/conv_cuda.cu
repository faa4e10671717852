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
    jf_gpu_call call;
    memset(&call, 0, sizeof call);
    call.choice = c;
    call.k = opt->ksize;
    call.weights = opt->weights;
    call.col = col;
    call.row = row;
    return jf_gpu_filter_rows(ctx, src, dst, opt->border, call, "convolution");
}

/* Each GPU row's launch (conv_variants.c names them); those that read the
 * k x k weights from the device copy them to it first. */
typedef jf_status (*device_weights_launch)(jf_context *ctx, const jf_filter_in *in, int k,
                                           const float *d_weights, int bx, int by, const jf_dview *out);

static jf_status with_device_weights(const jf_gpu_call *g, device_weights_launch launch)
{
    const float *d_weights = NULL;
    jf_status st = jf_gpu_weights(g->ctx, g->weights, g->k, &d_weights);
    if (st != JF_OK)
        return st;
    return launch(g->ctx, g->in, g->k, d_weights, g->choice->block_x, g->choice->block_y, g->out);
}

extern "C" jf_status jf_conv_global_run(const jf_gpu_call *g) { return with_device_weights(g, jf_conv_global_launch); }

extern "C" jf_status jf_conv_shared_run(const jf_gpu_call *g) { return with_device_weights(g, jf_conv_shared_launch); }

extern "C" jf_status jf_conv_wide_run(const jf_gpu_call *g) { return with_device_weights(g, jf_conv_wide_launch); }

extern "C" jf_status jf_conv_separable_run(const jf_gpu_call *g)
{
    return jf_conv_separable_launch(g->ctx, g->in, g->k, g->col, g->row, g->choice->block_x,
                                    g->choice->block_y, g->out);
}

extern "C" jf_status jf_conv_unrolled_run(const jf_gpu_call *g)
{
    return jf_conv_fast_launch(g->ctx, g->in, g->k, g->weights, g->choice->block_x,
                               g->choice->block_y, g->out);
}
