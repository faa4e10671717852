/* jf_adaptive_median, jf_switching_median, jf_impulse_density: options,
 * validation, padding on the CPU, dispatch, timing. */
#include "filters/filters.h"
#include "filters/impulse/impulse.h"
#include "filters/ops.h"
#include "filters/resolve.h"
#include "filters/pad/pad.h"
#include "core/context.h"
#include "core/errors.h"
#include "core/image.h"
#include "core/options.h"
#include "core/stats.h"
#include "core/util.h"

#include <string.h>

/* The impulse rules are written for 8-bit salt and pepper (0 and 255). */
#define IMPULSE_8BIT_WHY "(the impulse rules are defined for 0 and 255; use median for 16-bit images)"

jf_impulse_options jf_impulse_defaults(void)
{
    jf_impulse_options o = JF_IMPULSE_OPTIONS_INIT;
    return o;
}

/* Options read and checked; `fn` names the caller in errors. */
static jf_status impulse_check(jf_context *ctx, jf_impulse_kind kind, const char *fn,
                               const jf_image *src, const jf_image *dst,
                               const jf_impulse_options *user, jf_impulse_options *opt,
                               int auto_ksize, jf_choice *choice)
{
    jf_status st;
    int on_gpu;
    *opt = jf_impulse_defaults();
    if (auto_ksize)
        opt->max_ksize = 0;
    if (!user && !auto_ksize)
        return jf_fail(JF_ERR_ARG, "%s: options are NULL", fn);
    if ((st = jf_options_read(fn, "jf_impulse_defaults", opt, sizeof *opt, user)) != JF_OK)
        return st;
    on_gpu = jf_use_gpu(ctx, opt->variant);
    if ((st = jf_check_image(fn, "source", src, on_gpu)) != JF_OK ||
        (st = jf_check_8bit(fn, src, IMPULSE_8BIT_WHY)) != JF_OK ||
        (dst && dst->data && (st = jf_check_image(fn, "output", dst, on_gpu)) != JF_OK) ||
        (st = jf_check_border(fn, opt->border)) != JF_OK)
        return st;
    if (opt->max_ksize != 0 &&
        (opt->max_ksize < 3 || opt->max_ksize > JF_IMPULSE_MAX_KSIZE || opt->max_ksize % 2 == 0))
        return jf_fail(JF_ERR_ARG, "%s: largest window %d must be odd, from 3 to %d (or 0: from "
                       "the noise density)", fn, opt->max_ksize, JF_IMPULSE_MAX_KSIZE);
    if (opt->refine != 0 && opt->refine != 1)
        return jf_fail(JF_ERR_ARG, "%s: refine is %d; 0 or 1", fn, opt->refine);
    if (opt->refine && kind != JF_IMPULSE_SWITCHING)
        return jf_fail(JF_ERR_ARG, "%s: refine is for the switching median", fn);
    /* a window chosen later (0): any k of the family decides the variant */
    return jf_choose(ctx, &jf_impulse_family, fn, src, opt->max_ksize ? opt->max_ksize : 3, 0, NULL,
                     opt->variant, 0, 0, choice);
}

/* The filter proper, options checked. */
static jf_status impulse_run(jf_context *ctx, jf_impulse_kind kind, const jf_image *src,
                             jf_image *dst, const jf_impulse_options *opt, const jf_choice *choice)
{
    const char *name = kind == JF_IMPULSE_ADAPTIVE ? "adaptive-median" : "switching-median";
    jf_image padded, first;
    jf_status st;
    double t0;
    if ((st = jf_image_prepare(dst, src->width, src->height, src->channels, src->sample)) != JF_OK)
        return st;
#ifdef JF_HAVE_CUDA
    if (choice->variant != JF_VARIANT_CPU)
        return jf_impulse_cuda(ctx, kind, src, dst, opt);
#else
    (void)choice;
#endif
    if ((st = jf_pad_scratch(ctx, src, opt->max_ksize / 2, opt->border, &padded)) != JF_OK)
        return st;
    first = *dst;
    if (opt->refine) { /* the first pass into scratch, the second into dst */
        first.stride = (size_t)src->width * (size_t)src->channels;
        first.data = (unsigned char *)jf_scratch_get(ctx, JF_SCRATCH_AUX,
                                                     first.stride * (size_t)src->height);
        if (!first.data)
            return JF_ERR_NOMEM;
    }
    t0 = jf_now_ms();
    if ((st = jf_impulse_cpu(ctx, kind, &padded, opt->max_ksize, &first)) != JF_OK ||
        (opt->refine && (st = jf_impulse_refine_cpu(ctx, src, &first, dst)) != JF_OK))
        return st;
    jf_record(ctx, name, "cpu", opt->max_ksize, src, jf_now_ms() - t0,
              (uint64_t)padded.width * padded.height * padded.channels,
              (uint64_t)src->width * src->height * src->channels);
    return JF_OK;
}

static jf_status density_of(jf_context *ctx, const char *fn, const jf_image *img, double *density)
{
    uint64_t counts[2];
    jf_status st;
    double t0 = jf_now_ms();
    const int on_device = img && img->location != JF_LOC_HOST && jf_use_gpu(ctx, JF_VARIANT_AUTO);
    if (!density)
        return jf_fail(JF_ERR_ARG, "%s: density is NULL", fn);
    if ((st = jf_check_image(fn, "image", img, on_device)) != JF_OK ||
        (st = jf_check_8bit(fn, img, IMPULSE_8BIT_WHY)) != JF_OK)
        return st;
#ifdef JF_HAVE_CUDA
    if (on_device)
        st = jf_impulse_count_cuda(ctx, img, counts);
    else
#endif
        st = jf_impulse_count_cpu(ctx, img, counts);
    if (st != JF_OK)
        return st;
    *density = 2.0 * (double)(counts[0] < counts[1] ? counts[0] : counts[1]) /
               ((double)img->width * img->height * img->channels);
    if (!on_device)
        jf_record(ctx, "impulse-density", "cpu", 3, img, jf_now_ms() - t0,
                  (uint64_t)img->width * img->height * img->channels, 0);
    return JF_OK;
}

jf_status jf_impulse_density(jf_context *ctx, const jf_image *img, double *density)
{
    JF_WITH_CONTEXT(ctx, density_of(ctx, "jf_impulse_density", img, density));
}

/* The switching median's largest window for an estimated density, from the
 * sweep in benchmarks/RESULTS.md ("Impulse noise"). */
static int auto_ksize(double density)
{
    /* The window grows only where it finds no clean sample, so a larger
     * limit costs time only in the densest places; at low densities the
     * 3x3 wins (a larger limit trades the majority guess for a far-away
     * median), but near saturated areas 5x5 is the safer from 7.5%. */
    static const struct { double below; int ksize; } rule[] = {
        {0.075, 3}, {0.25, 5}, {0.45, 9}, {0.55, 11}, {0.65, 15}, {0.75, 23},
    };
    size_t i;
    for (i = 0; i < sizeof rule / sizeof rule[0]; i++)
        if (density < rule[i].below)
            return rule[i].ksize;
    return JF_IMPULSE_MAX_KSIZE;
}

/* The adaptive median's largest window for an estimated density, from the
 * sweep in benchmarks/RESULTS.md ("Impulse noise"). */
static int adaptive_ksize(double density)
{
    /* A larger limit never costs quality here (the window stops growing at
     * the first that holds a non-extreme median), only time where windows
     * stay undecided (saturated regions), so the smallest window within
     * 0.05 dB of the best. */
    static const struct { double below; int ksize; } rule[] = {
        {0.15, 5}, {0.25, 7}, {0.45, 9}, {0.55, 15}, {0.65, 19}, {0.75, 23},
    };
    size_t i;
    for (i = 0; i < sizeof rule / sizeof rule[0]; i++)
        if (density < rule[i].below)
            return rule[i].ksize;
    return JF_IMPULSE_MAX_KSIZE;
}

static jf_status impulse_impl(jf_context *ctx, jf_impulse_kind kind, const char *fn,
                              const jf_image *src, jf_image *dst, const jf_impulse_options *user)
{
    jf_impulse_options opt;
    jf_choice choice;
    double density;
    jf_status st = impulse_check(ctx, kind, fn, src, dst, user, &opt, 0, &choice);
    if (st == JF_OK && opt.max_ksize == 0 && (st = density_of(ctx, fn, src, &density)) == JF_OK)
        opt.max_ksize = kind == JF_IMPULSE_ADAPTIVE ? adaptive_ksize(density) : auto_ksize(density);
    return st != JF_OK ? st : impulse_run(ctx, kind, src, dst, &opt, &choice);
}

jf_status jf_adaptive_median(jf_context *ctx, const jf_image *src, jf_image *dst,
                             const jf_impulse_options *opt)
{
    JF_WITH_CONTEXT(ctx, impulse_impl(ctx, JF_IMPULSE_ADAPTIVE, "jf_adaptive_median", src, dst, opt));
}

jf_status jf_switching_median(jf_context *ctx, const jf_image *src, jf_image *dst,
                              const jf_impulse_options *opt)
{
    JF_WITH_CONTEXT(ctx, impulse_impl(ctx, JF_IMPULSE_SWITCHING, "jf_switching_median", src, dst, opt));
}

/* jf_impulse_refine_helps on an image anywhere (a device image is read
 * through a host copy). */
static jf_status refine_helps(jf_context *ctx, const jf_image *src, int *helps)
{
    jf_image host;
    jf_status st;
    if (src->location == JF_LOC_HOST) {
        *helps = jf_impulse_refine_helps(src);
        return JF_OK;
    }
    memset(&host, 0, sizeof host);
    host.width = src->width;
    host.height = src->height;
    host.channels = src->channels;
    host.sample = src->sample;
    host.location = JF_LOC_HOST;
    host.stride = (size_t)src->width * (size_t)src->channels;
    host.data = (unsigned char *)jf_scratch_get(ctx, JF_SCRATCH_AUX, host.stride * (size_t)src->height);
    if (!host.data)
        return JF_ERR_NOMEM;
    if ((st = jf_image_transfer(ctx, src, &host)) == JF_OK)
        *helps = jf_impulse_refine_helps(&host);
    return st;
}

static jf_status auto_impl(jf_context *ctx, const jf_image *src, jf_image *dst,
                           const jf_impulse_options *user, jf_impulse_choice *choice)
{
    jf_impulse_options opt;
    jf_impulse_choice c = {0, 0, 0};
    jf_choice variant;
    jf_status st = impulse_check(ctx, JF_IMPULSE_SWITCHING, "jf_impulse_auto", src, dst, user, &opt, 1,
                                 &variant);
    if (st == JF_OK)
        st = density_of(ctx, "jf_impulse_auto", src, &c.density);
    if (st == JF_OK && c.density < JF_IMPULSE_CLEAN_DENSITY) {
        if ((st = jf_image_prepare(dst, src->width, src->height, src->channels, src->sample)) == JF_OK)
            st = jf_image_transfer(ctx, src, dst);
    } else if (st == JF_OK) {
        c.max_ksize = opt.max_ksize ? opt.max_ksize : auto_ksize(c.density);
        opt.max_ksize = c.max_ksize;
        /* the smoothing pass helps where few clean samples back the first
         * estimates; where many do, it helps smooth photos and blurs fine
         * texture, so the image is asked */
        opt.refine = 1;
        if (c.density < JF_IMPULSE_REFINE_DENSITY)
            st = refine_helps(ctx, src, &opt.refine);
        c.filtered = opt.refine ? 2 : 1;
        if (st == JF_OK)
            st = impulse_run(ctx, JF_IMPULSE_SWITCHING, src, dst, &opt, &variant);
    }
    if (choice)
        *choice = c;
    return st;
}

jf_status jf_impulse_auto(jf_context *ctx, const jf_image *src, jf_image *dst,
                          const jf_impulse_options *opt, jf_impulse_choice *choice)
{
    JF_WITH_CONTEXT(ctx, auto_impl(ctx, src, dst, opt, choice));
}
