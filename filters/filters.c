/* Argument checks shared by every operation. */
#include "filters/filters.h"
#include "core/context.h"
#include "core/errors.h"
#include "core/image.h"
#include "core/names.h"
#include "core/gpu.h"
#include "core/profile.h"
#include "core/stats.h"
#include "core/util.h"
#include "filters/pad/pad.h"
#include "filters/resolve.h"

#include <math.h>
#include <string.h>

/* The sample type is known and its data and stride aligned to it. */
static jf_status check_known_sample(const char *fn, const jf_image *img)
{
    if (!jf_sample_size(img->sample))
        return jf_fail(JF_ERR_UNSUPPORTED, "%s: unknown sample type %d (u8, u16 and f32 are "
                       "supported)", fn, (int)img->sample);
    if (!jf_image_aligned(img))
        return jf_fail(JF_ERR_ARG, "%s: %s image data and stride must be multiples of %d bytes",
                       fn, jf_sample_name(img->sample), (int)jf_sample_size(img->sample));
    return JF_OK;
}

jf_status jf_check_sample(const char *fn, const jf_image *img)
{
    jf_status st;
    if ((st = check_known_sample(fn, img)) != JF_OK)
        return st;
    if (img->sample == JF_SAMPLE_F32)
        return jf_fail(JF_ERR_UNSUPPORTED, "%s: takes 8- and 16-bit samples; float32 images go to "
                       "the median, the convolutions (box, gauss, sharpen, laplace, conv), pad, "
                       "psnr and ssim", fn);
    return JF_OK;
}

static jf_status check_host(const char *fn, const char *what, const jf_image *img, int floats)
{
    jf_status st;
    if (!img || !img->data)
        return jf_fail(JF_ERR_ARG, "%s: %s image is NULL", fn, what);
    if (img->width < 1 || img->height < 1 || img->channels < 1 || img->channels > 4)
        return jf_fail(JF_ERR_ARG, "%s: %s image has invalid shape %dx%dx%d", fn, what,
                       img->width, img->height, img->channels);
    if ((st = floats ? check_known_sample(fn, img) : jf_check_sample(fn, img)) != JF_OK)
        return st;
    if (img->stride < jf_row_bytes(img))
        return jf_fail(JF_ERR_ARG, "%s: %s image stride %zu is shorter than a row", fn, what,
                       img->stride);
    if ((unsigned)img->location >= JF_LOC_COUNT)
        return jf_fail(JF_ERR_ARG, "%s: %s image has unknown location %d", fn, what,
                       (int)img->location);
    if (img->location == JF_LOC_DEVICE)
        return jf_fail(JF_ERR_ARG, "%s: %s image is in device memory; the CPU path needs host memory",
                       fn, what);
    return JF_OK;
}

jf_status jf_check_host_image(const char *fn, const char *what, const jf_image *img)
{
    return check_host(fn, what, img, 0);
}

jf_status jf_check_8bit(const char *fn, const jf_image *img, const char *why)
{
    if (img->sample != JF_SAMPLE_U8)
        return jf_fail(JF_ERR_UNSUPPORTED, "%s: takes 8-bit samples only; this image has %s samples%s%s",
                       fn, jf_sample_name(img->sample), why ? " " : "", why ? why : "");
    return JF_OK;
}

jf_status jf_choose(jf_context *ctx, const jf_family *f, const char *fn, const jf_image *src,
                    int k, int rank1, const float *weights, jf_variant asked, int bx, int by,
                    jf_choice *out)
{
    jf_resolve_in in;
    jf_status st;
    memset(&in, 0, sizeof in);
    in.family = f;
    in.fn = fn;
    in.dev = ctx && jf_use_gpu(ctx, asked) ? jf_gpu_info(ctx) : NULL;
    in.shape.width = src->width;
    in.shape.height = src->height;
    in.shape.channels = src->channels;
    in.shape.sample = src->sample;
    in.shape.rank1 = rank1;
    in.shape.weights = weights;
    in.k = k;
    in.asked = asked;
    in.block_x = bx;
    in.block_y = by;
    in.profile = ctx ? ctx->profile : NULL;
    if ((st = jf_resolve(&in, out)) == JF_OK)
        jf_choice_record(ctx, out);
    return st;
}

jf_cpu_call jf_cpu_call_of(jf_context *ctx, const jf_image *src, jf_image *dst, int k,
                           jf_border border)
{
    jf_cpu_call call;
    memset(&call, 0, sizeof call);
    call.ctx = ctx;
    call.src = src;
    call.dst = dst;
    call.k = k;
    call.border = border;
    return call;
}

jf_status jf_cpu_row_run(const jf_choice *choice, const char *family, jf_cpu_call *call)
{
    const jf_image *src = call->src;
    const uint64_t bytes = (uint64_t)src->width * src->height * src->channels * jf_bps(src);
    jf_status st;
    if (!choice->row || choice->row->variant != JF_VARIANT_CPU || !choice->row->cpu)
        return jf_fail(JF_ERR_INTERNAL, "%s: the CPU row chosen for k = %d has no implementation",
                       family, call->k);
    call->stat = "cpu";
    call->bytes_read = bytes;
    call->t0 = jf_now_ms();
    if ((st = choice->row->cpu(call)) == JF_OK)
        jf_record(call->ctx, family, call->stat, call->k, src, jf_now_ms() - call->t0,
                  call->bytes_read, bytes);
    return st;
}

int jf_use_gpu(const jf_context *ctx, jf_variant variant)
{
    return jf_context_backend(ctx) == JF_BACKEND_CUDA && variant != JF_VARIANT_CPU;
}

static jf_status check_image(const char *fn, const char *what, const jf_image *img, int on_gpu,
                             int floats)
{
    if (on_gpu && img && img->data && img->location != JF_LOC_HOST) {
        if ((unsigned)img->location >= JF_LOC_COUNT || img->width < 1 || img->height < 1 ||
            img->channels < 1 || img->channels > 4 ||
            !jf_sample_size(img->sample) || img->stride < jf_row_bytes(img))
            return jf_fail(JF_ERR_ARG, "%s: %s image has an invalid shape, sample type or location",
                           fn, what);
        return floats ? check_known_sample(fn, img) : jf_check_sample(fn, img);
    }
    return check_host(fn, what, img, floats);
}

jf_status jf_check_image(const char *fn, const char *what, const jf_image *img, int on_gpu)
{
    return check_image(fn, what, img, on_gpu, 0);
}

jf_status jf_check_image_any(const char *fn, const char *what, const jf_image *img, int on_gpu)
{
    return check_image(fn, what, img, on_gpu, 1);
}

jf_status jf_check_ksize(const char *fn, int ksize, int max)
{
    if (ksize < 1 || ksize > max || ksize % 2 == 0)
        return jf_fail(JF_ERR_ARG, "%s: kernel size %d must be odd and between 1 and %d", fn,
                       ksize, max);
    return JF_OK;
}

jf_status jf_source_apart(jf_context *ctx, const jf_image **src, const jf_image *dst,
                          jf_image *copy)
{
    const unsigned char *s = (*src)->data, *d = dst->data;
    const size_t sn = (size_t)((*src)->height - 1) * (*src)->stride + jf_row_bytes(*src);
    const size_t dn = (size_t)(dst->height - 1) * dst->stride + jf_row_bytes(dst);
    jf_status st;
    if (!s || !d || s + sn <= d || d + dn <= s)
        return JF_OK;
    if ((st = jf_pad_scratch(ctx, *src, 0, JF_BORDER_ZERO, copy)) != JF_OK)
        return st;
    *src = copy;
    return JF_OK;
}

jf_status jf_check_border(const char *fn, jf_border border)
{
    if ((unsigned)border >= JF_BORDER_COUNT)
        return jf_fail(JF_ERR_ARG, "%s: unknown border mode %d", fn, (int)border);
    return JF_OK;
}

jf_status jf_check_ignore(const char *fn, const jf_image *src, const jf_image *dst, int ignore,
                          double value)
{
    const double top = jf_sample_max(src->sample);
    if ((unsigned)ignore >= JF_IGNORE_COUNT)
        return jf_fail(JF_ERR_ARG, "%s: unknown ignore mode %d", fn, ignore);
    if (ignore == JF_IGNORE_NAN && src->sample != JF_SAMPLE_F32)
        return jf_fail(JF_ERR_ARG, "%s: ignoring NaN needs float32 samples; this image has %s", fn,
                       jf_sample_name(src->sample));
    if (ignore == JF_IGNORE_VALUE && src->sample != JF_SAMPLE_F32 &&
        !(value >= 0 && value <= top && value == (double)(long)value))
        return jf_fail(JF_ERR_ARG, "%s: the value ignored, %g, is not a level of a %s image "
                       "(0 to %.0f)", fn, value, jf_sample_name(src->sample), top);
    if (ignore == JF_IGNORE_VALUE && src->sample == JF_SAMPLE_F32 && isnan(value))
        return jf_fail(JF_ERR_ARG, "%s: to leave NaN out, ignore NaN (JF_IGNORE_NAN)", fn);
    if (src->location == JF_LOC_DEVICE || (dst->data && dst->location == JF_LOC_DEVICE))
        return jf_fail(JF_ERR_UNSUPPORTED, "%s: leaving samples out runs on the CPU; device "
                       "images are not taken", fn);
    return JF_OK;
}
