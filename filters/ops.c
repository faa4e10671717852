/* The operation table (see ops.h): every operation, declared once. */
#include "filters/ops.h"
#include "filters/conv/conv.h"
#include "filters/denoise/denoise.h"
#include "filters/median/median.h"
#include "filters/rank/rank.h"
#include "filters/filters.h"
#include "core/errors.h"
#include "core/names.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARG(field) offsetof(jf_op_args, field)

/* ---- parameters: one definition each, ranges and defaults per operation ---- */

static const char *const FILTER_VARIANTS[] = {"auto", "cpu", "global", "shared", "fast", NULL};
static const char *const IMPULSE_VARIANTS[] = {"auto", "cpu", "global", NULL};
static const char *const DENOISE_VARIANTS[] = {"auto", "cpu", "global", "fast", NULL};

#define P_KSIZE(def, lo, hi) \
    {{"ksize", 'k', JF_PARAM_INT, "K", "kernel size, odd", def, lo, hi, 1, NULL}, JF_P_KSIZE, ARG(ksize), NULL}
#define P_SIGMA \
    {{"sigma", 0, JF_PARAM_DOUBLE, "S", "Gaussian sigma; with no ksize the size is 2 ceil(3 sigma) + 1", \
      NULL, 0.01, 10, 0, NULL}, JF_P_SIGMA, ARG(sigma), NULL}
#define P_KERNEL \
    {{"kernel", 0, JF_PARAM_FILE, "FILE", "weights file: k lines of k numbers, # comments", NULL, 0, 0, 0, \
      NULL}, JF_P_KERNEL, ARG(kernel_file), NULL}
#define P_WEIGHTS \
    {{"weights", 0, JF_PARAM_WEIGHTS, "W", "k x k weights in memory (instead of a kernel file)", NULL, 0, \
      0, 0, NULL}, JF_P_WEIGHTS, ARG(weights), NULL}
#define P_BORDER \
    {{"border", 'b', JF_PARAM_CHOICE, "MODE", "how pixels beyond the edge are made up ('zero' is the seed report's)", \
      "replicate", 0, 0, 0, jf_border_names}, JF_P_BORDER, ARG(border), NULL}
#define P_VARIANT(choices) \
    {{"variant", 0, JF_PARAM_CHOICE, "NAME", "kernel variant (auto: the fastest measured for the device, size and k)", \
      "auto", 0, 0, 0, choices}, JF_P_VARIANT, ARG(variant), jf_variant_names}
#define P_BLOCK \
    {{"block", 0, JF_PARAM_SIZE, "WxH", "CUDA block shape (default: the variant's; W a multiple of 4)", NULL, \
      0, 0, 0, NULL}, JF_P_BLOCK, ARG(block_x), NULL}
#define P_MAX_KSIZE(def) \
    {{"max-ksize", 0, JF_PARAM_INT, "K", "largest window of the impulse filters, odd", def, 3, \
      JF_IMPULSE_MAX_KSIZE, 1, NULL}, JF_P_MAX_KSIZE, ARG(max_ksize), NULL}
#define P_AMOUNT(name, metavar, help, def, hi) \
    {{name, 0, JF_PARAM_DOUBLE, metavar, help, def, 0, hi, 0, NULL}, JF_P_AMOUNT, ARG(amount), NULL}
#define P_SEED \
    {{"seed", 0, JF_PARAM_INT, "N", "noise seed (same seed, same noise)", "1", 0, 9.2e18, 0, NULL}, \
      JF_P_SEED, ARG(seed), NULL}
#define P_NOISE_SIGMA \
    {{"noise-sigma", 0, JF_PARAM_DOUBLE, "S", "the noise's standard deviation in 8-bit levels " \
      "(x 257 at 16 bits); not given: estimated from each image", NULL, 0.01, 255, 0, NULL}, \
      JF_P_NOISE_SIGMA, ARG(noise_sigma), NULL}
#define P_STRENGTH \
    {{"strength", 0, JF_PARAM_DOUBLE, "X", "how hard to smooth: a factor on the weights' width", "1", \
      0.1, 10, 0, NULL}, JF_P_STRENGTH, ARG(strength), NULL}
#define P_SEARCH \
    {{"search", 0, JF_PARAM_INT, "K", "side of the window searched for similar patches, odd", "21", 3, \
      JF_NLM_MAX_SEARCH, 1, NULL}, JF_P_SEARCH, ARG(search), NULL}
#define P_PATCH \
    {{"patch", 0, JF_PARAM_INT, "K", "side of the patches compared, odd; not given: the side and the " \
      "weights' width that score best on the image (SURE); with --strength, 3 below 15 levels of " \
      "noise, 5 below 40, else 7", NULL, 1, JF_NLM_MAX_PATCH, 1, NULL}, JF_P_PATCH, \
      ARG(patch), NULL}
#define P_SIGMA_COLOR \
    {{"sigma-color", 0, JF_PARAM_DOUBLE, "S", "how far two colours may differ and still be averaged, " \
      "8-bit levels; not given: 2.5 x the estimated noise", NULL, 0.1, 1000, 0, NULL}, \
      JF_P_SIGMA_COLOR, ARG(sigma_color), NULL}
#define P_SIGMA_SPACE \
    {{"sigma-space", 0, JF_PARAM_DOUBLE, "S", "how far in pixels; not given: ksize / 3", NULL, 0.1, \
      100, 0, NULL}, JF_P_SIGMA_SPACE, ARG(sigma_space), NULL}
#define P_EPS \
    {{"eps", 0, JF_PARAM_DOUBLE, "E", "variance below which a window is flattened, 8-bit levels " \
      "squared; not given: twice the estimated noise's", NULL, 0.001, 1e6, 0, NULL}, JF_P_EPS, \
      ARG(eps), NULL}
static const char *const SPEEDS[] = {"quality", "fast", NULL};
#define P_SPEED \
    {{"speed", 0, JF_PARAM_CHOICE, "S", "quality (non-local means) or fast (the guided filter, " \
      "for video rates)", "quality", 0, 0, 0, SPEEDS}, JF_P_SPEED, ARG(speed), NULL}
static const char *const IGNORES[] = {"none", "value", "nan", NULL};
#define P_IGNORE \
    {{"ignore", 0, JF_PARAM_CHOICE, "WHAT", "samples left out of each window: none, value " \
      "(--ignore-value's: depth holes) or nan (float images); the median of the rest, or " \
      "their weighted mean", "none", 0, 0, 0, IGNORES}, \
      JF_P_IGNORE, ARG(ignore), NULL}
#define P_IGNORE_VALUE \
    {{"ignore-value", 0, JF_PARAM_DOUBLE, "V", "the value --ignore value leaves out; given alone, " \
      "it sets --ignore value", "0", -3.4e38, 3.4e38, 0, NULL}, JF_P_IGNORE_VALUE, \
      ARG(ignore_value), NULL}
#define P_DATA_RANGE \
    {{"data-range", 0, JF_PARAM_DOUBLE, "L", "the range of the samples' values (PSNR's peak, SSIM's " \
      "L); not given: 255, 65535, or 1 for float images", NULL, 1e-30, 3.4e38, 0, NULL}, \
      JF_P_DATA_RANGE, ARG(data_range), NULL}
#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const jf_param_def MEDIAN_P[] = {P_KSIZE("3", 1, JF_MEDIAN_MAX_KSIZE), P_BORDER,
                                        P_VARIANT(FILTER_VARIANTS), P_BLOCK, P_IGNORE,
                                        P_IGNORE_VALUE};
static const jf_param_def METRIC_P[] = {P_DATA_RANGE};
static const char *const RANK_VARIANTS[] = {"auto", "cpu", "global", "fast", NULL};
static const jf_param_def RANK_P[] = {P_KSIZE("3", 1, JF_RANK_MAX_KSIZE), P_BORDER,
                                      P_VARIANT(RANK_VARIANTS)};
static const jf_param_def IMPULSE_P[] = {P_MAX_KSIZE("7"), P_BORDER, P_VARIANT(IMPULSE_VARIANTS)};
/* the largest window from the estimated density unless given */
static const jf_param_def DENSITY_IMPULSE_P[] = {P_MAX_KSIZE(NULL), P_BORDER,
                                                 P_VARIANT(IMPULSE_VARIANTS)};
static const jf_param_def BOX_P[] = {P_KSIZE("3", 1, JF_CONV_MAX_KSIZE), P_BORDER,
                                     P_VARIANT(FILTER_VARIANTS), P_BLOCK, P_IGNORE, P_IGNORE_VALUE};
/* sharpen's weights are negative around the centre: no weighted mean */
static const jf_param_def SHARPEN_P[] = {P_KSIZE("3", 1, JF_CONV_MAX_KSIZE), P_BORDER,
                                         P_VARIANT(FILTER_VARIANTS), P_BLOCK};
static const jf_param_def GAUSS_P[] = {P_KSIZE(NULL, 1, JF_CONV_MAX_KSIZE), P_SIGMA, P_BORDER,
                                       P_VARIANT(FILTER_VARIANTS), P_BLOCK, P_IGNORE, P_IGNORE_VALUE};
static const jf_param_def LAPLACE_P[] = {P_KSIZE("3", 3, 3), P_BORDER, P_VARIANT(FILTER_VARIANTS),
                                         P_BLOCK};
static const jf_param_def CONV_P[] = {P_KSIZE(NULL, 1, JF_CONV_MAX_KSIZE), P_KERNEL, P_WEIGHTS,
                                      P_BORDER, P_VARIANT(FILTER_VARIANTS), P_BLOCK, P_IGNORE,
                                      P_IGNORE_VALUE};
static const jf_param_def NLMEANS_P[] = {P_NOISE_SIGMA, P_STRENGTH, P_SEARCH, P_PATCH, P_BORDER,
                                         P_VARIANT(DENOISE_VARIANTS)};
static const jf_param_def BILATERAL_P[] = {P_KSIZE("5", 1, JF_BILATERAL_MAX_KSIZE), P_SIGMA_COLOR,
                                           P_SIGMA_SPACE, P_BORDER, P_VARIANT(DENOISE_VARIANTS)};
static const jf_param_def GUIDED_P[] = {P_KSIZE("5", 1, JF_GUIDED_MAX_KSIZE), P_EPS, P_BORDER,
                                        P_VARIANT(DENOISE_VARIANTS)};
static const jf_param_def AUTO_P[] = {P_SPEED, P_BORDER, P_VARIANT(DENOISE_VARIANTS)};
static const jf_param_def PAD_P[] = {P_KSIZE("3", 1, 8193), P_BORDER};
static const jf_param_def SALT_P[] = {
    P_AMOUNT("density", "D", "fraction of pixels set to 0 or the top level", "0.05", 1.0), P_SEED};
static const jf_param_def GAUSSIAN_P[] = {
    P_AMOUNT("sigma", "SIGMA", "standard deviation in 8-bit levels (x 257 at 16 bits)", "5", 1000.0),
    P_SEED};

jf_op_args jf_op_args_defaults(void)
{
    jf_op_args a;
    memset(&a, 0, sizeof a);
    a.border = JF_BORDER_REPLICATE;
    a.variant = JF_VARIANT_AUTO;
    a.seed = 1;
    a.strength = 1.0;
    return a;
}

/* ---- the operations' glue: arguments to the public calls ------------------- */

/* --ignore, or --ignore-value given alone (which means --ignore value) */
static jf_ignore ignore_of(const jf_op_plan *p)
{
    if (!(p->args.given & JF_P_IGNORE) && (p->args.given & JF_P_IGNORE_VALUE))
        return JF_IGNORE_VALUE;
    return (jf_ignore)p->args.ignore;
}

static jf_status median_apply(jf_context *ctx, const jf_op_plan *p, jf_image *src, jf_image *dst)
{
    jf_median_options o = jf_median_defaults();
    o.ksize = p->ksize;
    o.border = p->args.border;
    o.variant = p->args.variant;
    o.block_x = p->args.block_x;
    o.block_y = p->args.block_y;
    o.ignore = ignore_of(p);
    o.ignore_value = p->args.ignore_value;
    return jf_median(ctx, src, dst, &o);
}

static jf_status erode_apply(jf_context *ctx, const jf_op_plan *p, jf_image *src, jf_image *dst)
{
    return jf_rank(ctx, src, dst, p->ksize, p->args.border, p->args.variant, 0);
}
static jf_status dilate_apply(jf_context *ctx, const jf_op_plan *p, jf_image *src, jf_image *dst)
{
    return jf_rank(ctx, src, dst, p->ksize, p->args.border, p->args.variant, 1);
}

static jf_status conv_apply(jf_context *ctx, const jf_op_plan *p, jf_image *src, jf_image *dst)
{
    jf_conv_options o = jf_conv_defaults();
    o.ksize = p->kernel.ksize;
    o.weights = p->kernel.weights;
    o.border = p->args.border;
    o.variant = p->args.variant;
    o.block_x = p->args.block_x;
    o.block_y = p->args.block_y;
    o.ignore = ignore_of(p);
    o.ignore_value = p->args.ignore_value;
    return jf_convolve(ctx, src, dst, &o);
}

/* Presets: the weights made once per plan. */
static jf_status preset_prepare(jf_op_plan *p, jf_kernel_preset preset)
{
    jf_status st = jf_kernel_make(preset, p->ksize, p->args.sigma, &p->kernel);
    if (st == JF_OK)
        p->ksize = p->kernel.ksize;
    return st;
}
static jf_status box_prepare(jf_op_plan *p) { return preset_prepare(p, JF_KERNEL_BOX); }
static jf_status sharpen_prepare(jf_op_plan *p) { return preset_prepare(p, JF_KERNEL_SHARPEN); }
static jf_status laplace_prepare(jf_op_plan *p) { return preset_prepare(p, JF_KERNEL_LAPLACE); }

static jf_status gauss_prepare(jf_op_plan *p)
{
    /* no size and no sigma: sigma 1 (k = 7) */
    if (p->args.ksize == 0 && p->args.sigma == 0.0)
        p->args.sigma = 1.0;
    return preset_prepare(p, JF_KERNEL_GAUSS);
}

/* conv: weights from memory or from a file. */
static jf_status conv_prepare(jf_op_plan *p)
{
    jf_status st;
    if (p->args.weights) {
        size_t n = (size_t)p->args.weights_ksize * (size_t)p->args.weights_ksize;
        if ((st = jf_check_ksize("conv", p->args.weights_ksize, JF_CONV_MAX_KSIZE)) != JF_OK)
            return st;
        if (!(p->kernel.weights = (float *)malloc(n * sizeof(float))))
            return jf_fail(JF_ERR_NOMEM, "conv: out of memory");
        memcpy(p->kernel.weights, p->args.weights, n * sizeof(float));
        p->kernel.ksize = p->args.weights_ksize;
    } else if (!p->args.kernel_file) {
        return jf_fail(JF_ERR_ARG, "conv needs weights: --kernel FILE (or weights in memory)");
    } else if ((st = jf_kernel_load(p->args.kernel_file, &p->kernel)) != JF_OK) {
        return st;
    }
    if (p->args.ksize && p->args.ksize != p->kernel.ksize)
        return jf_fail(JF_ERR_ARG, "-k %d, but %s holds a %dx%d kernel", p->args.ksize,
                       p->args.kernel_file && !p->args.weights ? p->args.kernel_file : "the weights",
                       p->kernel.ksize, p->kernel.ksize);
    p->ksize = p->kernel.ksize;
    return JF_OK;
}

static jf_impulse_options impulse_options(const jf_op_plan *p)
{
    jf_impulse_options o = jf_impulse_defaults();
    o.max_ksize = p->ksize;
    o.border = p->args.border;
    o.variant = p->args.variant;
    return o;
}
static jf_status adaptive_apply(jf_context *ctx, const jf_op_plan *p, jf_image *src, jf_image *dst)
{
    jf_impulse_options o = impulse_options(p);
    return jf_adaptive_median(ctx, src, dst, &o);
}
static jf_status switching_apply(jf_context *ctx, const jf_op_plan *p, jf_image *src, jf_image *dst)
{
    jf_impulse_options o = impulse_options(p);
    return jf_switching_median(ctx, src, dst, &o);
}

/* auto-impulse: the decision goes into the note. */
static jf_status auto_impulse_apply(jf_context *ctx, const jf_op_plan *p, jf_image *src,
                                    jf_image *dst, jf_op_note *note)
{
    jf_impulse_options o = impulse_options(p);
    jf_impulse_choice c;
    jf_status st;
    o.max_ksize = p->args.max_ksize; /* 0: from the density */
    st = jf_impulse_auto(ctx, src, dst, &o, &c);
    if (note && st == JF_OK) {
        note->estimate = c.density;
        if (c.filtered)
            snprintf(note->text, sizeof note->text, "switching-median k<=%d%s", c.max_ksize,
                     c.filtered == 2 ? " refine" : "");
        else
            snprintf(note->text, sizeof note->text, "none (clean)");
    }
    return st;
}

static jf_status pad_apply(jf_context *ctx, const jf_op_plan *p, jf_image *src, jf_image *dst)
{
    return jf_pad(ctx, src, p->ksize / 2, p->args.border, dst);
}

static jf_status noise_apply(jf_context *ctx, const jf_op_plan *p, jf_noise_kind kind,
                             jf_image *img)
{
    jf_noise_options o = jf_noise_defaults();
    o.kind = kind;
    o.amount = p->args.amount;
    o.seed = (uint64_t)p->args.seed;
    return jf_add_noise(ctx, img, &o);
}
static jf_status salt_pepper_apply(jf_context *ctx, const jf_op_plan *p, jf_image *src, jf_image *dst)
{
    (void)dst;
    return noise_apply(ctx, p, JF_NOISE_SALT_PEPPER, src);
}
static jf_status gaussian_apply(jf_context *ctx, const jf_op_plan *p, jf_image *src, jf_image *dst)
{
    (void)dst;
    return noise_apply(ctx, p, JF_NOISE_GAUSSIAN, src);
}

static jf_status psnr_measure(jf_context *ctx, const jf_op_args *args, const jf_image *a,
                              const jf_image *b, double *v)
{
    return jf_psnr_range(ctx, a, b, args->data_range, v, NULL);
}

static jf_status ssim_measure(jf_context *ctx, const jf_op_args *args, const jf_image *a,
                              const jf_image *b, double *v)
{
    return jf_ssim_range(ctx, a, b, args->data_range, v);
}

/* ---- the table --------------------------------------------------------------- */

#define PARAMS(list) .params = list, .param_count = COUNT(list)

const jf_op jf_ops[] = {
    {.name = "median", .summary = "k x k median of every channel (salt-and-pepper noise)",
     .kind = JF_OP_FILTER, .samples = S8 | S16 | SF, .exact = 1, PARAMS(MEDIAN_P), .stat = "median",
     .family = &jf_median_family,
     .npp = JF_NPP_MEDIAN, .apply = median_apply},
    {.name = "erode", .summary = "k x k minimum of every channel (grey erosion: dark specks grow)",
     .kind = JF_OP_FILTER, .samples = S8 | S16, .exact = 1, PARAMS(RANK_P), .stat = "erode",
     .family = &jf_rank_family, .apply = erode_apply},
    {.name = "dilate", .summary = "k x k maximum of every channel (grey dilation: bright specks grow)",
     .kind = JF_OP_FILTER, .samples = S8 | S16, .exact = 1, PARAMS(RANK_P), .stat = "dilate",
     .family = &jf_rank_family, .apply = dilate_apply},
    {.name = "adaptive-median",
     .summary = "Hwang-Haddad adaptive median: the window grows to --max-ksize (default: from the "
                "noise density)",
     .kind = JF_OP_FILTER, .samples = S8, .exact = 1, PARAMS(DENSITY_IMPULSE_P),
     .stat = "adaptive-median", .family = &jf_impulse_family,
     .apply = adaptive_apply},
    {.name = "switching-median",
     .summary = "salt-and-pepper: 0s and 255s become the median of their clean neighbours",
     .kind = JF_OP_FILTER, .samples = S8, .exact = 1, PARAMS(IMPULSE_P), .stat = "switching-median",
     .family = &jf_impulse_family,
     .apply = switching_apply},
    {.name = "auto-impulse",
     .summary = "salt-and-pepper removal set per image from its estimated noise density",
     .kind = JF_OP_FILTER, .samples = S8, .exact = 1, PARAMS(DENSITY_IMPULSE_P),
     .stat = "switching-median", .family = &jf_impulse_family, .estimate_name = "impulse_density",
     .apply_noted = auto_impulse_apply},
    {.name = "box", .summary = "mean of the k x k window", .kind = JF_OP_FILTER, .samples = S8 | S16 | SF,
     PARAMS(BOX_P), .stat = "conv", .family = &jf_conv_family, .npp = JF_NPP_FILTER, .prepare = box_prepare,
     .apply = conv_apply},
    {.name = "gauss", .summary = "Gaussian blur (Gaussian noise); k, sigma or both",
     .kind = JF_OP_FILTER, .samples = S8 | S16 | SF, PARAMS(GAUSS_P), .stat = "conv",
     .family = &jf_conv_family,
     .npp = JF_NPP_FILTER, .prepare = gauss_prepare, .apply = conv_apply},
    {.name = "sharpen", .summary = "unsharp mask: 2 x the pixel minus the k x k mean",
     .kind = JF_OP_FILTER, .samples = S8 | S16 | SF, PARAMS(SHARPEN_P), .stat = "conv",
     .family = &jf_conv_family,
     .npp = JF_NPP_FILTER, .prepare = sharpen_prepare, .apply = conv_apply},
    {.name = "laplace", .summary = "3 x 3 Laplacian (edges; negative responses saturate to 0)",
     .kind = JF_OP_FILTER, .samples = S8 | S16 | SF, PARAMS(LAPLACE_P), .stat = "conv",
     .family = &jf_conv_family, .npp = JF_NPP_FILTER,
     .prepare = laplace_prepare, .apply = conv_apply},
    {.name = "conv", .summary = "correlation with k x k weights (a kernel file, or weights in memory)",
     .kind = JF_OP_FILTER, .samples = S8 | S16 | SF, PARAMS(CONV_P), .stat = "conv",
     .family = &jf_conv_family,
     .npp = JF_NPP_FILTER, .prepare = conv_prepare, .apply = conv_apply},
    {.name = "nlmeans",
     .summary = "non-local means (sensor noise): each pixel the mean of those whose patches look alike",
     .kind = JF_OP_FILTER, .samples = S8 | S16, PARAMS(NLMEANS_P), .stat = "nlmeans",
     .family = &jf_nlmeans_family, .estimate_name = "noise_sigma",
     .apply_noted = jf_op_nlmeans},
    {.name = "bilateral",
     .summary = "bilateral filter: neighbours weighted by distance and by how alike their colours are",
     .kind = JF_OP_FILTER, .samples = S8 | S16, PARAMS(BILATERAL_P), .stat = "bilateral",
     .family = &jf_bilateral_family,
     .estimate_name = "noise_sigma", .apply_noted = jf_op_bilateral},
    {.name = "guided",
     .summary = "guided filter (the image its own guide): edge-preserving, constant time in k",
     .kind = JF_OP_FILTER, .samples = S8 | S16, PARAMS(GUIDED_P), .stat = "guided",
     .family = &jf_guided_family,
     .estimate_name = "noise_sigma", .apply_noted = jf_op_guided},
    {.name = "auto",
     .summary = "the denoiser chosen per image from its estimated noise: impulses, camera noise, or none",
     .kind = JF_OP_FILTER, .samples = S8 | S16, PARAMS(AUTO_P), .stat = "nlmeans",
     .family = &jf_nlmeans_family, .estimate_name = "estimate",
     .apply_noted = jf_op_auto},
    {.name = "estimate",
     .summary = "the noise of one image: Gaussian level, Poisson-Gaussian model, impulse density",
     .kind = JF_OP_ESTIMATE, .samples = S8 | S16, .stat = "estimate", .family = &jf_estimate_family,
     .estimate = jf_estimate_noise},
    {.name = "pad", .summary = "pad by k/2 on every side (what the filters read)", .kind = JF_OP_PAD,
     .samples = S8 | S16 | SF, .exact = 1, PARAMS(PAD_P), .stat = "pad", .family = &jf_pad_family, .apply = pad_apply},
    {.name = "psnr", .summary = "peak signal-to-noise ratio, dB", .kind = JF_OP_METRIC,
     .samples = S8 | S16 | SF, .stat = "psnr", .family = &jf_psnr_family, PARAMS(METRIC_P), .measure = psnr_measure},
    {.name = "ssim", .summary = "mean SSIM (Wang et al. 2004, as scikit-image)", .kind = JF_OP_METRIC,
     .samples = S8 | S16 | SF, .stat = "ssim", .family = &jf_ssim_family, PARAMS(METRIC_P), .measure = ssim_measure},
    {.name = "salt-pepper", .summary = "impulse noise: fraction D of pixels set to 0 or the top level",
     .kind = JF_OP_NOISE, .samples = S8 | S16, PARAMS(SALT_P), .stat = "noise",
     .family = &jf_noise_family, .apply = salt_pepper_apply},
    {.name = "gaussian", .summary = "Gaussian noise of standard deviation SIGMA levels",
     .kind = JF_OP_NOISE, .samples = S8 | S16, PARAMS(GAUSSIAN_P), .stat = "noise",
     .family = &jf_noise_family, .apply = gaussian_apply},
};
const int jf_op_total = COUNT(jf_ops);

const jf_family *const jf_families[] = {&jf_median_family, &jf_conv_family, &jf_impulse_family,
                                       &jf_pad_family, &jf_psnr_family, &jf_ssim_family,
                                       &jf_noise_family, &jf_nlmeans_family, &jf_bilateral_family,
                                       &jf_guided_family, &jf_estimate_family, &jf_rank_family};
const int jf_family_total = COUNT(jf_families);

const jf_family *jf_family_find(const char *name)
{
    int i;
    for (i = 0; name && i < jf_family_total; i++)
        if (strcmp(jf_families[i]->name, name) == 0)
            return jf_families[i];
    return NULL;
}

const jf_op *jf_op_find(const char *name)
{
    int i;
    for (i = 0; name && i < jf_op_total; i++)
        if (strcmp(jf_ops[i].name, name) == 0)
            return &jf_ops[i];
    return NULL;
}

int jf_op_takes(const jf_op *op, unsigned id)
{
    int i;
    for (i = 0; i < op->param_count; i++)
        if (op->params[i].id == id)
            return 1;
    return 0;
}

const jf_param_def *jf_op_param_def(const jf_op *op, const char *name)
{
    int i;
    for (i = 0; name && i < op->param_count; i++)
        if (strcmp(op->params[i].info.name, name) == 0)
            return &op->params[i];
    return NULL;
}

const char *jf_op_names(jf_op_kind kind, char *buf, size_t size)
{
    size_t used = 0;
    int i;
    if (size)
        buf[0] = '\0';
    for (i = 0; i < jf_op_total; i++)
        if (jf_ops[i].kind == kind && used < size)
            used += (size_t)snprintf(buf + used, size - used, "%s%s", used ? ", " : "", jf_ops[i].name);
    return buf;
}

int jf_op_all_params(jf_param_def *out, int max)
{
    int i, j, n = 0;
    for (i = 0; i < jf_op_total; i++)
        for (j = 0; j < jf_ops[i].param_count; j++) {
            const jf_param_def *p = &jf_ops[i].params[j];
            int k;
            for (k = 0; k < n && k < max; k++)
                if (strcmp(out[k].info.name, p->info.name) == 0)
                    break;
            if (k < n && k < max) {
                if (p->info.min < out[k].info.min)
                    out[k].info.min = p->info.min;
                if (p->info.max > out[k].info.max)
                    out[k].info.max = p->info.max;
                continue;
            }
            if (n < max)
                out[n] = *p;
            n++;
        }
    return n;
}

/* Does any row of the family have variant v at k (on some device)? */
/* The largest window an operation takes: the top of its ksize, max-ksize
 * or search row, so the range is written once; a filter without one
 * (auto) reads what its family's rows reach; 0 for the rest. */
int jf_op_max_ksize(const jf_op *op)
{
    static const unsigned windows[] = {JF_P_KSIZE, JF_P_MAX_KSIZE, JF_P_SEARCH};
    int i, j, top = 0;
    for (j = 0; j < 3; j++)
        for (i = 0; i < op->param_count; i++)
            if (op->params[i].id == windows[j])
                return (int)op->params[i].info.max;
    if (op->kind == JF_OP_FILTER)
        for (i = 0; i < op->family->row_count; i++)
            top = op->family->rows[i].kmax > top ? op->family->rows[i].kmax : top;
    return top;
}

int jf_op_has_variant(const jf_op *op, jf_variant v, int k)
{
    int i;
    if (v == JF_VARIANT_AUTO)
        return 1;
    if (v != JF_VARIANT_CPU && !jf_op_takes(op, JF_P_VARIANT))
        return 0;
    for (i = 0; i < op->family->row_count; i++) {
        const jf_variant_row *r = &op->family->rows[i];
        if (r->variant == v && (op->kind == JF_OP_METRIC || op->kind == JF_OP_NOISE ||
                                (k >= r->kmin && k <= r->kmax)))
            return 1;
    }
    return 0;
}

/* ---- wording made from the variant table -------------------------------------- */

static void appendf(char *out, size_t n, size_t *used, const char *fmt, ...)
{
    va_list ap;
    if (*used >= n)
        return;
    va_start(ap, fmt);
    *used += (size_t)vsnprintf(out + *used, n - *used, fmt, ap);
    va_end(ap);
}

/* "k = 3 to 11", "k = 5", "k >= 13", "every k" within the operation's range */
static void k_words(const jf_op *op, int kmin, int kmax, char *out, size_t n)
{
    const int op_top = jf_op_max_ksize(op), top = op_top ? op_top : kmax;
    const int lo = kmin < 1 ? 1 : kmin, hi = kmax > top ? top : kmax;
    if (lo <= 1 && hi >= top)
        snprintf(out, n, "every k");
    else if (lo == hi)
        snprintf(out, n, "k = %d", lo);
    else if (hi >= top)
        snprintf(out, n, "k >= %d", lo);
    else
        snprintf(out, n, "k = %d to %d", lo, hi);
}

/* "fast at k = 3 to 11 [networks ..., compute capability 9.0]; then ..." */
void jf_op_auto_rule(const jf_op *op, char *out, size_t n)
{
    const jf_family *f = op->family;
    const int top = jf_op_max_ksize(op); /* rows from beyond it are not this operation's */
    size_t used = 0;
    int i, j;
    out[0] = '\0';
    if (!f->pref_count) {
        snprintf(out, n, "the CPU only");
        return;
    }
    for (i = 0; i < f->pref_count; i++) {
        const jf_auto_pref *p = &f->prefs[i];
        char ks[48];
        int rows = 0, said = 0;
        if (top && p->kmin > top)
            continue;
        for (j = 0; j < i; j++) /* a variant's kernels are named once */
            said |= f->prefs[j].variant == p->variant &&
                    !(top && f->prefs[j].kmin > top);
        k_words(op, p->kmin, p->kmax, ks, sizeof ks);
        appendf(out, n, &used, "%s%s", used ? "; then " : "", jf_variant_name(p->variant));
        if (strcmp(ks, "every k") != 0)
            appendf(out, n, &used, " at %s", ks);
        if (p->below_samples > 0)
            appendf(out, n, &used, " below %.0f M samples (x SMs / 132)", p->below_samples / 1e6);
        for (j = 0; j < f->row_count; j++) { /* where its kernels run */
            const jf_variant_row *r = &f->rows[j];
            char rk[48];
            if (said || r->variant != p->variant || (top && r->kmin > top))
                continue;
            k_words(op, r->kmin, r->kmax, rk, sizeof rk);
            appendf(out, n, &used, "%s%s", rows++ ? ", " : " (", r->what);
            if (strcmp(rk, "every k") != 0 && strcmp(rk, ks) != 0)
                appendf(out, n, &used, " at %s", rk);
            if (r->samples == S8 && (op->samples & S16))
                appendf(out, n, &used, ", 8-bit");
            if (r->min_cc)
                appendf(out, n, &used, ", compute capability %d.%d", r->min_cc / 10, r->min_cc % 10);
        }
        if (rows)
            appendf(out, n, &used, ")");
    }
}

void jf_op_samples_rule(const jf_op *op, char *out, size_t n)
{
    const jf_family *f = op->family;
    size_t used = 0;
    int i;
    if (op->samples == S8) {
        snprintf(out, n, "8 bits");
        return;
    }
    appendf(out, n, &used, "8 and 16 bits");
    for (i = 0; i < f->row_count; i++) /* the CPU's rows take both between them */
        if (f->rows[i].samples == S8 && f->rows[i].variant != JF_VARIANT_CPU &&
            jf_op_takes(op, JF_P_VARIANT)) {
            appendf(out, n, &used, " (16 on the GPU: not '%s')", jf_variant_name(f->rows[i].variant));
            break;
        }
    if (op->samples & SF) /* the commands read integer files */
        appendf(out, n, &used, "; float32 from the library and Python");
}

/* ---- the public description, made once -------------------------------------- */

#define MAX_OPS 32
static jf_op_info g_info[MAX_OPS];
static jf_param_info *g_params[MAX_OPS];
static char g_auto[MAX_OPS][1024], g_samples[MAX_OPS][96];
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void make_info(void)
{
    int i, j;
    for (i = 0; i < jf_op_total && i < MAX_OPS; i++) {
        const jf_op *op = &jf_ops[i];
        jf_op_info *info = &g_info[i];
        unsigned v = (1u << JF_VARIANT_AUTO) | (1u << JF_VARIANT_CPU);
        info->name = op->name;
        info->summary = op->summary;
        info->kind = op->kind;
        info->samples = op->samples;
        info->exact = op->exact;
        info->estimate_name = op->estimate_name;
        g_params[i] = (jf_param_info *)calloc((size_t)(op->param_count ? op->param_count : 1),
                                              sizeof *g_params[i]);
        for (j = 0; g_params[i] && j < op->param_count; j++)
            g_params[i][j] = op->params[j].info;
        info->params = g_params[i];
        info->param_count = g_params[i] ? op->param_count : 0;
        if (jf_op_takes(op, JF_P_VARIANT))
            for (j = 0; j < op->family->row_count; j++)
                v |= 1u << op->family->rows[j].variant;
        info->variants = v;
        jf_op_auto_rule(op, g_auto[i], sizeof g_auto[i]);
        jf_op_samples_rule(op, g_samples[i], sizeof g_samples[i]);
        info->auto_rule = g_auto[i];
        info->samples_rule = g_samples[i];
    }
}

const jf_op_info *jf_op_info_of(const jf_op *op)
{
    const int i = (int)(op - jf_ops);
    if (i < 0 || i >= jf_op_total || i >= MAX_OPS)
        return NULL;
    pthread_once(&g_once, make_info);
    return &g_info[i];
}

const jf_op *jf_op_of_info(const jf_op_info *info)
{
    const int i = (int)(info - g_info);
    return info && i >= 0 && i < jf_op_total && i < MAX_OPS ? &jf_ops[i] : NULL;
}

int jf_op_count(void) { return jf_op_total < MAX_OPS ? jf_op_total : MAX_OPS; }

const jf_op_info *jf_op_get(int index)
{
    return index >= 0 && index < jf_op_count() ? jf_op_info_of(&jf_ops[index]) : NULL;
}

const jf_op_info *jf_op_lookup(const char *name)
{
    const jf_op *op = jf_op_find(name);
    return op ? jf_op_info_of(op) : NULL;
}

const jf_param_info *jf_op_param(const jf_op_info *info, const char *name)
{
    int i;
    for (i = 0; info && name && i < info->param_count; i++)
        if (strcmp(info->params[i].name, name) == 0)
            return &info->params[i];
    return NULL;
}

const char *jf_op_kind_name(jf_op_kind kind)
{
    static const char *const names[] = {"filter", "pad", "metric", "noise", "estimate"};
    return (unsigned)kind < JF_OP_KIND_COUNT ? names[kind] : "unknown";
}
