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
    jf_gpu_call call;
    memset(&call, 0, sizeof call);
    call.choice = c;
    call.k = opt->ksize;
    return jf_gpu_filter_rows(ctx, src, dst, opt->border, call, "median");
}

/* Each GPU row's launch (median_variants.c names them). */
extern "C" jf_status jf_median_global_run(const jf_gpu_call *g)
{
    return jf_median_global_launch(g->ctx, g->in, g->k, g->choice, g->out);
}

extern "C" jf_status jf_median_shared_run(const jf_gpu_call *g)
{
    return jf_median_shared_launch(g->ctx, g->in, g->k, g->choice, g->out);
}

extern "C" jf_status jf_median_fast_run(const jf_gpu_call *g)
{
    return jf_median_fast_launch(g->ctx, g->in, g->k, g->choice, g->out);
}

extern "C" jf_status jf_median_strip_run(const jf_gpu_call *g)
{
    return jf_median_strip_launch(g->ctx, g->in, g->choice, g->out);
}

extern "C" jf_status jf_median_video_run(const jf_gpu_call *g)
{
    return jf_median_video_launch(g->ctx, g->in, g->choice, g->out);
}

extern "C" jf_status jf_median_video_networks_run(const jf_gpu_call *g)
{
    return jf_median_fast_video_launch(g->ctx, g->in, g->k, g->choice, g->out);
}
