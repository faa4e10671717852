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
    if (!c->row || !c->row->run)
        return jf_fail(JF_ERR_INTERNAL, "median: the chosen row has no GPU launch");
    if ((st = jf_gpu_filter_setup(ctx, src, dst, opt->ksize / 2, opt->border, &in, &out)) != JF_OK)
        return st;
    {
        const jf_gpu_call call = {ctx, &in, &out, c, opt->ksize, NULL, NULL, NULL};
        if ((st = c->row->run(&call)) != JF_OK)
            return st;
    }
    return jf_gpu_finish(ctx, dst, &out);
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
