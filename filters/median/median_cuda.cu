/* jf_median on the CUDA backend: input onto the device, pad to planes, run
 * the chosen variant, output back; every step timed with events. */
#include "filters/gpu_block.h"
#include "filters/median/median.h"
#include "pipeline/gpu.cuh"

/* JF_VARIANT_AUTO, from the sweep on an H200 (benchmarks/RESULTS.md): the
 * window network of the global variant wins at k = 3; the shared variant's
 * sliding histograms win for k >= 9 at every size, and for k = 5 and 7 once
 * there are enough windows to hide their serial strips (grey 1007x567:
 * global 0.019 ms, shared 0.024 ms at k = 5, but 0.032 vs 0.027 at k = 7). */
static jf_variant median_auto(int k, const jf_image *src)
{
    const double windows = (double)src->width * src->height * src->channels;
    if (k <= 3)
        return JF_VARIANT_GLOBAL;
    if (k == 5)
        return windows >= 1.0e6 ? JF_VARIANT_SHARED : JF_VARIANT_GLOBAL;
    if (k == 7)
        return windows >= 0.5e6 ? JF_VARIANT_SHARED : JF_VARIANT_GLOBAL;
    return JF_VARIANT_SHARED;
}

extern "C" jf_status jf_median_cuda(jf_context *ctx, const jf_image *src, jf_image *dst,
                                    const jf_median_options *opt)
{
    jf_variant v = opt->variant == JF_VARIANT_AUTO ? median_auto(opt->ksize, src) : opt->variant;
    int bx = opt->block_x, by = opt->block_y, plane_rows = 0;
    jf_dview planes, out;
    jf_status st;
    if (v == JF_VARIANT_FAST)
        return jf_fail(JF_ERR_UNSUPPORTED, "jf_median: no 'fast' CUDA variant yet; use global, "
                       "shared or auto");
    if (v == JF_VARIANT_SHARED && bx == 0 && by == 0)
        jf_median_shared_default_block(opt->ksize, &bx, &by);
    if ((st = jf_block_shape("jf_median", &bx, &by)) != JF_OK ||
        (st = jf_gpu_filter_setup(ctx, src, dst, opt->ksize, opt->border, &planes, &plane_rows,
                                  &out)) != JF_OK)
        return st;
    st = v == JF_VARIANT_GLOBAL
        ? jf_median_global_launch(ctx, &planes, plane_rows, src, opt->ksize, bx, by, &out)
        : jf_median_shared_launch(ctx, &planes, plane_rows, src, opt->ksize, bx, by, &out);
    if (st != JF_OK)
        return st;
    return jf_gpu_finish(ctx, dst, &out);
}
