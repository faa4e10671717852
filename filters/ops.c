/* The operation table (see ops.h): every operation, declared once. */
#include "filters/ops.h"
#include "filters/conv/conv.h"
#include "filters/median/median.h"
#include "filters/filters.h"
#include "core/errors.h"
#include "core/names.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARG(field) offsetof(jf_op_args, field)

const jf_op_param jf_op_params[] = {
    {JF_PARAM_KSIZE, "ksize", 'k', JF_PT_INT, "K", "kernel size, odd (default: the filter's; gauss: from --sigma)",
     NULL, 1, JF_MEDIAN_MAX_KSIZE, NULL, ARG(ksize)},
    {JF_PARAM_SIGMA, "sigma", 0, JF_PT_DOUBLE, "S", "Gaussian sigma (default: from -k, else 1.0)",
     NULL, 0.01, 10, NULL, ARG(sigma)},
    {JF_PARAM_KERNEL, "kernel", 0, JF_PT_STRING, "FILE", "weights for --filter conv: k rows of k numbers",
     NULL, 0, 0, NULL, ARG(kernel_file)},
    {JF_PARAM_BORDER, "border", 'b', JF_PT_CHOICE, "MODE", "how pixels beyond the edge are made up ('zero' is the seed report's)",
     "replicate", 0, 0, jf_border_names, ARG(border)},
    {JF_PARAM_VARIANT, "variant", 0, JF_PT_CHOICE, "NAME", "kernel variant (auto: the fastest measured for the device, size and k)",
     "auto", 0, 0, jf_variant_names, ARG(variant)},
    {JF_PARAM_MAX_KSIZE, "max-ksize", 0, JF_PT_INT, "K", "largest window of the impulse filters, odd (default 7; auto-impulse: from the noise density)",
     NULL, 3, JF_IMPULSE_MAX_KSIZE, NULL, ARG(max_ksize)},
};
const int jf_op_param_count = (int)(sizeof jf_op_params / sizeof jf_op_params[0]);

jf_op_args jf_op_args_defaults(void)
{
    jf_op_args a;
    memset(&a, 0, sizeof a);
    a.border = JF_BORDER_REPLICATE;
    a.variant = JF_VARIANT_AUTO;
    a.seed = 1;
    return a;
}

/* ---- the operations' glue: arguments to the public calls ------------------- */

static jf_status median_apply(jf_context *ctx, const jf_op_plan *p, jf_image *src, jf_image *dst)
{
    jf_median_options o = jf_median_defaults();
    o.ksize = p->ksize;
    o.border = p->args.border;
    o.variant = p->args.variant;
    o.block_x = p->args.block_x;
    o.block_y = p->args.block_y;
    return jf_median(ctx, src, dst, &o);
}

static int median_has_variant(jf_variant v, int k)
{
    return v != JF_VARIANT_FAST || jf_median_fast_supports(k);
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
    return jf_convolve(ctx, src, dst, &o);
}

static int conv_has_variant(jf_variant v, int k)
{
    return v != JF_VARIANT_FAST || jf_conv_fast_supports(k);
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

/* conv: weights from a file or from memory. */
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
        return jf_fail(JF_ERR_ARG, "--filter conv needs --kernel FILE");
    } else if ((st = jf_kernel_load(p->args.kernel_file, &p->kernel)) != JF_OK) {
        return st;
    }
    if (p->args.ksize && p->args.ksize != p->kernel.ksize)
        return jf_fail(JF_ERR_ARG, "-k %d, but %s holds a %dx%d kernel", p->args.ksize,
                       p->args.kernel_file ? p->args.kernel_file : "the weights",
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

static int impulse_has_variant(jf_variant v, int k)
{
    (void)k;
    return v != JF_VARIANT_FAST && v != JF_VARIANT_SHARED;
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
            snprintf(note->text, sizeof note->text, "switching-median k<=%d refine", c.max_ksize);
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

static jf_status psnr_measure(jf_context *ctx, const jf_image *a, const jf_image *b, double *v)
{
    return jf_psnr(ctx, a, b, v, NULL);
}

/* ---- the table --------------------------------------------------------------- */

#define V(v) (1u << (v))
#define CUDA_VARIANTS (V(JF_VARIANT_AUTO) | V(JF_VARIANT_CPU) | V(JF_VARIANT_GLOBAL) | V(JF_VARIANT_SHARED))
#define FILTER_PARAMS (JF_PARAM_KSIZE | JF_PARAM_BORDER | JF_PARAM_VARIANT)
#define IMPULSE_PARAMS (JF_PARAM_MAX_KSIZE | JF_PARAM_BORDER | JF_PARAM_VARIANT)
#define IMPULSE_VARIANTS (V(JF_VARIANT_AUTO) | V(JF_VARIANT_CPU) | V(JF_VARIANT_GLOBAL))
#define CONV_VARIANTS (CUDA_VARIANTS | V(JF_VARIANT_FAST))
#define S8 (1u << JF_SAMPLE_U8)
#define S16 (1u << JF_SAMPLE_U16)
#define CONV_AUTO "fast at every k from 3 (unrolled to k = 13, k at run time beyond, separable for rank-1 weights from k = 7; shared, or global at 16 bits, where its tile does not fit), global at k = 1"
#define DEPTHS_GPU16 "8 and 16 bits (16 on the GPU: global and fast, not shared)"

const jf_op jf_ops[] = {
    {.name = "median", .summary = "k x k median of every channel (salt-and-pepper noise)",
     .exact = 1, .kind = JF_OP_FILTER, .stat = "median", .params = FILTER_PARAMS, .default_ksize = 3,
     .max_ksize = JF_MEDIAN_MAX_KSIZE, .variants = CUDA_VARIANTS | V(JF_VARIANT_FAST),
     .samples = S8 | S16, .depths = DEPTHS_GPU16, .auto_rule = "fast (shared min/max networks) at k = 5, 7 (9, 11 on compute capability 9.0) and "
                  "at k = 3 from about 4 million samples; global for smaller k = 3; shared (sliding "
                  "histograms) above (global at 16 bits)",
     .npp = JF_NPP_MEDIAN, .has_variant = median_has_variant, .apply = median_apply},
    {.name = "adaptive-median", .summary = "Hwang-Haddad adaptive median: the window grows to --max-ksize; only impulses change",
     .exact = 1, .kind = JF_OP_FILTER, .stat = "adaptive-median", .params = IMPULSE_PARAMS, .default_ksize = 7,
     .max_ksize = JF_IMPULSE_MAX_KSIZE, .variants = IMPULSE_VARIANTS,
     .samples = S8, .depths = "8 bits (the rules are written for 0 and 255)", .auto_rule = "global (a kernel per window size over the samples still undecided)",
     .has_variant = impulse_has_variant, .apply = adaptive_apply},
    {.name = "switching-median", .summary = "salt-and-pepper: 0s and 255s become the median of their clean neighbours",
     .exact = 1, .kind = JF_OP_FILTER, .stat = "switching-median", .params = IMPULSE_PARAMS, .default_ksize = 7,
     .max_ksize = JF_IMPULSE_MAX_KSIZE, .variants = IMPULSE_VARIANTS,
     .samples = S8, .depths = "8 bits (the rules are written for 0 and 255)", .auto_rule = "global (a kernel per window size over the samples still undecided)",
     .has_variant = impulse_has_variant, .apply = switching_apply},
    {.name = "auto-impulse", .summary = "salt-and-pepper removal set per image from its estimated noise density",
     .exact = 1, .kind = JF_OP_FILTER, .stat = "switching-median", .params = IMPULSE_PARAMS, .default_ksize = 0,
     .max_ksize = JF_IMPULSE_MAX_KSIZE, .variants = IMPULSE_VARIANTS,
     .samples = S8, .depths = "8 bits (the rules are written for 0 and 255)", .auto_rule = "global; the density is counted on the CPU for host images",
     .has_variant = impulse_has_variant, .apply_noted = auto_impulse_apply,
     .estimate_name = "impulse_density"},
    {.name = "box", .summary = "mean of the k x k window", .kind = JF_OP_FILTER, .stat = "conv",
     .params = FILTER_PARAMS, .default_ksize = 3, .max_ksize = JF_CONV_MAX_KSIZE,
     .variants = CONV_VARIANTS, .samples = S8 | S16, .depths = DEPTHS_GPU16, .auto_rule = CONV_AUTO, .npp = JF_NPP_FILTER,
     .has_variant = conv_has_variant, .prepare = box_prepare, .apply = conv_apply},
    {.name = "gauss", .summary = "Gaussian blur (Gaussian noise); -k, --sigma or both",
     .kind = JF_OP_FILTER, .stat = "conv", .params = FILTER_PARAMS | JF_PARAM_SIGMA,
     .default_ksize = 0, .max_ksize = JF_CONV_MAX_KSIZE, .variants = CONV_VARIANTS,
     .samples = S8 | S16, .depths = DEPTHS_GPU16, .auto_rule = CONV_AUTO, .npp = JF_NPP_FILTER, .has_variant = conv_has_variant,
     .prepare = gauss_prepare, .apply = conv_apply},
    {.name = "sharpen", .summary = "unsharp mask: 2 x the pixel minus the k x k mean",
     .kind = JF_OP_FILTER, .stat = "conv", .params = FILTER_PARAMS, .default_ksize = 3,
     .max_ksize = JF_CONV_MAX_KSIZE, .variants = CONV_VARIANTS, .samples = S8 | S16, .depths = DEPTHS_GPU16, .auto_rule = CONV_AUTO,
     .npp = JF_NPP_FILTER, .has_variant = conv_has_variant, .prepare = sharpen_prepare,
     .apply = conv_apply},
    {.name = "laplace", .summary = "3 x 3 Laplacian (edges; negative responses saturate to 0)",
     .kind = JF_OP_FILTER, .stat = "conv", .params = FILTER_PARAMS, .default_ksize = 3,
     .max_ksize = 3, .variants = CONV_VARIANTS, .samples = S8 | S16, .depths = DEPTHS_GPU16, .auto_rule = CONV_AUTO, .npp = JF_NPP_FILTER,
     .has_variant = conv_has_variant, .prepare = laplace_prepare, .apply = conv_apply},
    {.name = "conv", .summary = "correlation with the weights of --kernel FILE",
     .kind = JF_OP_FILTER, .stat = "conv", .params = FILTER_PARAMS | JF_PARAM_KERNEL,
     .default_ksize = 0, .max_ksize = JF_CONV_MAX_KSIZE, .variants = CONV_VARIANTS,
     .samples = S8 | S16, .depths = DEPTHS_GPU16, .auto_rule = CONV_AUTO, .npp = JF_NPP_FILTER, .has_variant = conv_has_variant,
     .prepare = conv_prepare, .apply = conv_apply},
    {.name = "pad", .summary = "pad by k/2 on every side (what the filters read)",
     .exact = 1, .kind = JF_OP_PAD, .stat = "pad", .params = JF_PARAM_KSIZE | JF_PARAM_BORDER,
     .default_ksize = 3, .max_ksize = 8193, .variants = V(JF_VARIANT_AUTO) | V(JF_VARIANT_CPU),
     .samples = S8 | S16, .depths = "8 and 16 bits", .auto_rule = "one kernel", .apply = pad_apply},
    {.name = "psnr", .summary = "peak signal-to-noise ratio, dB", .kind = JF_OP_METRIC,
     .stat = "psnr", .variants = V(JF_VARIANT_AUTO) | V(JF_VARIANT_CPU),
     .samples = S8 | S16, .depths = "8 and 16 bits", .auto_rule = "one kernel", .measure = psnr_measure},
    {.name = "ssim", .summary = "mean SSIM (Wang et al. 2004, as scikit-image)",
     .kind = JF_OP_METRIC, .stat = "ssim", .variants = V(JF_VARIANT_AUTO) | V(JF_VARIANT_CPU),
     .samples = S8 | S16, .depths = "8 and 16 bits", .auto_rule = "two kernels", .measure = jf_ssim},
    {.name = "salt-pepper", .summary = "impulse noise: fraction D of pixels set to 0 or 255",
     .kind = JF_OP_NOISE, .stat = "noise", .params = JF_PARAM_AMOUNT | JF_PARAM_SEED,
     .variants = V(JF_VARIANT_CPU), .samples = S8 | S16, .depths = "8 and 16 bits", .auto_rule = "CPU only", .apply = salt_pepper_apply,
     .amount_arg = "D", .amount_max = 1.0},
    {.name = "gaussian", .summary = "Gaussian noise of standard deviation SIGMA levels",
     .kind = JF_OP_NOISE, .stat = "noise", .params = JF_PARAM_AMOUNT | JF_PARAM_SEED,
     .variants = V(JF_VARIANT_CPU), .samples = S8 | S16, .depths = "8 and 16 bits", .auto_rule = "CPU only", .apply = gaussian_apply,
     .amount_arg = "SIGMA", .amount_max = 1000.0},
};
const int jf_op_count = (int)(sizeof jf_ops / sizeof jf_ops[0]);

const jf_op *jf_op_find(const char *name)
{
    int i;
    for (i = 0; name && i < jf_op_count; i++)
        if (strcmp(jf_ops[i].name, name) == 0)
            return &jf_ops[i];
    return NULL;
}

const char *jf_op_names(jf_op_kind kind, char *buf, size_t size)
{
    size_t used = 0;
    int i;
    if (size)
        buf[0] = '\0';
    for (i = 0; i < jf_op_count; i++)
        if (jf_ops[i].kind == kind && used < size)
            used += (size_t)snprintf(buf + used, size - used, "%s%s", used ? ", " : "", jf_ops[i].name);
    return buf;
}

jf_status jf_op_apply(jf_context *ctx, const jf_op_plan *plan, jf_image *src, jf_image *dst,
                      jf_op_note *note)
{
    if (note) {
        note->text[0] = '\0';
        note->estimate = NAN;
    }
    if (plan->op->apply_noted)
        return plan->op->apply_noted(ctx, plan, src, dst, note);
    if (!plan->op->apply)
        return jf_fail(JF_ERR_ARG, "%s is not applied to an image", plan->op->name);
    return plan->op->apply(ctx, plan, src, dst);
}

int jf_op_has_variant(const jf_op *op, jf_variant v, int k)
{
    if ((unsigned)v >= JF_VARIANT_COUNT || !(op->variants & (1u << v)))
        return 0;
    return !op->has_variant || op->has_variant(v, k);
}

static void describe(jf_op_plan *p)
{
    const jf_op *op = p->op;
    int n = snprintf(p->describe, sizeof p->describe, "%s", op->name);
    if ((op->params & JF_PARAM_KSIZE) && p->ksize && n > 0 && (size_t)n < sizeof p->describe)
        n += snprintf(p->describe + n, sizeof p->describe - (size_t)n, " k=%d", p->ksize);
    if ((op->params & JF_PARAM_MAX_KSIZE) && p->ksize && n > 0 && (size_t)n < sizeof p->describe)
        n += snprintf(p->describe + n, sizeof p->describe - (size_t)n, " k<=%d", p->ksize);
    if ((op->params & JF_PARAM_SIGMA) && p->args.sigma > 0 && n > 0 && (size_t)n < sizeof p->describe)
        n += snprintf(p->describe + n, sizeof p->describe - (size_t)n, " sigma %g", p->args.sigma);
    if ((op->params & JF_PARAM_AMOUNT) && n > 0 && (size_t)n < sizeof p->describe)
        snprintf(p->describe + n, sizeof p->describe - (size_t)n, " %g", p->args.amount);
}

jf_status jf_op_prepare(const jf_op *op, const jf_op_args *args, jf_op_plan *plan)
{
    jf_status st;
    memset(plan, 0, sizeof *plan);
    if (!op || !args)
        return jf_fail(JF_ERR_ARG, "jf_op_prepare: NULL argument");
    plan->op = op;
    plan->args = *args;
    plan->ksize = args->ksize ? args->ksize : op->default_ksize;
    if (op->params & JF_PARAM_MAX_KSIZE) /* the window's largest size is its k */
        plan->ksize = args->max_ksize ? args->max_ksize : op->default_ksize;
    if ((op->params & JF_PARAM_MAX_KSIZE) && (args->max_ksize || op->default_ksize) &&
        (plan->ksize < 3 || plan->ksize % 2 == 0 || plan->ksize > op->max_ksize))
        return jf_fail(JF_ERR_ARG, "%s: --max-ksize %d: the largest window must be odd, from 3 to %d",
                       op->name, plan->ksize, op->max_ksize);
    if ((op->params & JF_PARAM_KSIZE) && (args->ksize || op->default_ksize) &&
        (plan->ksize < 1 || plan->ksize % 2 == 0 || plan->ksize > op->max_ksize))
        return jf_fail(JF_ERR_ARG, "%s: -k %d: the kernel size must be odd, from 1 to %d", op->name,
                       plan->ksize, op->max_ksize);
    if ((op->params & JF_PARAM_BORDER) && (st = jf_check_border(op->name, args->border)) != JF_OK)
        return st;
    if ((unsigned)args->variant >= JF_VARIANT_COUNT)
        return jf_fail(JF_ERR_ARG, "%s: unknown variant %d", op->name, (int)args->variant);
    if (args->variant != JF_VARIANT_AUTO && !(op->variants & (1u << args->variant)))
        return jf_fail(JF_ERR_ARG, "%s has no '%s' variant", op->name, jf_variant_name(args->variant));
    if ((op->params & JF_PARAM_AMOUNT) && !(args->amount >= 0.0 && args->amount <= op->amount_max))
        return jf_fail(JF_ERR_ARG, "%s: %g is outside 0..%g", op->name, args->amount, op->amount_max);
    if (op->prepare && (st = op->prepare(plan)) != JF_OK) {
        jf_op_plan_free(plan);
        return st;
    }
    describe(plan);
    return JF_OK;
}

void jf_op_plan_free(jf_op_plan *plan)
{
    if (plan)
        jf_kernel_free(&plan->kernel);
}
