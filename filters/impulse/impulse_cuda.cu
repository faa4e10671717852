/* The impulse-noise filters on the CUDA backend: input onto the device, pad
 * to planes (radius max_ksize / 2: the level kernels read their windows
 * from global memory, at sizes that change per pixel), the level kernels,
 * output back or left queued. */
#include "filters/filter_cuda.cuh"
#include "filters/impulse/impulse.h"

jf_status jf_impulse_global_launch(jf_context *ctx, jf_impulse_kind kind, const jf_dview *planes,
                                   int plane_rows, const jf_image *shape, int kmax, int refine,
                                   const jf_dview *out);

extern "C" jf_status jf_impulse_cuda(jf_context *ctx, jf_impulse_kind kind, const jf_image *src,
                                     jf_image *dst, const jf_impulse_options *opt)
{
    jf_filter_in in;
    jf_dview planes, out;
    jf_status st;
    int plane_rows = 0;
    jf_device_scope scope(ctx);
    if (scope.status != JF_OK)
        return scope.status;
    if ((st = jf_gpu_filter_setup(ctx, src, dst, opt->max_ksize / 2, opt->border, &in, &out)) !=
            JF_OK ||
        (st = jf_gpu_filter_planes(ctx, &in, &planes, &plane_rows)) != JF_OK ||
        (st = jf_impulse_global_launch(ctx, kind, &planes, plane_rows, src, opt->max_ksize,
                                             opt->refine, &out)) != JF_OK)
        return st;
    return jf_gpu_finish(ctx, dst, &out);
}
