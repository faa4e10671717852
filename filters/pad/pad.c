/* jf_pad: validation and dispatch; the padded copy the CPU filters read. */
#include "filters/filters.h"
#include "filters/pad/pad.h"
#include "filters/ops.h"
#include "filters/resolve.h"
#include "core/context.h"
#include "core/errors.h"
#include "core/image.h"
#include "core/stats.h"
#include "core/util.h"

#include <stdlib.h>
#include <string.h>

/* The padded output: may pass the pixel limit by its margin. */
static jf_status pad_prepare(jf_image *dst, int pw, int ph, int ch, jf_sample sample)
{
    size_t row = (size_t)pw * (size_t)ch * jf_sample_size(sample);
    if (!dst)
        return jf_fail(JF_ERR_ARG, "jf_pad: output image is NULL");
    if (dst->data)
        return jf_image_prepare(dst, pw, ph, ch, sample);
    memset(dst, 0, sizeof *dst);
    if (!(dst->data = (unsigned char *)malloc(row * (size_t)ph)))
        return jf_fail(JF_ERR_NOMEM, "jf_pad: cannot allocate %dx%dx%d", pw, ph, ch);
    dst->width = pw;
    dst->height = ph;
    dst->channels = ch;
    dst->stride = row;
    dst->owned = 1;
    dst->sample = sample;
    return JF_OK;
}

static jf_status check_pad(const jf_image *src, int radius, jf_border border, jf_image *dst,
                           int on_gpu)
{
    jf_status st;
    uint64_t pw, ph;
    if ((st = jf_check_image_any("jf_pad", "source", src, on_gpu)) != JF_OK ||
        (st = jf_check_border("jf_pad", border)) != JF_OK)
        return st;
    if (radius < 0 || radius > 4096)
        return jf_fail(JF_ERR_ARG, "jf_pad: radius %d outside 0..4096", radius);
    pw = (uint64_t)src->width + 2u * (uint64_t)radius;
    ph = (uint64_t)src->height + 2u * (uint64_t)radius;
    if ((st = jf_check_size("jf_pad", pw, ph, src->channels)) != JF_OK ||
        (dst && dst->data && (st = jf_check_image_any("jf_pad", "output", dst, on_gpu)) != JF_OK))
        return st;
    return pad_prepare(dst, (int)pw, (int)ph, src->channels, src->sample);
}

static void record_pad(jf_context *ctx, const jf_image *src, int radius, double ms)
{
    const uint64_t pw = (uint64_t)src->width + 2u * (uint64_t)radius;
    const uint64_t ph = (uint64_t)src->height + 2u * (uint64_t)radius;
    jf_record(ctx, "pad", "cpu", 2 * radius + 1, src, ms,
              (uint64_t)src->width * src->height * src->channels * jf_bps(src),
              pw * ph * (uint64_t)src->channels * jf_bps(src));
}

static jf_status pad_impl(jf_context *ctx, const jf_image *src, int radius, jf_border border,
                          jf_image *dst)
{
    const int on_gpu = jf_use_gpu(ctx, JF_VARIANT_AUTO);
    double t0 = jf_now_ms();
    jf_choice choice;
    jf_status st;
    if ((st = check_pad(src, radius, border, dst, on_gpu)) != JF_OK ||
        (st = jf_choose(ctx, &jf_pad_family, "jf_pad", src, 2 * radius + 1, 0, NULL, JF_VARIANT_AUTO, 0, 0,
                        &choice)) != JF_OK)
        return st;
#ifdef JF_HAVE_CUDA
    if (on_gpu)
        return jf_pad_cuda(ctx, src, radius, border, dst);
#endif
    if ((st = jf_pad_cpu(src, radius, border, dst)) != JF_OK)
        return st;
    record_pad(ctx, src, radius, jf_now_ms() - t0);
    return JF_OK;
}

jf_status jf_pad(jf_context *ctx, const jf_image *src, int radius, jf_border border,
                 jf_image *dst)
{
    JF_WITH_CONTEXT(ctx, pad_impl(ctx, src, radius, border, dst));
}

jf_status jf_pad_scratch(jf_context *ctx, const jf_image *src, int radius, jf_border border,
                         jf_image *padded)
{
    const int pw = src->width + 2 * radius, ph = src->height + 2 * radius;
    const size_t row = (size_t)pw * (size_t)src->channels * jf_bps(src);
    double t0 = jf_now_ms();
    unsigned char *buf;
    jf_status st;
    if ((st = jf_check_size("padded image", (uint64_t)pw, (uint64_t)ph, src->channels)) != JF_OK)
        return st;
    if (!(buf = (unsigned char *)jf_scratch_get(ctx, JF_SCRATCH_PAD, row * (size_t)ph)))
        return JF_ERR_NOMEM;
    *padded = jf_image_wrap_as(buf, pw, ph, src->channels, row, src->sample);
    if ((st = jf_pad_cpu(src, radius, border, padded)) != JF_OK)
        return st;
    record_pad(ctx, src, radius, jf_now_ms() - t0);
    return JF_OK;
}
