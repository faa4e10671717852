/* jf_convolve: options, validation, separability, padding, dispatch, timing. */
#include "filters/conv/conv.h"
#include "filters/conv/conv_fast_fixed.h"
#include "filters/filters.h"
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

jf_conv_options jf_conv_defaults(void)
{
    jf_conv_options o = JF_CONV_OPTIONS_INIT;
    return o;
}

/* ---- the CPU rows (conv_variants.c) ------------------------------------------ */

static jf_image image_of(const jf_shape *s)
{
    jf_image img;
    memset(&img, 0, sizeof img);
    img.width = s->width;
    img.height = s->height;
    img.channels = s->channels;
    img.sample = s->sample;
    return img;
}

static int bands_of(const jf_shape *s, int threads)
{
    return threads < 1 ? 1 : threads < s->height ? threads : s->height;
}

/* 16-bit fixed point: separable 8-bit weights that allow it, within one level */
static int fixed_quantise(const jf_shape *s, int k, const float *col, const float *row,
                          uint16_t *qcol, uint16_t *qrow)
{
    const jf_image img = image_of(s);
    return col && row && jf_conv_fixed_weights(&img, k, col, row, qcol, qrow);
}

int jf_conv_fixed_takes(const jf_shape *s, int k)
{
    float col[JF_CONV_MAX_KSIZE], row[JF_CONV_MAX_KSIZE];
    uint16_t qcol[JF_CONV_MAX_KSIZE], qrow[JF_CONV_MAX_KSIZE];
    return s->weights && k > 1 && k <= JF_CONV_MAX_KSIZE && jf_kernel_separate(s->weights, k, col, row) &&
           fixed_quantise(s, k, col, row, qcol, qrow);
}

jf_status jf_conv_fixed_cpu(jf_cpu_call *c)
{
    uint16_t qcol[JF_CONV_MAX_KSIZE], qrow[JF_CONV_MAX_KSIZE];
    jf_shape s;
    jf_image copy;
    jf_status st;
    memset(&s, 0, sizeof s);
    s.sample = c->src->sample;
    if (!fixed_quantise(&s, c->k, c->col, c->row, qcol, qrow))
        return jf_fail(JF_ERR_INTERNAL, "conv: fixed point chosen for weights it cannot hold");
    if ((st = jf_source_apart(c->ctx, &c->src, c->dst, &copy)) != JF_OK)
        return st;
    c->stat = "cpu-fixed";
    c->t0 = jf_now_ms();
    return jf_conv_cpu_fixed(c->ctx, c->src, c->k, c->border, qcol, qrow, c->dst);
}

size_t jf_conv_fixed_work(const jf_shape *s, int k, int threads)
{
    const jf_image img = image_of(s);
    return jf_conv_fixed_bytes(&img, k, bands_of(s, threads));
}

int jf_conv_fast_fixed_quantise(const float *weights, int ksize, jf_conv_fast_fixed_weights *out)
{
    double top = 0.0, moved = 0.0;
    int i, shift;
    if (!weights || ksize != 3)
        return 0;
    for (i = 0; i < 9; i++) {
        const double a = fabs((double)weights[i]);
        if (!(a <= 32767.0)) /* NaN, infinite, or past 16 bits at any shift */
            return 0;
        top = a > top ? a : top;
    }
    for (shift = 15; floor(top * ldexp(1.0, shift) + 0.5) > 32767.0; shift--)
        ; /* ends by shift 0: top is at most 32767 */
    for (i = 0; i < 9; i++) {
        const double exact = (double)weights[i] * ldexp(1.0, shift), q = floor(exact + 0.5);
        out->q[i] = (int)q;
        moved += fabs(exact - q);
    }
    out->shift = shift;
    return 255.0 * ldexp(moved, -shift) <= 0.5;
}

int jf_conv_fast_fixed_takes(const jf_shape *s, int k)
{
    jf_conv_fast_fixed_weights q;
    return jf_conv_fast_fixed_quantise(s->weights, k, &q);
}

/* the FFT: weights that are not rank 1, where it is the cheaper */
int jf_conv_fft_takes(const jf_shape *s, int k)
{
    const jf_image img = image_of(s);
    return s->weights && !s->rank1 && jf_conv_fft_plan(&img, k, s->weights);
}

jf_status jf_conv_fft_cpu(jf_cpu_call *c)
{
    jf_image copy;
    jf_status st;
    if ((st = jf_source_apart(c->ctx, &c->src, c->dst, &copy)) != JF_OK)
        return st;
    c->stat = "cpu-fft";
    c->t0 = jf_now_ms();
    return jf_conv_cpu_fft(c->ctx, c->src, c->k, c->border, c->weights, c->dst);
}

size_t jf_conv_fft_work(const jf_shape *s, int k, int threads)
{
    const jf_image img = image_of(s);
    return jf_conv_fft_bytes(&img, k, threads);
}

/* the float sum, the reference: separable for rank-1 weights */
jf_status jf_conv_float_cpu(jf_cpu_call *c)
{
    jf_image copy;
    jf_status st;
    if ((st = jf_source_apart(c->ctx, &c->src, c->dst, &copy)) != JF_OK)
        return st;
    c->stat = c->col ? "cpu-separable" : "cpu";
    c->t0 = jf_now_ms();
    return jf_conv_cpu(c->ctx, c->src, c->k, c->border, c->weights, c->col, c->row, c->dst);
}

size_t jf_conv_float_work(const jf_shape *s, int k, int threads)
{
    const jf_image img = image_of(s);
    return jf_conv_cpu_bytes(&img, k, s->rank1, bands_of(s, threads));
}

/* The weighted mean of each window's valid samples: checked here, run on
 * the CPU. */
static jf_status valid_conv(jf_context *ctx, const jf_image *src, jf_image *dst,
                            const jf_conv_options *opt, const float *col, const float *row)
{
    jf_status st;
    double t0;
    int i;
    if ((st = jf_check_ignore("jf_convolve", src, dst, opt->ignore, opt->ignore_value)) != JF_OK)
        return st;
    for (i = 0; i < opt->ksize * opt->ksize; i++)
        if (opt->weights[i] < 0)
            return jf_fail(JF_ERR_ARG, "jf_convolve: leaving samples out takes weights of zero or "
                           "more (a weighted mean: box, gauss); weight %d is %g", i,
                           (double)opt->weights[i]);
    if ((st = jf_image_prepare(dst, src->width, src->height, src->channels, src->sample)) != JF_OK)
        return st;
    if ((st = jf_context_sync(ctx)) != JF_OK) /* managed and mapped images: the GPU is done */
        return st;
    t0 = jf_now_ms();
    if ((st = jf_conv_valid_cpu(ctx, src, opt->ksize, opt->border, opt->weights, col, row,
                                opt->ignore, opt->ignore_value, dst)) == JF_OK)
        jf_record(ctx, "conv", "cpu-valid", opt->ksize, src, jf_now_ms() - t0,
                  (uint64_t)src->width * src->height * src->channels * jf_bps(src),
                  (uint64_t)src->width * src->height * src->channels * jf_bps(src));
    return st;
}

static jf_status conv_impl(jf_context *ctx, const jf_image *src, jf_image *dst,
                           const jf_conv_options *user)
{
    jf_conv_options opt = jf_conv_defaults();
    float col[JF_CONV_MAX_KSIZE], row[JF_CONV_MAX_KSIZE];
    jf_cpu_call call;
    jf_choice choice;
    jf_status st;
    int i, separable, on_gpu;

    if (!user)
        return jf_fail(JF_ERR_ARG, "jf_convolve: options are NULL");
    if ((st = jf_options_read("jf_convolve", "jf_conv_defaults", &opt, sizeof opt, user)) != JF_OK)
        return st;
    if (!opt.weights)
        return jf_fail(JF_ERR_ARG, "jf_convolve: weights are NULL");
    on_gpu = jf_use_gpu(ctx, opt.variant);
    if ((st = jf_check_image_any("jf_convolve", "source", src, on_gpu)) != JF_OK ||
        (dst && dst->data && (st = jf_check_image_any("jf_convolve", "output", dst, on_gpu)) != JF_OK) ||
        (st = jf_check_ksize("jf_convolve", opt.ksize, JF_CONV_MAX_KSIZE)) != JF_OK ||
        (st = jf_check_border("jf_convolve", opt.border)) != JF_OK)
        return st;
    for (i = 0; i < opt.ksize * opt.ksize; i++)
        if (!isfinite(opt.weights[i]) || fabsf(opt.weights[i]) > 1e30f)
            return jf_fail(JF_ERR_ARG, "jf_convolve: weight %d (%g) is not a finite number of "
                           "at most 1e30", i, (double)opt.weights[i]);
    separable = opt.ksize > 1 && jf_kernel_separate(opt.weights, opt.ksize, col, row);
    if (opt.ignore != JF_IGNORE_NONE)
        return valid_conv(ctx, src, dst, &opt, separable ? col : NULL, separable ? row : NULL);
    if ((st = jf_choose(ctx, &jf_conv_family, "jf_convolve", src, opt.ksize, separable, opt.weights, opt.variant,
                        opt.block_x, opt.block_y, &choice)) != JF_OK ||
        (st = jf_image_prepare(dst, src->width, src->height, src->channels, src->sample)) != JF_OK)
        return st;
#ifdef JF_HAVE_CUDA
    if (choice.variant != JF_VARIANT_CPU)
        return jf_convolve_cuda(ctx, src, dst, &opt, &choice, separable ? col : NULL,
                                separable ? row : NULL);
#endif
    call = jf_cpu_call_of(ctx, src, dst, opt.ksize, opt.border);
    call.weights = opt.weights;
    call.col = separable ? col : NULL;
    call.row = separable ? row : NULL;
    return jf_cpu_row_run(&choice, "conv", &call);
}

jf_status jf_convolve(jf_context *ctx, const jf_image *src, jf_image *dst,
                      const jf_conv_options *opt)
{
    JF_WITH_CONTEXT(ctx, conv_impl(ctx, src, dst, opt));
}
