/* The rank filters' entry: checks, the resolver's choice, the chosen row. */
#include "filters/rank/rank.h"
#include "filters/filters.h"
#include "filters/ops.h"
#include "filters/resolve.h"
#include "core/errors.h"
#include "core/image.h"

jf_status jf_rank(jf_context *ctx, const jf_image *src, jf_image *dst, int k, jf_border border,
                  jf_variant variant, int max)
{
    const char *fn = max ? "dilate" : "erode";
    const jf_rank_which which = {max};
    const int on_gpu = jf_use_gpu(ctx, variant);
    jf_cpu_call call;
    jf_choice choice;
    jf_status st;
    if ((st = jf_check_image(fn, "source", src, on_gpu)) != JF_OK ||
        (dst && dst->data && (st = jf_check_image(fn, "output", dst, on_gpu)) != JF_OK) ||
        (st = jf_check_ksize(fn, k, JF_RANK_MAX_KSIZE)) != JF_OK ||
        (st = jf_check_border(fn, border)) != JF_OK ||
        (st = jf_choose(ctx, &jf_rank_family, fn, src, k, 0, NULL, variant, 0, 0, &choice)) != JF_OK ||
        (st = jf_image_prepare(dst, src->width, src->height, src->channels, src->sample)) != JF_OK)
        return st;
#ifdef JF_HAVE_CUDA
    if (choice.variant != JF_VARIANT_CPU)
        return jf_rank_cuda(ctx, src, dst, k, border, max, &choice);
#endif
    call = jf_cpu_call_of(ctx, src, dst, k, border);
    call.args = &which;
    return jf_cpu_row_run(&choice, fn, &call);
}
