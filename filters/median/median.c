/* jf_median: options, validation, padding on the CPU, dispatch, timing. */
#include "filters/filters.h"
#include "filters/median/median.h"
#include "filters/ops.h"
#include "filters/resolve.h"
#include "filters/pad/pad.h"
#include "core/context.h"
#include "core/errors.h"
#include "core/image.h"
#include "core/options.h"
#include "core/stats.h"
#include "core/util.h"

#include <math.h>
#include <string.h>

jf_median_options jf_median_defaults(void)
{
    jf_median_options o = JF_MEDIAN_OPTIONS_INIT;
    return o;
}

/* ---- the CPU rows (median_variants.c) --------------------------------------- */

jf_status jf_median_networks_cpu(jf_cpu_call *c)
{
    jf_image copy;
    jf_status st;
    if ((st = jf_source_apart(c->ctx, &c->src, c->dst, &copy)) != JF_OK)
        return st;
    c->t0 = jf_now_ms();
    if (c->src->sample == JF_SAMPLE_F32)
        return jf_median_float_networks(c->ctx, c->src, c->k, c->border, c->dst);
    return jf_median_cpu_small(c->ctx, c->src, c->k, c->border, c->dst);
}

/* The histogram rows read a copy padded by k/2 (left out of the time). */
static jf_status padded_run(jf_cpu_call *c,
                            jf_status (*run)(jf_context *, const jf_image *, int, jf_image *))
{
    jf_image padded;
    jf_status st;
    if ((st = jf_pad_scratch(c->ctx, c->src, c->k / 2, c->border, &padded)) != JF_OK)
        return st;
    c->bytes_read = (uint64_t)padded.width * padded.height * padded.channels * jf_bps(c->src);
    c->t0 = jf_now_ms();
    return run(c->ctx, &padded, c->k, c->dst);
}
jf_status jf_median_histogram_cpu(jf_cpu_call *c) { return padded_run(c, jf_median_cpu); }
jf_status jf_median_histogram16_cpu(jf_cpu_call *c) { return padded_run(c, jf_median_cpu16); }

size_t jf_median_padded_bytes(const jf_shape *s, int k, int threads)
{
    (void)threads;
    return (size_t)(s->width + k - 1) * (size_t)(s->height + k - 1) * (size_t)s->channels *
           jf_sample_size(s->sample);
}

size_t jf_median_select_bytes(const jf_shape *s, int k, int threads)
{
    return jf_median_padded_bytes(s, k, threads) + (size_t)(threads > 0 ? threads : 1) * (size_t)k *
                                                       (size_t)k * sizeof(uint32_t);
}

size_t jf_median_keys_bytes(const jf_shape *s, int k, int threads)
{
    (void)k, (void)threads;
    return s->sample == JF_SAMPLE_F32
               ? (size_t)s->width * (size_t)s->height * (size_t)s->channels * sizeof(uint32_t)
               : 0;
}

/* The median of each window's valid samples: checked here, run on the CPU. */
static jf_status valid_median(jf_context *ctx, const jf_image *src, jf_image *dst,
                              const jf_median_options *opt)
{
    jf_status st;
    double t0;
    if ((st = jf_check_ignore("jf_median", src, dst, opt->ignore, opt->ignore_value)) != JF_OK ||
        (st = jf_image_prepare(dst, src->width, src->height, src->channels, src->sample)) != JF_OK)
        return st;
    t0 = jf_now_ms();
    if ((st = jf_median_valid_cpu(ctx, src, opt->ksize, opt->border, opt->ignore, opt->ignore_value,
                                  dst)) == JF_OK)
        jf_record(ctx, "median", "cpu-valid", opt->ksize, src, jf_now_ms() - t0,
                  (uint64_t)src->width * src->height * src->channels * jf_bps(src),
                  (uint64_t)src->width * src->height * src->channels * jf_bps(src));
    return st;
}

static jf_status median_impl(jf_context *ctx, const jf_image *src, jf_image *dst,
                             const jf_median_options *user)
{
    jf_median_options opt = jf_median_defaults();
    jf_cpu_call call;
    jf_choice choice;
    jf_status st;
    int on_gpu;

    if (!user)
        return jf_fail(JF_ERR_ARG, "jf_median: options are NULL");
    if ((st = jf_options_read("jf_median", "jf_median_defaults", &opt, sizeof opt, user)) != JF_OK)
        return st;
    on_gpu = jf_use_gpu(ctx, opt.variant);
    if ((st = jf_check_image_any("jf_median", "source", src, on_gpu)) != JF_OK ||
        (dst && dst->data && (st = jf_check_image_any("jf_median", "output", dst, on_gpu)) != JF_OK) ||
        (st = jf_check_ksize("jf_median", opt.ksize, JF_MEDIAN_MAX_KSIZE)) != JF_OK ||
        (st = jf_check_border("jf_median", opt.border)) != JF_OK)
        return st;
    if (opt.ignore != JF_IGNORE_NONE)
        return valid_median(ctx, src, dst, &opt);
    if ((st = jf_choose(ctx, &jf_median_family, "jf_median", src, opt.ksize, 0, NULL, opt.variant,
                        opt.block_x, opt.block_y, &choice)) != JF_OK ||
        (st = jf_image_prepare(dst, src->width, src->height, src->channels, src->sample)) != JF_OK)
        return st;
#ifdef JF_HAVE_CUDA
    if (choice.variant != JF_VARIANT_CPU)
        return jf_median_cuda(ctx, src, dst, &opt, &choice);
#endif
    call = jf_cpu_call_of(ctx, src, dst, opt.ksize, opt.border);
    return jf_cpu_row_run(&choice, "median", &call);
}

jf_status jf_median(jf_context *ctx, const jf_image *src, jf_image *dst,
                    const jf_median_options *opt)
{
    JF_WITH_CONTEXT(ctx, median_impl(ctx, src, dst, opt));
}
