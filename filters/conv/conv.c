/* jf_convolve: options, validation, separability, padding, dispatch, timing. */
#include "filters/conv/conv.h"
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

jf_conv_options jf_conv_defaults(void)
{
    jf_conv_options o = JF_CONV_OPTIONS_INIT;
    return o;
}

/* The CPU path `auto` takes for these weights: 16-bit fixed point for
 * separable 8-bit weights that allow it (qcol, qrow filled), the FFT where
 * it is the cheaper and keeps within one level, else the float sum. */
enum cpu_path { CPU_FLOAT, CPU_FIXED, CPU_FFT };
static enum cpu_path auto_cpu_path(const jf_image *src, int ksize, const float *weights,
                                   int separable, const float *col, const float *row,
                                   uint16_t *qcol, uint16_t *qrow)
{
    if (separable)
        return jf_conv_fixed_weights(src, ksize, col, row, qcol, qrow) ? CPU_FIXED : CPU_FLOAT;
    return jf_conv_fft_plan(src, ksize, weights) ? CPU_FFT : CPU_FLOAT;
}

static jf_status conv_impl(jf_context *ctx, const jf_image *src, jf_image *dst,
                           const jf_conv_options *user)
{
    jf_conv_options opt = jf_conv_defaults();
    float col[JF_CONV_MAX_KSIZE], row[JF_CONV_MAX_KSIZE];
    uint16_t qcol[JF_CONV_MAX_KSIZE], qrow[JF_CONV_MAX_KSIZE];
    jf_choice choice;
    jf_image copy;
    jf_status st;
    int i, separable, fixed, fft, on_gpu;
    enum cpu_path path;
    double t0;

    if (!user)
        return jf_fail(JF_ERR_ARG, "jf_convolve: options are NULL");
    if ((st = jf_options_read("jf_convolve", "jf_conv_defaults", &opt, sizeof opt, user)) != JF_OK)
        return st;
    if (!opt.weights)
        return jf_fail(JF_ERR_ARG, "jf_convolve: weights are NULL");
    on_gpu = jf_use_gpu(ctx, opt.variant);
    if ((st = jf_check_image("jf_convolve", "source", src, on_gpu)) != JF_OK ||
        (dst && dst->data && (st = jf_check_image("jf_convolve", "output", dst, on_gpu)) != JF_OK) ||
        (st = jf_check_ksize("jf_convolve", opt.ksize, JF_CONV_MAX_KSIZE)) != JF_OK ||
        (st = jf_check_border("jf_convolve", opt.border)) != JF_OK)
        return st;
    for (i = 0; i < opt.ksize * opt.ksize; i++)
        if (!isfinite(opt.weights[i]) || fabsf(opt.weights[i]) > 1e30f)
            return jf_fail(JF_ERR_ARG, "jf_convolve: weight %d (%g) is not a finite number of "
                           "at most 1e30", i, (double)opt.weights[i]);
    separable = opt.ksize > 1 && jf_kernel_separate(opt.weights, opt.ksize, col, row);
    if ((st = jf_choose(ctx, &jf_conv_family, "jf_convolve", src, opt.ksize, separable, opt.variant,
                        opt.block_x, opt.block_y, &choice)) != JF_OK ||
        (st = jf_image_prepare(dst, src->width, src->height, src->channels, src->sample)) != JF_OK)
        return st;
#ifdef JF_HAVE_CUDA
    if (choice.variant != JF_VARIANT_CPU)
        return jf_convolve_cuda(ctx, src, dst, &opt, &choice, separable ? col : NULL,
                                separable ? row : NULL);
#endif
    if ((st = jf_source_apart(ctx, &src, dst, &copy)) != JF_OK)
        return st;
    /* `auto` on the CPU: 16-bit fixed point or the FFT where they apply
     * (within one level); asked for by name, the float reference */
    path = opt.variant == JF_VARIANT_AUTO
               ? auto_cpu_path(src, opt.ksize, opt.weights, separable, col, row, qcol, qrow)
               : CPU_FLOAT;
    fixed = path == CPU_FIXED;
    fft = path == CPU_FFT;
    t0 = jf_now_ms();
    st = fixed ? jf_conv_cpu_fixed(ctx, src, opt.ksize, opt.border, qcol, qrow, dst)
         : fft ? jf_conv_cpu_fft(ctx, src, opt.ksize, opt.border, opt.weights, dst)
               : jf_conv_cpu(ctx, src, opt.ksize, opt.border, opt.weights, separable ? col : NULL,
                             separable ? row : NULL, dst);
    if (st == JF_OK)
        jf_record(ctx, "conv", fixed ? "cpu-fixed" : fft ? "cpu-fft" : separable ? "cpu-separable" : "cpu",
                  opt.ksize, src, jf_now_ms() - t0,
                  (uint64_t)src->width * src->height * src->channels * jf_bps(src),
                  (uint64_t)src->width * src->height * src->channels * jf_bps(src));
    return st;
}

jf_status jf_convolve(jf_context *ctx, const jf_image *src, jf_image *dst,
                      const jf_conv_options *opt)
{
    JF_WITH_CONTEXT(ctx, conv_impl(ctx, src, dst, opt));
}

size_t jf_conv_cpu_work_bytes(const jf_image *shape, int ksize, const float *weights, int threads)
{
    float col[JF_CONV_MAX_KSIZE], row[JF_CONV_MAX_KSIZE];
    uint16_t qcol[JF_CONV_MAX_KSIZE], qrow[JF_CONV_MAX_KSIZE];
    const int bands = threads < 1 ? 1 : threads < shape->height ? threads : shape->height;
    int separable;
    size_t direct, other = 0;
    if (ksize < 1 || ksize > JF_CONV_MAX_KSIZE || !weights)
        return 0;
    /* what jf_convolve's `auto` runs on the CPU, or the float reference
     * where it is asked for by name: the larger of the two */
    separable = ksize > 1 && jf_kernel_separate(weights, ksize, col, row);
    direct = jf_conv_cpu_bytes(shape, ksize, separable, bands);
    switch (auto_cpu_path(shape, ksize, weights, separable, col, row, qcol, qrow)) {
    case CPU_FIXED: other = jf_conv_fixed_bytes(shape, ksize, bands); break;
    case CPU_FFT: other = jf_conv_fft_bytes(shape, ksize, threads); break;
    case CPU_FLOAT: break;
    }
    return direct > other ? direct : other;
}
