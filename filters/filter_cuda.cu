/* The steps every CUDA filter shares: input, output, padding,
 * and the launch check with the timer that turns into a stats record. */
#include "filters/filter_cuda.cuh"
#include "filters/resolve.h"

jf_status jf_gpu_filter_setup(jf_context *ctx, const jf_image *src, const jf_image *dst, int r,
                              jf_border border, jf_filter_in *in, jf_dview *out)
{
    jf_status st;
    jf_gpu_begin(ctx);
    if ((st = jf_gpu_input(ctx, src, JF_SLOT_IN, &in->view)) != JF_OK ||
        (st = jf_gpu_output(ctx, dst, out)) != JF_OK)
        return st;
    in->shape = src;
    in->src = jf_tile_source(in->view.ptr, in->view.pitch, src->width, src->height, src->channels,
                             r, border);
    return JF_OK;
}

jf_status jf_gpu_filter_planes(jf_context *ctx, const jf_filter_in *in, jf_dview *planes,
                               int *plane_rows)
{
    return jf_gpu_pad_planes(ctx, &in->view, in->shape->width, in->shape->height,
                             in->shape->channels, in->shape->sample, in->src.r, in->src.border,
                             planes, plane_rows);
}

jf_status jf_gpu_filter_done(jf_context *ctx, int id, const char *kernel, const char *name,
                             const char *variant, int k, const jf_image *shape, int padded)
{
    const int m = padded ? k - 1 : 0;
    cudaError_t e = cudaPeekAtLastError();
    if (e != cudaSuccess)
        return jf_cuda_fail(kernel, __FILE__, __LINE__, e);
    return jf_gpu_timer_stop(ctx, id, name, variant, k, shape,
                             (uint64_t)(shape->width + m) * (shape->height + m) * shape->channels *
                                 jf_bps(shape),
                             (uint64_t)shape->width * shape->height * shape->channels * jf_bps(shape));
}

jf_status jf_gpu_filter_rows(jf_context *ctx, const jf_image *src, jf_image *dst, jf_border border,
                             jf_gpu_call call, const char *what)
{
    jf_filter_in in;
    jf_dview out;
    jf_status st;
    jf_device_scope scope(ctx);
    if (scope.status != JF_OK)
        return scope.status;
    if (!call.choice || !call.choice->row || !call.choice->row->run)
        return jf_fail(JF_ERR_INTERNAL, "%s: the chosen row has no GPU launch", what);
    if ((st = jf_gpu_filter_setup(ctx, src, dst, call.k / 2, border, &in, &out)) != JF_OK)
        return st;
    call.ctx = ctx;
    call.in = &in;
    call.out = &out;
    if ((st = call.choice->row->run(&call)) != JF_OK)
        return st;
    return jf_gpu_finish(ctx, dst, &out);
}
