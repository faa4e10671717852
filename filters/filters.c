/* Argument checks shared by every operation. */
#include "filters/filters.h"
#include "core/errors.h"
#include "core/names.h"

jf_status jf_check_host_image(const char *fn, const char *what, const jf_image *img)
{
    if (!img || !img->data)
        return jf_fail(JF_ERR_ARG, "%s: %s image is NULL", fn, what);
    if (img->width < 1 || img->height < 1 || img->channels < 1 || img->channels > 4)
        return jf_fail(JF_ERR_ARG, "%s: %s image has invalid shape %dx%dx%d", fn, what,
                       img->width, img->height, img->channels);
    if (img->stride < (size_t)img->width * (size_t)img->channels)
        return jf_fail(JF_ERR_ARG, "%s: %s image stride %zu is shorter than a row", fn, what,
                       img->stride);
    if ((unsigned)img->location >= JF_LOC_COUNT)
        return jf_fail(JF_ERR_ARG, "%s: %s image has unknown location %d", fn, what,
                       (int)img->location);
    if (img->location == JF_LOC_DEVICE)
        return jf_fail(JF_ERR_ARG, "%s: %s image is in device memory; the CPU path needs host memory",
                       fn, what);
    return jf_check_sample(fn, img);
}

jf_status jf_check_sample(const char *fn, const jf_image *img)
{
    if (img->sample != JF_SAMPLE_U8)
        return jf_fail(JF_ERR_UNSUPPORTED, "%s: sample type %d is not supported (8-bit only)", fn,
                       (int)img->sample);
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
            img->stride < (size_t)img->width * (size_t)img->channels)
            return jf_fail(JF_ERR_ARG, "%s: %s image has an invalid shape or location", fn, what);
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
