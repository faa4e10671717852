/* jf_pad: validation and dispatch. */
#include "filters/filters.h"
#include "filters/pad/pad.h"
#include "io/io.h"
#include "pipeline/context.h"
#include "pipeline/errors.h"
#include "pipeline/gpu.h"

static jf_status check_pad(const jf_image *src, int radius, jf_border border, jf_image *dst,
                           int on_gpu)
{
    jf_status st;
    uint64_t pw, ph;
    if ((st = jf_check_image("jf_pad", "source", src, on_gpu)) != JF_OK ||
        (st = jf_check_border("jf_pad", border)) != JF_OK)
        return st;
    if (radius < 0 || radius > 4096)
        return jf_fail(JF_ERR_ARG, "jf_pad: radius %d outside 0..4096", radius);
    pw = (uint64_t)src->width + 2u * (uint64_t)radius;
    ph = (uint64_t)src->height + 2u * (uint64_t)radius;
    if ((st = jf_check_dims("jf_pad", pw, ph, src->channels)) != JF_OK ||
        (dst && dst->data && (st = jf_check_image("jf_pad", "output", dst, on_gpu)) != JF_OK))
        return st;
    return jf_image_prepare(dst, (int)pw, (int)ph, src->channels);
}

jf_status jf_pad(jf_context *ctx, const jf_image *src, int radius, jf_border border,
                 jf_image *dst)
{
#ifdef JF_HAVE_CUDA
    if (jf_use_gpu(ctx, JF_VARIANT_AUTO)) {
        jf_status st = check_pad(src, radius, border, dst, 1);
        return st != JF_OK ? st : jf_pad_cuda(ctx, src, radius, border, dst);
    }
#endif
    return jf_pad_host(ctx, src, radius, border, dst);
}

jf_status jf_pad_host(jf_context *ctx, const jf_image *src, int radius, jf_border border,
                      jf_image *dst)
{
    jf_status st;
    double t0 = jf_now_ms();
    uint64_t pw, ph;

    if ((st = check_pad(src, radius, border, dst, 0)) != JF_OK)
        return st;
    pw = (uint64_t)dst->width;
    ph = (uint64_t)dst->height;
    if ((st = jf_pad_cpu(src, radius, border, dst)) != JF_OK)
        return st;
    jf_record(ctx, "pad", "cpu", 2 * radius + 1, src, jf_now_ms() - t0,
              (uint64_t)src->width * src->height * src->channels, pw * ph * (uint64_t)src->channels);
    return JF_OK;
}
