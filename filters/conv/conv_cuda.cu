/* jf_convolve on the CUDA backend: input onto the device, pad to planes, run
 * the chosen variant, output back; every step timed with events. */
#include "filters/conv/conv.h"
#include "filters/gpu_block.h"
#include "pipeline/gpu.cuh"

jf_status jf_conv_global_launch(jf_context *ctx, const jf_dview *planes, int plane_rows,
                                const jf_image *shape, int k, const float *weights, int bx,
                                int by, const jf_dview *out);
jf_status jf_conv_shared_launch(jf_context *ctx, const jf_dview *planes, int plane_rows,
                                const jf_image *shape, int k, const float *weights, int bx,
                                int by, const jf_dview *out);
jf_status jf_conv_fast_launch(jf_context *ctx, const jf_dview *planes, int plane_rows,
                              const jf_image *shape, int k, const float *weights, int bx, int by,
                              const jf_dview *out);
int jf_conv_fast_supports(int k);

/* JF_VARIANT_AUTO, from the sweeps on an H200 (benchmarks/RESULTS.md): the
 * fast variant wins wherever it exists (k = 3..11: 2-6x over the others);
 * beyond it the shared tile beats global from k = 5 (4-12%), global wins at
 * k = 3 (L1 serves a small window as well as a tile, without the load phase). */
static jf_variant conv_auto(int k)
{
    if (jf_conv_fast_supports(k))
        return JF_VARIANT_FAST;
    return k >= 5 ? JF_VARIANT_SHARED : JF_VARIANT_GLOBAL;
}

extern "C" jf_status jf_convolve_cuda(jf_context *ctx, const jf_image *src, jf_image *dst,
                                      const jf_conv_options *opt)
{
    jf_variant v = opt->variant == JF_VARIANT_AUTO ? conv_auto(opt->ksize) : opt->variant;
    int bx = opt->block_x, by = opt->block_y, plane_rows = 0;
    jf_dview planes, out;
    jf_status st;
    if ((st = jf_block_shape("jf_convolve", &bx, &by)) != JF_OK ||
        (st = jf_gpu_filter_setup(ctx, src, dst, opt->ksize, opt->border, &planes, &plane_rows,
                                  &out)) != JF_OK)
        return st;
    if (v == JF_VARIANT_GLOBAL)
        st = jf_conv_global_launch(ctx, &planes, plane_rows, src, opt->ksize, opt->weights, bx, by, &out);
    else if (v == JF_VARIANT_FAST)
        st = jf_conv_fast_launch(ctx, &planes, plane_rows, src, opt->ksize, opt->weights, bx, by, &out);
    else
        st = jf_conv_shared_launch(ctx, &planes, plane_rows, src, opt->ksize, opt->weights, bx, by, &out);
    if (st != JF_OK)
        return st;
    return jf_gpu_finish(ctx, dst, &out);
}
