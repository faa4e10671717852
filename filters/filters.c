/* Argument checks shared by every operation. */
#include "filters/filters.h"
#include "core/context.h"
#include "core/errors.h"
#include "core/image.h"
#include "core/names.h"
#include "core/profile.h"

jf_status jf_check_host_image(const char *fn, const char *what, const jf_image *img)
{
    jf_status st;
    if (!img || !img->data)
        return jf_fail(JF_ERR_ARG, "%s: %s image is NULL", fn, what);
    if (img->width < 1 || img->height < 1 || img->channels < 1 || img->channels > 4)
        return jf_fail(JF_ERR_ARG, "%s: %s image has invalid shape %dx%dx%d", fn, what,
                       img->width, img->height, img->channels);
    if ((st = jf_check_sample(fn, img)) != JF_OK)
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

jf_status jf_check_sample(const char *fn, const jf_image *img)
{
    if (!jf_sample_size(img->sample))
        return jf_fail(JF_ERR_UNSUPPORTED, "%s: unknown sample type %d (8 and 16 bits are "
                       "supported)", fn, (int)img->sample);
    if (img->sample == JF_SAMPLE_U16 && ((uintptr_t)img->data % 2 || img->stride % 2))
        return jf_fail(JF_ERR_ARG, "%s: 16-bit image data and stride must be even (2-byte aligned)",
                       fn);
    return JF_OK;
}

jf_status jf_check_8bit(const char *fn, const jf_image *img, const char *why)
{
    if (img->sample != JF_SAMPLE_U8)
        return jf_fail(JF_ERR_UNSUPPORTED, "%s: takes 8-bit samples only; this image has %d-bit samples%s%s",
                       fn, 8 * (int)jf_sample_size(img->sample), why ? " " : "", why ? why : "");
    return JF_OK;
}

int jf_variant_takes(jf_variant v, jf_sample sample)
{
    return sample == JF_SAMPLE_U8 || v != JF_VARIANT_SHARED;
}

jf_variant jf_variant_fallback(jf_sample sample)
{
    return jf_variant_takes(JF_VARIANT_SHARED, sample) ? JF_VARIANT_SHARED : JF_VARIANT_GLOBAL;
}

jf_variant jf_auto_choice(const jf_context *ctx, const char *op, const jf_image *src, int k,
                          jf_variant builtin, int *bx, int *by)
{
    const jf_profile_choice *c =
        src->sample == JF_SAMPLE_U8
            ? jf_profile_choose(ctx->profile, op, src->channels, src->width, src->height, k)
            : NULL;
    if (!c)
        return builtin;
    if (*bx == 0 && *by == 0) {
        *bx = c->block_x;
        *by = c->block_y;
    }
    return c->variant;
}

jf_status jf_check_variant_sample(const char *fn, jf_variant v, const jf_image *img)
{
    if (!jf_variant_takes(v, img->sample))
        return jf_fail(JF_ERR_UNSUPPORTED, "%s: variant '%s' takes 8-bit samples; %d-bit images "
                       "run 'global', 'fast' (or auto)", fn, jf_variant_name(v),
                       8 * (int)jf_sample_size(img->sample));
    return JF_OK;
}

int jf_use_gpu(const jf_context *ctx, jf_variant variant)
{
    return jf_context_backend(ctx) == JF_BACKEND_CUDA && variant != JF_VARIANT_CPU;
}

jf_status jf_check_image(const char *fn, const char *what, const jf_image *img, int on_gpu)
{
    if (on_gpu && img && img->data && img->location != JF_LOC_HOST) {
        if ((unsigned)img->location >= JF_LOC_COUNT || img->width < 1 || img->height < 1 ||
            img->channels < 1 || img->channels > 4 ||
            !jf_sample_size(img->sample) || img->stride < jf_row_bytes(img))
            return jf_fail(JF_ERR_ARG, "%s: %s image has an invalid shape, sample type or location",
                           fn, what);
        return jf_check_sample(fn, img);
    }
    return jf_check_host_image(fn, what, img);
}

jf_status jf_check_ksize(const char *fn, int ksize, int max)
{
    if (ksize < 1 || ksize > max || ksize % 2 == 0)
        return jf_fail(JF_ERR_ARG, "%s: kernel size %d must be odd and between 1 and %d", fn,
                       ksize, max);
    return JF_OK;
}

jf_status jf_check_border(const char *fn, jf_border border)
{
    if ((unsigned)border >= JF_BORDER_COUNT)
        return jf_fail(JF_ERR_ARG, "%s: unknown border mode %d", fn, (int)border);
    return JF_OK;
}

jf_status jf_check_variant(const char *fn, const jf_context *ctx, jf_variant variant)
{
    if ((unsigned)variant >= JF_VARIANT_COUNT)
        return jf_fail(JF_ERR_ARG, "%s: unknown variant %d", fn, (int)variant);
    if (variant > JF_VARIANT_CPU && jf_context_backend(ctx) != JF_BACKEND_CUDA)
        return jf_fail(JF_ERR_ARG, "%s: variant '%s' needs the CUDA backend", fn,
                       jf_variant_name(variant));
    return JF_OK;
}
