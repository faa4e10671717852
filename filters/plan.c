/*
 * Plans: an operation's parameters set by name (from text or typed values),
 * checked against the operation's own ranges, resolved once and run.  The
 * command line, the public jf_plan_* API (and through it Python and
 * GStreamer) all set parameters here, so every front end accepts the same
 * values and refuses the same ones with the same words.
 */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "filters/ops.h"
#include "filters/conv/conv.h"
#include "filters/filters.h"
#include "filters/resolve.h"
#include "core/context.h"
#include "core/errors.h"
#include "core/names.h"
#include "core/parse.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- setting one parameter ------------------------------------------------------ */

static void *field(jf_op_args *a, const jf_param_def *p) { return (char *)a + p->offset; }

/* "--ksize, --border" of what op takes, for messages */
static void param_list(const jf_op *op, char *out, size_t n)
{
    size_t used = 0;
    int i;
    out[0] = '\0';
    for (i = 0; i < op->param_count && used < n; i++)
        used += (size_t)snprintf(out + used, n - used, "%s%s", i ? ", " : "", op->params[i].info.name);
    if (!op->param_count)
        snprintf(out, n, "none");
}

static jf_status bad_value(const jf_op *op, const jf_param_def *p, const char *value)
{
    const jf_param_info *i = &p->info;
    if (i->type == JF_PARAM_INT)
        return jf_fail(JF_ERR_ARG, "%s: %s %s: want %s whole number from %.15g to %.15g", op->name,
                       i->name, value, i->odd ? "an odd" : "a", i->min, i->max);
    return jf_fail(JF_ERR_ARG, "%s: %s %s: want a number from %g to %g", op->name, i->name, value,
                   i->min, i->max);
}

static jf_status set_int(const jf_op *op, const jf_param_def *p, jf_op_args *a, long long v,
                         const char *text)
{
    if ((double)v < p->info.min || (double)v > p->info.max || (p->info.odd && v % 2 == 0))
        return bad_value(op, p, text);
    if (p->id == JF_P_SEED)
        *(long long *)field(a, p) = v;
    else
        *(int *)field(a, p) = (int)v;
    return JF_OK;
}

int jf_op_block_parse(const char *text, int *bx, int *by)
{
    int w, h;
    if (jf_parse_wxh(text, 1024, &w, &h) || w < 4 || w % 4 || w * h > 1024)
        return -1;
    *bx = w;
    *by = h;
    return 0;
}

static jf_status args_set(const jf_op *op, jf_op_args *a, const char *name, const char *value);

jf_status jf_op_args_set(const jf_op *op, jf_op_args *a, const char *name, const char *value)
{
    const jf_status st = args_set(op, a, name, value);
    const jf_param_def *p = st == JF_OK ? jf_op_param_def(op, name) : NULL;
    if (p)
        a->given |= p->id;
    return st;
}

static jf_status args_set(const jf_op *op, jf_op_args *a, const char *name, const char *value)
{
    const jf_param_def *p = jf_op_param_def(op, name);
    if (!p) {
        char takes[160];
        param_list(op, takes, sizeof takes);
        return jf_fail(JF_ERR_ARG, "%s has no parameter '%s' (it takes: %s)", op->name,
                       name ? name : "(null)", takes);
    }
    if (!value)
        return jf_fail(JF_ERR_ARG, "%s: %s: no value", op->name, name);
    switch (p->info.type) {
    case JF_PARAM_INT: {
        long long v;
        if (jf_parse_ll(value, &v))
            return bad_value(op, p, value);
        return set_int(op, p, a, v, value);
    }
    case JF_PARAM_DOUBLE: {
        double v;
        if (jf_parse_real(value, &v) || !(v >= p->info.min && v <= p->info.max))
            return bad_value(op, p, value);
        *(double *)field(a, p) = v;
        return JF_OK;
    }
    case JF_PARAM_CHOICE: {
        const int i = jf_name_index(p->info.choices, value);
        char list[160];
        size_t used = 0;
        int j;
        if (i >= 0) {
            *(int *)field(a, p) = p->values ? jf_name_index(p->values, value) : i;
            return JF_OK;
        }
        list[0] = '\0';
        for (j = 0; p->info.choices[j] && used < sizeof list; j++)
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", j ? ", " : "",
                                     p->info.choices[j]);
        return jf_fail(JF_ERR_ARG, "%s: %s '%s' is not one of %s", op->name, name, value, list);
    }
    case JF_PARAM_FILE:
        if (!value[0])
            return jf_fail(JF_ERR_ARG, "%s: %s: an empty file name", op->name, name);
        *(const char **)field(a, p) = value;
        return JF_OK;
    case JF_PARAM_SIZE: {
        int w = 0, h = 0;
        if (jf_op_block_parse(value, &w, &h))
            return jf_fail(JF_ERR_ARG, "%s: %s %s: want WxH, W a multiple of 4, W x H at most 1024",
                           op->name, name, value);
        a->block_x = w;
        a->block_y = h;
        return JF_OK;
    }
    default:
        return jf_fail(JF_ERR_ARG, "%s: %s is not set from text", op->name, name);
    }
}

/* ---- a whole plan ---------------------------------------------------------------- */

static void describe(jf_op_plan *p)
{
    const jf_op *op = p->op;
    size_t n = sizeof p->describe;
    int used = snprintf(p->describe, n, "%s", op->name);
    if (jf_op_takes(op, JF_P_KSIZE) && p->ksize && used > 0 && (size_t)used < n)
        used += snprintf(p->describe + used, n - (size_t)used, " k=%d", p->ksize);
    if (jf_op_takes(op, JF_P_MAX_KSIZE) && p->ksize && used > 0 && (size_t)used < n)
        used += snprintf(p->describe + used, n - (size_t)used, " k<=%d", p->ksize);
    if (jf_op_takes(op, JF_P_SIGMA) && p->args.sigma > 0 && used > 0 && (size_t)used < n)
        used += snprintf(p->describe + used, n - (size_t)used, " sigma %g", p->args.sigma);
    if (jf_op_takes(op, JF_P_AMOUNT) && used > 0 && (size_t)used < n)
        snprintf(p->describe + used, n - (size_t)used, " %g", p->args.amount);
}

/* A value the caller put straight into jf_op_args (not through
 * jf_op_args_set): held to the same row. */
static jf_status check_int_field(const jf_op *op, unsigned id, int v)
{
    int i;
    for (i = 0; i < op->param_count; i++) {
        const jf_param_def *p = &op->params[i];
        char text[32];
        if (p->id != id)
            continue;
        snprintf(text, sizeof text, "%d", v);
        if ((double)v < p->info.min || (double)v > p->info.max || (p->info.odd && v % 2 == 0))
            return bad_value(op, p, text);
    }
    return JF_OK;
}

/* Every number the rows give a default and the caller left alone (not
 * set, not given): the row's default, so that a default is written once
 * (the table's text is what --help, Python and the plan all show). */
static jf_status row_defaults(const jf_op *op, jf_op_args *a)
{
    int i;
    for (i = 0; i < op->param_count; i++) {
        const jf_param_def *p = &op->params[i];
        const void *field = (const char *)a + p->offset;
        int unset;
        if (!p->info.default_text || (a->given & p->id))
            continue;
        if (p->info.type == JF_PARAM_INT)
            unset = p->id == JF_P_SEED ? *(const long long *)field == 0 : *(const int *)field == 0;
        else if (p->info.type == JF_PARAM_DOUBLE)
            unset = *(const double *)field == 0.0;
        else
            continue; /* choices start at their default (jf_op_args_defaults) */
        if (unset && args_set(op, a, p->info.name, p->info.default_text) != JF_OK)
            return jf_fail(JF_ERR_INTERNAL, "%s: the default '%s' of %s is out of its own range",
                           op->name, p->info.default_text, p->info.name);
    }
    return JF_OK;
}

jf_status jf_op_prepare(const jf_op *op, const jf_op_args *args, jf_op_plan *plan)
{
    const jf_param_def *variant;
    jf_status st;
    memset(plan, 0, sizeof *plan);
    if (!op || !args)
        return jf_fail(JF_ERR_ARG, "jf_op_prepare: NULL argument");
    plan->op = op;
    plan->args = *args;
    if ((st = row_defaults(op, &plan->args)) != JF_OK)
        return st;
    args = &plan->args;
    /* k as given, or the row's default (row_defaults); 0 where it follows
     * from other parameters (sigma, weights) or from the image (the
     * impulse filters' density) */
    plan->ksize = args->ksize;
    if (jf_op_takes(op, JF_P_MAX_KSIZE)) /* the window's largest size is its k */
        plan->ksize = args->max_ksize;
    if (jf_op_takes(op, JF_P_MAX_KSIZE) && plan->ksize &&
        (st = check_int_field(op, JF_P_MAX_KSIZE, plan->ksize)) != JF_OK)
        return st;
    if (jf_op_takes(op, JF_P_KSIZE) && plan->ksize &&
        (st = check_int_field(op, JF_P_KSIZE, plan->ksize)) != JF_OK)
        return st;
    if (jf_op_takes(op, JF_P_BORDER) && (st = jf_check_border(op->name, args->border)) != JF_OK)
        return st;
    if ((unsigned)args->variant >= JF_VARIANT_COUNT)
        return jf_fail(JF_ERR_ARG, "%s: unknown variant %d", op->name, (int)args->variant);
    variant = jf_op_param_def(op, "variant");
    if (args->variant != JF_VARIANT_AUTO &&
        (!variant || jf_name_index(variant->info.choices, jf_variant_name(args->variant)) < 0))
        return jf_fail(JF_ERR_ARG, "%s has no '%s' variant", op->name, jf_variant_name(args->variant));
    if (jf_op_takes(op, JF_P_AMOUNT) && !(args->amount >= 0.0 && args->amount <= op->params[0].info.max))
        return jf_fail(JF_ERR_ARG, "%s: %g is outside 0..%g", op->name, args->amount,
                       op->params[0].info.max);
    if (op->prepare && (st = op->prepare(plan)) != JF_OK) {
        jf_op_plan_free(plan);
        return st;
    }
    if (plan->kernel.weights && plan->kernel.ksize > 1) {
        float col[JF_CONV_MAX_KSIZE], row[JF_CONV_MAX_KSIZE];
        plan->rank1 = jf_kernel_separate(plan->kernel.weights, plan->kernel.ksize, col, row);
    }
    describe(plan);
    return JF_OK;
}

void jf_op_plan_free(jf_op_plan *plan)
{
    if (plan)
        jf_kernel_free(&plan->kernel);
}

uint64_t jf_op_plan_work_bytes(const jf_op_plan *plan, int w, int h, int channels, int sample_bytes,
                               int threads)
{
    int k;
    uint64_t padded;
    if (!plan->op || plan->op->kind != JF_OP_FILTER || jf_op_plan_identity(plan))
        return 0;
    if (jf_family_runs_cpu_rows(plan->op->family)) { /* the CPU's scratch (a GPU's is not host memory) */
        jf_shape shape;
        memset(&shape, 0, sizeof shape);
        shape.width = w;
        shape.height = h;
        shape.channels = channels;
        shape.sample = sample_bytes == 2 ? JF_SAMPLE_U16 : JF_SAMPLE_U8;
        shape.rank1 = plan->rank1;
        shape.weights = plan->kernel.weights;
        return jf_cpu_work_bytes(plan->op->family, &shape, plan->ksize, threads);
    }
    /* a window chosen per image (auto-impulse): at most the operation's largest */
    k = plan->ksize > 0 ? plan->ksize : plan->args.max_ksize > 0 ? plan->args.max_ksize : jf_op_max_ksize(plan->op);
    padded = (uint64_t)(w + k - 1) * (uint64_t)(h + k - 1) * (uint64_t)channels * (uint64_t)sample_bytes;
    return plan->op->estimate_name ? 2 * padded : padded; /* auto-impulse: estimate, then filter */
}

int jf_op_plan_identity(const jf_op_plan *plan)
{
    int i, n;
    if (!plan->op || plan->op->kind != JF_OP_FILTER)
        return 0;
    if (plan->op->family == &jf_median_family)
        return plan->ksize == 1;
    if (plan->op->family != &jf_conv_family || !plan->kernel.weights)
        return 0;
    n = plan->kernel.ksize * plan->kernel.ksize;
    for (i = 0; i < n; i++) /* x * 1.0f is x, and x * 0.0f adds nothing */
        if (plan->kernel.weights[i] != (i == n / 2 ? 1.0f : 0.0f))
            return 0;
    return 1;
}

static jf_status op_apply_with(jf_context *ctx, const jf_op_plan *plan, jf_image *src, jf_image *dst,
                               jf_op_note *note)
{
    if (note) {
        note->text[0] = '\0';
        note->estimate = NAN;
    }
    if (ctx) { /* what runs is recorded afresh by the call (filters/resolve.c) */
        ctx->last.variant = JF_VARIANT_AUTO;
        ctx->last.kernel[0] = ctx->last.reason[0] = '\0';
        ctx->last.block_x = ctx->last.block_y = 0;
    }
    if (plan->op->apply_noted)
        return plan->op->apply_noted(ctx, plan, src, dst, note);
    if (!plan->op->apply)
        return jf_fail(JF_ERR_ARG, "%s is not applied to an image", plan->op->name);
    return plan->op->apply(ctx, plan, src, dst);
}

jf_status jf_op_apply(jf_context *ctx, const jf_op_plan *plan, jf_image *src, jf_image *dst,
                      jf_op_note *note)
{
    /* no context: a temporary one for the call, whatever the operation */
    JF_WITH_CONTEXT(ctx, op_apply_with(ctx, plan, src, dst, note));
}

/* ---- the public plan API (jetfilter/operations.h) ---------------------------------- */

struct jf_plan {
    const jf_op *op;
    jf_op_args args;
    unsigned given;      /* JF_P_* set */
    char *kernel_file;   /* owned copies of what args points at */
    float *weights;
    int prepared;
    jf_op_plan plan;
};

jf_status jf_plan_create(const char *name, jf_plan **out)
{
    const jf_op *op = jf_op_find(name);
    jf_plan *p;
    if (!out)
        return jf_fail(JF_ERR_ARG, "jf_plan_create: out is NULL");
    *out = NULL;
    if (!op) {
        char list[512];
        size_t used = 0;
        int i;
        list[0] = '\0';
        for (i = 0; i < jf_op_total && used < sizeof list; i++)
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "",
                                     jf_ops[i].name);
        return jf_fail(JF_ERR_ARG, "no operation '%s' (there are: %s)", name ? name : "(null)", list);
    }
    if (!(p = (jf_plan *)calloc(1, sizeof *p)))
        return jf_fail(JF_ERR_NOMEM, "jf_plan_create: out of memory");
    p->op = op;
    p->args = jf_op_args_defaults();
    *out = p;
    return JF_OK;
}

static void unprepare(jf_plan *p)
{
    if (p->prepared)
        jf_op_plan_free(&p->plan);
    p->prepared = 0;
}

jf_status jf_plan_set(jf_plan *p, const char *param, const char *value)
{
    const jf_param_def *def;
    jf_op_args a;
    jf_status st;
    char *copy = NULL;
    if (!p)
        return jf_fail(JF_ERR_ARG, "jf_plan_set: plan is NULL");
    def = jf_op_param_def(p->op, param);
    a = p->args;
    if ((st = jf_op_args_set(p->op, &a, param, value)) != JF_OK)
        return st;
    if (def->id == JF_P_KERNEL) { /* the plan keeps its own copy of the name */
        if (!(copy = strdup(value)))
            return jf_fail(JF_ERR_NOMEM, "jf_plan_set: out of memory");
        free(p->kernel_file);
        p->kernel_file = copy;
        a.kernel_file = copy;
    }
    unprepare(p);
    p->args = a;
    p->given |= def->id;
    return JF_OK;
}

jf_status jf_plan_set_int(jf_plan *p, const char *param, int64_t value)
{
    const jf_param_def *def = p ? jf_op_param_def(p->op, param) : NULL;
    char text[32];
    if (def && def->info.type == JF_PARAM_CHOICE) { /* by index */
        int n = 0;
        while (def->info.choices[n])
            n++;
        if (value < 0 || value >= n)
            return jf_fail(JF_ERR_ARG, "%s: %s: choice %lld of %d", p->op->name, param,
                           (long long)value, n);
        return jf_plan_set(p, param, def->info.choices[value]);
    }
    if (def && def->info.type != JF_PARAM_INT && def->info.type != JF_PARAM_DOUBLE)
        return jf_fail(JF_ERR_ARG, "%s: %s does not take a number", p->op->name, param);
    snprintf(text, sizeof text, "%lld", (long long)value);
    return jf_plan_set(p, param, text);
}

jf_status jf_plan_set_double(jf_plan *p, const char *param, double value)
{
    const jf_param_def *def = p ? jf_op_param_def(p->op, param) : NULL;
    char text[64];
    if (def && def->info.type == JF_PARAM_INT) {
        if (!(value == floor(value)) || fabs(value) > 9.2e18)
            return jf_fail(JF_ERR_ARG, "%s: %s %g: want a whole number", p->op->name, param, value);
        return jf_plan_set_int(p, param, (int64_t)value);
    }
    if (def && def->info.type != JF_PARAM_DOUBLE)
        return jf_fail(JF_ERR_ARG, "%s: %s does not take a number", p->op->name, param);
    snprintf(text, sizeof text, "%.17g", value);
    return jf_plan_set(p, param, text);
}

jf_status jf_plan_set_weights(jf_plan *p, const float *weights, int ksize)
{
    const jf_param_def *def = p ? jf_op_param_def(p->op, "weights") : NULL;
    const jf_param_def *ks = p ? jf_op_param_def(p->op, "ksize") : NULL;
    float *copy;
    size_t n, i;
    if (!def)
        return jf_fail(JF_ERR_ARG, "%s takes no weights", p ? p->op->name : "(null plan)");
    if (!weights || ksize < 1 || ksize % 2 == 0 || (ks && ksize > (int)ks->info.max))
        return jf_fail(JF_ERR_ARG, "%s: weights: want an odd k x k matrix, k from 1 to %d", p->op->name,
                       ks ? (int)ks->info.max : JF_CONV_MAX_KSIZE);
    n = (size_t)ksize * (size_t)ksize;
    for (i = 0; i < n; i++)
        if (!isfinite(weights[i]) || fabsf(weights[i]) > 1e30f)
            return jf_fail(JF_ERR_ARG, "%s: weight %zu (%g) is not a finite number of at most 1e30",
                           p->op->name, i, (double)weights[i]);
    if (!(copy = (float *)malloc(n * sizeof *copy)))
        return jf_fail(JF_ERR_NOMEM, "jf_plan_set_weights: out of memory");
    memcpy(copy, weights, n * sizeof *copy);
    unprepare(p);
    free(p->weights);
    p->weights = copy;
    p->args.weights = copy;
    p->args.weights_ksize = ksize;
    p->given |= JF_P_WEIGHTS;
    return JF_OK;
}

int jf_plan_is_set(const jf_plan *p, const char *param)
{
    const jf_param_def *def = p ? jf_op_param_def(p->op, param) : NULL;
    return def && (p->given & def->id) != 0;
}

jf_status jf_plan_prepare(jf_plan *p)
{
    jf_status st;
    if (!p)
        return jf_fail(JF_ERR_ARG, "jf_plan_prepare: plan is NULL");
    unprepare(p);
    if ((st = jf_op_prepare(p->op, &p->args, &p->plan)) != JF_OK)
        return st;
    p->plan.given = p->given;
    p->prepared = 1;
    return JF_OK;
}

const jf_op_info *jf_plan_op(const jf_plan *p) { return p ? jf_op_info_of(p->op) : NULL; }

const char *jf_plan_describe(const jf_plan *p)
{
    return p && p->prepared ? p->plan.describe : p ? p->op->name : "";
}

/* The sigma a Gaussian's weights were made with (jf_kernel_make's rule). */
static double gauss_sigma(const jf_op_plan *p)
{
    return p->args.sigma > 0 ? p->args.sigma : 0.3 * ((p->ksize - 1) * 0.5 - 1.0) + 0.8;
}

void jf_op_plan_value(const jf_op_plan *q, const jf_param_def *def, char *out, size_t n)
{
    if (n)
        out[0] = '\0';
    switch (def->id) {
    case JF_P_KSIZE:
    case JF_P_MAX_KSIZE:
        if (q->ksize) /* 0: auto-impulse's window, chosen per image */
            snprintf(out, n, "%d", q->ksize);
        break;
    case JF_P_SIGMA:
        if (q->kernel.weights)
            snprintf(out, n, "%.17g", gauss_sigma(q));
        break;
    case JF_P_KERNEL:
        snprintf(out, n, "%s", q->args.weights ? "" : q->args.kernel_file ? q->args.kernel_file : "");
        break;
    case JF_P_WEIGHTS:
        if (q->args.weights)
            snprintf(out, n, "%dx%d", q->args.weights_ksize, q->args.weights_ksize);
        break;
    case JF_P_BORDER:
        snprintf(out, n, "%s", jf_border_name(q->args.border));
        break;
    case JF_P_VARIANT:
        snprintf(out, n, "%s", jf_variant_name(q->args.variant));
        break;
    case JF_P_BLOCK:
        if (q->args.block_x)
            snprintf(out, n, "%dx%d", q->args.block_x, q->args.block_y);
        break;
    case JF_P_AMOUNT:
        snprintf(out, n, "%.17g", q->args.amount);
        break;
    case JF_P_SEED:
        snprintf(out, n, "%lld", q->args.seed);
        break;
    case JF_P_NOISE_SIGMA: /* "" when left to the estimate, as a not-given patch */
    case JF_P_SIGMA_COLOR:
    case JF_P_SIGMA_SPACE:
    case JF_P_EPS:
    case JF_P_DATA_RANGE:
    case JF_P_STRENGTH: {
        const double v = *(const double *)((const char *)&q->args + def->offset);
        if (v > 0.0)
            snprintf(out, n, "%.17g", v);
        break;
    }
    case JF_P_SEARCH:
    case JF_P_PATCH: {
        const int v = *(const int *)((const char *)&q->args + def->offset);
        if (v > 0)
            snprintf(out, n, "%d", v);
        break;
    }
    case JF_P_SPEED:
        snprintf(out, n, "%s", def->info.choices[q->args.speed]);
        break;
    case JF_P_IGNORE:
        snprintf(out, n, "%s", def->info.choices[q->args.ignore]);
        break;
    case JF_P_IGNORE_VALUE:
        snprintf(out, n, "%.17g", q->args.ignore_value);
        break;
    }
}

jf_status jf_plan_value(const jf_plan *p, const char *param, char *out, size_t n)
{
    const jf_param_def *def = p ? jf_op_param_def(p->op, param) : NULL;
    if (!def)
        return jf_fail(JF_ERR_ARG, "jf_plan_value: %s has no parameter '%s'",
                       p ? p->op->name : "(null plan)", param ? param : "(null)");
    if (!p->prepared)
        return jf_fail(JF_ERR_ARG, "jf_plan_value: prepare the plan first");
    jf_op_plan_value(&p->plan, def, out, n);
    return JF_OK;
}

static void fill_result(jf_context *ctx, const jf_op_note *note, jf_op_result *r)
{
    jf_op_result mine = JF_OP_RESULT_INIT;
    size_t size;
    if (!r || r->size == 0)
        return;
    if (ctx && ctx->last.reason[0]) {
        mine.variant = ctx->last.variant;
        snprintf(mine.kernel, sizeof mine.kernel, "%s", ctx->last.kernel);
        mine.block_x = ctx->last.block_x;
        mine.block_y = ctx->last.block_y;
        snprintf(mine.reason, sizeof mine.reason, "%s", ctx->last.reason);
    } else {
        mine.variant = JF_VARIANT_CPU;
        snprintf(mine.reason, sizeof mine.reason, "%s", ctx ? "the CPU" : "no context: the CPU");
    }
    snprintf(mine.decision, sizeof mine.decision, "%s", note->text);
    mine.estimate = note->estimate;
    size = r->size < sizeof mine ? r->size : sizeof mine;
    memcpy((char *)r + sizeof r->size, (const char *)&mine + sizeof mine.size, size - sizeof r->size);
}

jf_status jf_plan_run(jf_context *ctx, const jf_plan *p, jf_image *src, jf_image *dst,
                      jf_op_result *result)
{
    jf_op_note note;
    jf_status st;
    if (!p || !p->prepared)
        return jf_fail(JF_ERR_ARG, "jf_plan_run: %s", p ? "prepare the plan first" : "plan is NULL");
    if (result && result->size && result->size < sizeof(size_t) + sizeof(jf_variant))
        return jf_fail(JF_ERR_ARG, "jf_plan_run: result size %zu is too small", result->size);
    if (p->op->kind == JF_OP_METRIC)
        return jf_fail(JF_ERR_ARG, "jf_plan_run: %s is a metric: use jf_plan_measure", p->op->name);
    if (p->op->kind == JF_OP_ESTIMATE)
        return jf_fail(JF_ERR_ARG, "jf_plan_run: %s is an estimate: use jf_plan_estimate", p->op->name);
    if ((st = jf_op_apply(ctx, &p->plan, src, dst, &note)) == JF_OK)
        fill_result(ctx, &note, result);
    return st;
}

jf_status jf_plan_measure(jf_context *ctx, const jf_plan *p, const jf_image *a, const jf_image *b,
                          double *value)
{
    if (!p || !p->prepared)
        return jf_fail(JF_ERR_ARG, "jf_plan_measure: %s", p ? "prepare the plan first" : "plan is NULL");
    if (p->op->kind != JF_OP_METRIC || !p->op->measure)
        return jf_fail(JF_ERR_ARG, "jf_plan_measure: %s is not a metric: use jf_plan_run", p->op->name);
    if (!value)
        return jf_fail(JF_ERR_ARG, "jf_plan_measure: value is NULL");
    return p->op->measure(ctx, &p->plan.args, a, b, value);
}

jf_status jf_plan_estimate(jf_context *ctx, const jf_plan *p, const jf_image *img,
                           jf_noise_estimate *out)
{
    if (!p || !p->prepared)
        return jf_fail(JF_ERR_ARG, "jf_plan_estimate: %s", p ? "prepare the plan first" : "plan is NULL");
    if (p->op->kind != JF_OP_ESTIMATE || !p->op->estimate)
        return jf_fail(JF_ERR_ARG, "jf_plan_estimate: %s is not an estimate", p->op->name);
    return p->op->estimate(ctx, img, out);
}

void jf_plan_free(jf_plan *p)
{
    if (!p)
        return;
    unprepare(p);
    free(p->kernel_file);
    free(p->weights);
    free(p);
}
