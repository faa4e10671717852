/* jf_median on the CUDA backend: input onto the device, run the variant the
 * resolver chose (the tiled ones read the border themselves; the global one
 * pads first), output back (host images) or leave it queued (device
 * images); every step timed with events when the context keeps stats. */
#include "filters/filter_cuda.cuh"
#include "filters/median/median.h"
#include "filters/filters.h"

extern "C" jf_status jf_median_cuda(jf_context *ctx, const jf_image *src, jf_image *dst,
                                    const jf_median_options *opt, const jf_choice *c)
{
    jf_filter_in in;
    jf_dview out;
    jf_status st;
    jf_device_scope scope(ctx);
    if (scope.status != JF_OK)
        return scope.status;
    if ((st = jf_gpu_filter_setup(ctx, src, dst, opt->ksize / 2, opt->border, &in, &out)) != JF_OK)
        return st;
    if (c->variant == JF_VARIANT_GLOBAL)
        st = jf_median_global_launch(ctx, &in, opt->ksize, c, &out);
    else if (c->variant == JF_VARIANT_FAST && c->row->impl == JF_MEDIAN_VIDEO)
        st = jf_median_video_launch(ctx, &in, c, &out);
    else if (c->variant == JF_VARIANT_FAST && c->row->impl == JF_MEDIAN_STRIPS)
        st = jf_median_strip_launch(ctx, &in, c, &out);
    else if (c->variant == JF_VARIANT_FAST && c->row->impl == JF_MEDIAN_VIDEO_NETWORKS)
        st = jf_median_fast_video_launch(ctx, &in, opt->ksize, c, &out);
    else if (c->variant == JF_VARIANT_FAST)
        st = jf_median_fast_launch(ctx, &in, opt->ksize, c, &out);
    else
        st = jf_median_shared_launch(ctx, &in, opt->ksize, c, &out);
    if (st != JF_OK)
        return st;
    return jf_gpu_finish(ctx, dst, &out);
}
