/*
 * The operation table through the public API (jetfilter/operations.h):
 * every operation's description, parameters, defaults and ranges pinned
 * here, so that a changed default or a dropped parameter fails a test;
 * plans set by name from text and typed values, the errors they give, and
 * what a run reports; results equal to the operations' own functions.
 */
#define _POSIX_C_SOURCE 200809L /* strtok_r */
#include "common.h"
#include "filters/ops.h"
#include "filters/denoise/denoise.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What each operation must say about itself. */
static const struct {
    const char *name;
    jf_op_kind kind;
    const char *summary_has; /* a piece of its summary */
    const char *params;      /* "name=default" list, ',' separated; default "-" for none */
    unsigned samples;
    int exact;
} EXPECTED[] = {
    {"median", JF_OP_FILTER, "median",
     "ksize=3,border=replicate,variant=auto,block=-,ignore=none,ignore-value=0", 7, 1},
    {"erode", JF_OP_FILTER, "minimum", "ksize=3,border=replicate,variant=auto", 3, 1},
    {"dilate", JF_OP_FILTER, "maximum", "ksize=3,border=replicate,variant=auto", 3, 1},
    {"adaptive-median", JF_OP_FILTER, "adaptive median", "max-ksize=-,border=replicate,variant=auto", 1, 1},
    {"switching-median", JF_OP_FILTER, "clean neighbours", "max-ksize=7,border=replicate,variant=auto", 1, 1},
    {"auto-impulse", JF_OP_FILTER, "density", "max-ksize=-,border=replicate,variant=auto", 1, 1},
    {"box", JF_OP_FILTER, "mean", "ksize=3,border=replicate,variant=auto,block=-,ignore=none,ignore-value=0", 7, 0},
    {"gauss", JF_OP_FILTER, "Gaussian blur", "ksize=-,sigma=-,border=replicate,variant=auto,block=-,ignore=none,ignore-value=0", 7, 0},
    {"sharpen", JF_OP_FILTER, "unsharp", "ksize=3,border=replicate,variant=auto,block=-", 7, 0},
    {"laplace", JF_OP_FILTER, "Laplacian", "ksize=3,border=replicate,variant=auto,block=-", 7, 0},
    {"conv", JF_OP_FILTER, "weights", "ksize=-,kernel=-,weights=-,border=replicate,variant=auto,block=-,ignore=none,ignore-value=0", 7, 0},
    {"nlmeans", JF_OP_FILTER, "non-local means",
     "noise-sigma=-,strength=1,search=21,patch=-,border=replicate,variant=auto", 3, 0},
    {"bilateral", JF_OP_FILTER, "bilateral",
     "ksize=5,sigma-color=-,sigma-space=-,border=replicate,variant=auto", 3, 0},
    {"guided", JF_OP_FILTER, "guided filter", "ksize=5,eps=-,border=replicate,variant=auto", 3, 0},
    {"auto", JF_OP_FILTER, "chosen per image", "speed=quality,border=replicate,variant=auto", 3, 0},
    {"estimate", JF_OP_ESTIMATE, "noise of one image", "", 3, 0},
    {"pad", JF_OP_PAD, "k/2", "ksize=3,border=replicate", 7, 1},
    {"psnr", JF_OP_METRIC, "signal-to-noise", "data-range=-", 7, 0},
    {"ssim", JF_OP_METRIC, "SSIM", "data-range=-", 7, 0},
    {"salt-pepper", JF_OP_NOISE, "impulse noise", "density=0.05,seed=1", 3, 0},
    {"gaussian", JF_OP_NOISE, "Gaussian noise", "sigma=5,seed=1", 3, 0},
};
#define NEXPECTED ((int)(sizeof EXPECTED / sizeof EXPECTED[0]))

static void test_descriptions_pinned(void **state)
{
    int i, j;
    (void)state;
    assert_int_equal(jf_op_count(), NEXPECTED);
    assert_null(jf_op_get(-1));
    assert_null(jf_op_get(NEXPECTED));
    assert_null(jf_op_lookup("nope"));
    assert_null(jf_op_lookup(NULL));
    for (i = 0; i < NEXPECTED; i++) {
        const jf_op_info *op = jf_op_get(i);
        char list[256], *tok, *save = NULL;
        assert_non_null(op);
        assert_string_equal(op->name, EXPECTED[i].name);
        assert_ptr_equal(jf_op_lookup(op->name), op);
        assert_int_equal(op->kind, EXPECTED[i].kind);
        assert_non_null(strstr(op->summary, EXPECTED[i].summary_has));
        assert_int_equal(op->samples, EXPECTED[i].samples);
        assert_int_equal(op->exact, EXPECTED[i].exact);
        assert_non_null(op->auto_rule);
        assert_non_null(op->samples_rule);
        snprintf(list, sizeof list, "%s", EXPECTED[i].params);
        for (j = 0, tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save), j++) {
            char *eq = strchr(tok, '=');
            const jf_param_info *p;
            *eq = '\0';
            assert_true(j < op->param_count);
            p = &op->params[j];
            assert_string_equal(p->name, tok);
            assert_ptr_equal(jf_op_param(op, tok), p);
            if (strcmp(eq + 1, "-") == 0)
                assert_null(p->default_text);
            else
                assert_string_equal(p->default_text, eq + 1);
            assert_non_null(p->help);
            assert_non_null(p->metavar);
        }
        assert_int_equal(j, op->param_count);
    }
    assert_string_equal(jf_op_kind_name(JF_OP_METRIC), "metric");
    assert_string_equal(jf_op_kind_name((jf_op_kind)9), "unknown");
}

/* Ranges and the variants an operation may be asked for. */
static void test_ranges_and_variants(void **state)
{
    const jf_op_info *median = jf_op_lookup("median"), *gauss = jf_op_lookup("gauss");
    const jf_op_info *laplace = jf_op_lookup("laplace"), *sw = jf_op_lookup("switching-median");
    const jf_param_info *k;
    (void)state;
    k = jf_op_param(median, "ksize");
    assert_int_equal(k->type, JF_PARAM_INT);
    assert_int_equal(k->letter, 'k');
    assert_true(k->odd);
    assert_true(k->min == 1 && k->max == JF_MEDIAN_MAX_KSIZE);
    assert_true(jf_op_param(gauss, "ksize")->max == JF_CONV_MAX_KSIZE);
    assert_true(jf_op_param(laplace, "ksize")->min == 3 && jf_op_param(laplace, "ksize")->max == 3);
    assert_true(jf_op_param(gauss, "sigma")->min > 0 && jf_op_param(gauss, "sigma")->max == 10);
    assert_true(jf_op_param(sw, "max-ksize")->min == 3 &&
                jf_op_param(sw, "max-ksize")->max == JF_IMPULSE_MAX_KSIZE);
    assert_int_equal(jf_op_param(median, "border")->type, JF_PARAM_CHOICE);
    assert_string_equal(jf_op_param(median, "border")->choices[3], "mirror");
    assert_null(jf_op_param(median, "border")->choices[4]);
    assert_int_equal(median->variants, (1u << JF_VARIANT_COUNT) - 1);
    assert_int_equal(sw->variants, (1u << JF_VARIANT_AUTO) | (1u << JF_VARIANT_CPU) |
                                       (1u << JF_VARIANT_GLOBAL));
    assert_int_equal(jf_op_lookup("pad")->variants, (1u << JF_VARIANT_AUTO) | (1u << JF_VARIANT_CPU));
    assert_null(jf_op_param(sw, "ksize"));
    assert_string_equal(jf_op_lookup("auto-impulse")->estimate_name, "impulse_density");
    assert_null(median->estimate_name);
    /* the largest window: the top of the ksize, max-ksize or search row (the
     * bench, calibrate and the memory estimate stop there); auto, with none,
     * what its family's rows reach (search and patch) */
    assert_int_equal(jf_op_max_ksize(jf_op_find("median")), JF_MEDIAN_MAX_KSIZE);
    assert_int_equal(jf_op_max_ksize(jf_op_find("laplace")), 3);
    assert_int_equal(jf_op_max_ksize(jf_op_find("switching-median")), JF_IMPULSE_MAX_KSIZE);
    assert_int_equal(jf_op_max_ksize(jf_op_find("nlmeans")), JF_NLM_MAX_SEARCH);
    assert_int_equal(jf_op_max_ksize(jf_op_find("auto")), JF_NLM_MAX_SEARCH + JF_NLM_MAX_PATCH - 1);
    assert_int_equal(jf_op_max_ksize(jf_op_find("pad")), 8193);
    assert_int_equal(jf_op_max_ksize(jf_op_find("psnr")), 0);
    /* a variant at k: from a row's smallest k to its largest, both taken */
    {
        const jf_op *m = jf_op_find("median"), *cv = jf_op_find("conv");
        assert_true(jf_op_has_variant(m, JF_VARIANT_FAST, 3));  /* the networks' first */
        assert_false(jf_op_has_variant(m, JF_VARIANT_FAST, 1));
        assert_true(jf_op_has_variant(m, JF_VARIANT_FAST, 11)); /* their last */
        assert_false(jf_op_has_variant(m, JF_VARIANT_FAST, 13));
        assert_true(jf_op_has_variant(m, JF_VARIANT_SHARED, 1));
        assert_true(jf_op_has_variant(cv, JF_VARIANT_FAST, 3));
        assert_false(jf_op_has_variant(cv, JF_VARIANT_FAST, 1));
        assert_true(jf_op_has_variant(jf_op_find("psnr"), JF_VARIANT_CPU, 0)); /* a metric: any k */
        assert_true(jf_op_has_variant(m, JF_VARIANT_AUTO, 999));
    }
}

static void test_plan_set_and_errors(void **state)
{
    jf_plan *p = NULL;
    char v[64];
    (void)state;
    assert_int_equal(jf_plan_create("nope", &p), JF_ERR_ARG);
    assert_null(p);
    assert_non_null(strstr(jf_last_error(), "median")); /* the detail lists them */
    assert_int_equal(jf_plan_create("median", NULL), JF_ERR_ARG);
    assert_int_equal(jf_plan_create("median", &p), JF_OK);
    assert_int_equal(jf_plan_set(p, "ksize", "4"), JF_ERR_ARG);
    assert_non_null(strstr(jf_last_error(), "odd"));
    assert_int_equal(jf_plan_set(p, "ksize", "257"), JF_ERR_ARG);
    assert_int_equal(jf_plan_set(p, "ksize", "5x"), JF_ERR_ARG);
    assert_int_equal(jf_plan_set(p, "ksize", ""), JF_ERR_ARG);
    assert_int_equal(jf_plan_set(p, "sigma", "1"), JF_ERR_ARG);
    assert_non_null(strstr(jf_last_error(), "it takes: ksize, border, variant, block"));
    assert_int_equal(jf_plan_set(p, "border", "sideways"), JF_ERR_ARG);
    assert_non_null(strstr(jf_last_error(), "zero, replicate, reflect, mirror"));
    assert_int_equal(jf_plan_set(p, "block", "30x4"), JF_ERR_ARG);
    assert_int_equal(jf_plan_set(p, "block", "32x64"), JF_ERR_ARG);
    assert_int_equal(jf_plan_is_set(p, "ksize"), 0);
    assert_int_equal(jf_plan_set(p, "ksize", "7"), JF_OK);
    assert_int_equal(jf_plan_set(p, "border", "mirror"), JF_OK);
    assert_int_equal(jf_plan_set(p, "block", "64x2"), JF_OK);
    assert_int_equal(jf_plan_is_set(p, "ksize"), 1);
    assert_int_equal(jf_plan_is_set(p, "variant"), 0);
    assert_int_equal(jf_plan_is_set(p, "nope"), 0);
    assert_int_equal(jf_plan_value(p, "ksize", v, sizeof v), JF_ERR_ARG); /* not prepared */
    assert_int_equal(jf_plan_prepare(p), JF_OK);
    assert_int_equal(jf_plan_value(p, "ksize", v, sizeof v), JF_OK);
    assert_string_equal(v, "7");
    assert_int_equal(jf_plan_value(p, "border", v, sizeof v), JF_OK);
    assert_string_equal(v, "mirror");
    assert_int_equal(jf_plan_value(p, "block", v, sizeof v), JF_OK);
    assert_string_equal(v, "64x2");
    assert_int_equal(jf_plan_value(p, "nope", v, sizeof v), JF_ERR_ARG);
    assert_string_equal(jf_plan_describe(p), "median k=7");
    assert_string_equal(jf_plan_op(p)->name, "median");
    /* typed setters: numbers, and choices by index */
    assert_int_equal(jf_plan_set_int(p, "ksize", 9), JF_OK);
    assert_int_equal(jf_plan_set_double(p, "ksize", 11.0), JF_OK);
    assert_int_equal(jf_plan_set_double(p, "ksize", 11.5), JF_ERR_ARG);
    assert_int_equal(jf_plan_set_int(p, "border", 0), JF_OK);
    assert_int_equal(jf_plan_set_int(p, "border", 4), JF_ERR_ARG);
    assert_int_equal(jf_plan_set_int(p, "variant", 4), JF_OK); /* fast */
    assert_int_equal(jf_plan_prepare(p), JF_OK);
    assert_int_equal(jf_plan_value(p, "variant", v, sizeof v), JF_OK);
    assert_string_equal(v, "fast");
    assert_int_equal(jf_plan_value(p, "border", v, sizeof v), JF_OK);
    assert_string_equal(v, "zero");
    assert_int_equal(jf_plan_set_weights(p, NULL, 3), JF_ERR_ARG); /* median takes none */
    jf_plan_free(p);
    jf_plan_free(NULL);
    /* the impulse filters have fewer variants */
    assert_int_equal(jf_plan_create("switching-median", &p), JF_OK);
    assert_int_equal(jf_plan_set(p, "variant", "fast"), JF_ERR_ARG);
    assert_int_equal(jf_plan_set(p, "max-ksize", "33"), JF_ERR_ARG);
    assert_int_equal(jf_plan_set(p, "max-ksize", "9"), JF_OK);
    assert_int_equal(jf_plan_prepare(p), JF_OK);
    assert_string_equal(jf_plan_describe(p), "switching-median k<=9");
    jf_plan_free(p);
}

/* What an operation resolves its parameters to: the Gaussian's size from
 * its sigma, and its default (sigma 1: k = 7). */
static void test_resolved_values(void **state)
{
    jf_plan *p = NULL;
    char v[64];
    (void)state;
    assert_int_equal(jf_plan_create("gauss", &p), JF_OK);
    assert_int_equal(jf_plan_prepare(p), JF_OK);
    assert_int_equal(jf_plan_value(p, "ksize", v, sizeof v), JF_OK);
    assert_string_equal(v, "7");
    assert_int_equal(jf_plan_value(p, "sigma", v, sizeof v), JF_OK);
    assert_string_equal(v, "1");
    assert_string_equal(jf_plan_describe(p), "gauss k=7 sigma 1");
    assert_int_equal(jf_plan_set(p, "sigma", "2"), JF_OK);
    assert_int_equal(jf_plan_prepare(p), JF_OK);
    assert_int_equal(jf_plan_value(p, "ksize", v, sizeof v), JF_OK);
    assert_string_equal(v, "13");
    assert_int_equal(jf_plan_set(p, "ksize", "5"), JF_OK);
    assert_int_equal(jf_plan_prepare(p), JF_OK);
    assert_int_equal(jf_plan_value(p, "ksize", v, sizeof v), JF_OK);
    assert_string_equal(v, "5");
    jf_plan_free(p);
    /* a size alone: OpenCV's sigma for it */
    assert_int_equal(jf_plan_create("gauss", &p), JF_OK);
    assert_int_equal(jf_plan_set(p, "ksize", "5"), JF_OK);
    assert_int_equal(jf_plan_prepare(p), JF_OK);
    assert_int_equal(jf_plan_value(p, "sigma", v, sizeof v), JF_OK);
    assert_true(fabs(atof(v) - 1.1) < 1e-12);
    jf_plan_free(p);
    /* auto-impulse chooses its window per image: no value */
    assert_int_equal(jf_plan_create("auto-impulse", &p), JF_OK);
    assert_int_equal(jf_plan_prepare(p), JF_OK);
    assert_int_equal(jf_plan_value(p, "max-ksize", v, sizeof v), JF_OK);
    assert_string_equal(v, "");
    jf_plan_free(p);
    /* conv needs weights */
    assert_int_equal(jf_plan_create("conv", &p), JF_OK);
    assert_int_equal(jf_plan_prepare(p), JF_ERR_ARG);
    assert_non_null(strstr(jf_last_error(), "weights"));
    /* ... from a file, whose name is the kernel's value */
    {
        char path[] = "/tmp/jf-kernel-XXXXXX";
        const int fd = mkstemp(path);
        static const char k3[] = "1 2 1\n2 4 2\n1 2 1\n";
        assert_true(fd >= 0);
        assert_int_equal(write(fd, k3, sizeof k3 - 1), (int)(sizeof k3 - 1));
        close(fd);
        assert_int_equal(jf_plan_set(p, "kernel", path), JF_OK);
        assert_int_equal(jf_plan_prepare(p), JF_OK);
        assert_int_equal(jf_plan_value(p, "kernel", v, sizeof v), JF_OK);
        assert_string_equal(v, path);
        assert_int_equal(jf_plan_value(p, "ksize", v, sizeof v), JF_OK);
        assert_string_equal(v, "3");
        assert_int_equal(jf_plan_value(p, "weights", v, sizeof v), JF_OK);
        assert_string_equal(v, ""); /* a file's, not weights given */
        unlink(path);
    }
    jf_plan_free(p);
    /* ... or given as numbers: their size is the weights' value, no file named */
    {
        static const float w5[25] = {1, 2, 3, 2, 1, 2, 4, 6, 4, 2, 3, 6, 9, 6, 3,
                                     2, 4, 6, 4, 2, 1, 2, 3, 2, 1};
        assert_int_equal(jf_plan_create("conv", &p), JF_OK);
        assert_int_equal(jf_plan_set_weights(p, w5, 5), JF_OK);
        assert_int_equal(jf_plan_prepare(p), JF_OK);
        assert_int_equal(jf_plan_value(p, "weights", v, sizeof v), JF_OK);
        assert_string_equal(v, "5x5");
        assert_int_equal(jf_plan_value(p, "kernel", v, sizeof v), JF_OK);
        assert_string_equal(v, "");
        jf_plan_free(p);
    }
}

/* The typed calls' defaults (jf_*_defaults, the _INIT macros) are the
 * table's: a plan made with nothing set resolves to the same values, so
 * that changing one default and not the other fails here. */
static void plan_default(const char *op, const char *param, const char *want)
{
    jf_plan *p = NULL;
    char v[64];
    assert_int_equal(jf_plan_create(op, &p), JF_OK);
    assert_int_equal(jf_plan_prepare(p), JF_OK);
    assert_int_equal(jf_plan_value(p, param, v, sizeof v), JF_OK);
    if (strcmp(v, want) != 0)
        fail_msg("%s's %s defaults to %s in the table, %s in its typed call", op, param, v, want);
    jf_plan_free(p);
}

static void test_typed_defaults_are_the_tables(void **state)
{
    const jf_median_options m = jf_median_defaults();
    const jf_impulse_options i = jf_impulse_defaults();
    const jf_noise_options n = jf_noise_defaults();
    char v[64];
    (void)state;
    snprintf(v, sizeof v, "%d", m.ksize);
    plan_default("median", "ksize", v);
    plan_default("median", "border", jf_border_name(m.border));
    plan_default("median", "variant", jf_variant_name(m.variant));
    snprintf(v, sizeof v, "%d", i.max_ksize);
    plan_default("switching-median", "max-ksize", v);
    /* one difference, kept for the callers of 1.x: jf_impulse_options
     * serves three calls, and the adaptive median's operation takes its
     * window from the noise density where jf_adaptive_median takes 7 */
    plan_default("adaptive-median", "max-ksize", "");
    assert_int_equal(i.max_ksize, 7);
    plan_default("switching-median", "border", jf_border_name(i.border));
    plan_default("adaptive-median", "variant", jf_variant_name(i.variant));
    snprintf(v, sizeof v, "%.17g", n.amount);
    plan_default("salt-pepper", "density", v);
    snprintf(v, sizeof v, "%llu", (unsigned long long)n.seed);
    plan_default("salt-pepper", "seed", v);
    plan_default("gauss", "border", jf_border_name(jf_conv_defaults().border));
}

/* The names of each kind of operation, as errors and `info` list them. */
static void test_names_listed(void **state)
{
    char names[512];
    (void)state;
    jf_op_names(JF_OP_FILTER, names, sizeof names);
    assert_non_null(strstr(names, "median, "));
    assert_non_null(strstr(names, "gauss"));
    assert_null(strstr(names, "pad"));
    jf_op_names(JF_OP_METRIC, names, sizeof names);
    assert_non_null(strstr(names, "psnr"));
    assert_null(strstr(names, "median"));
    jf_op_names(JF_OP_FILTER, names, 8); /* cut to the buffer, still a string */
    assert_true(strlen(names) < 8);
}

/* A plan runs what the operation's own function runs: the same bytes. */
static void test_run_equals_functions(void **state)
{
    jf_context *ctx = t_cpu_context(2);
    jf_image src = t_random_image(41, 23, 3, 2, 5), a = {0}, b = {0};
    jf_median_options mo = t_median_opts(5, JF_BORDER_REFLECT, JF_VARIANT_AUTO);
    jf_op_result r = JF_OP_RESULT_INIT;
    float w[9] = {0.1f, -0.2f, 0.3f, 0.05f, 0.5f, 0.05f, 0.0f, 0.1f, 0.1f};
    jf_conv_options co = t_conv_opts(3, w, JF_BORDER_ZERO, JF_VARIANT_AUTO);
    jf_plan *p = NULL;
    double psnr = 0, direct = 0;
    (void)state;
    assert_int_equal(jf_plan_create("median", &p), JF_OK);
    assert_int_equal(jf_plan_set(p, "ksize", "5"), JF_OK);
    assert_int_equal(jf_plan_set(p, "border", "reflect"), JF_OK);
    assert_int_equal(jf_plan_run(ctx, p, &src, &a, &r), JF_ERR_ARG); /* not prepared */
    assert_int_equal(jf_plan_prepare(p), JF_OK);
    assert_int_equal(jf_plan_run(ctx, p, &src, &a, &r), JF_OK);
    assert_int_equal(jf_median(ctx, &src, &b, &mo), JF_OK);
    assert_true(t_images_equal(&a, &b));
    assert_int_equal(r.variant, JF_VARIANT_CPU);
    assert_string_equal(r.reason, "the CPU backend");
    assert_string_equal(r.kernel, "median_cpu_networks"); /* the CPU row for k = 5 */
    assert_string_equal(r.decision, "");
    assert_true(isnan(r.estimate));
    assert_int_equal(jf_plan_measure(ctx, p, &src, &a, &psnr), JF_ERR_ARG); /* not a metric */
    jf_plan_free(p);
    jf_image_free(&a);
    jf_image_free(&b);

    assert_int_equal(jf_plan_create("conv", &p), JF_OK);
    assert_int_equal(jf_plan_set_weights(p, w, 2), JF_ERR_ARG);
    assert_int_equal(jf_plan_set_weights(p, w, 3), JF_OK);
    assert_int_equal(jf_plan_set(p, "border", "zero"), JF_OK);
    assert_int_equal(jf_plan_prepare(p), JF_OK);
    w[4] = 99.0f; /* the plan kept its own copy */
    assert_int_equal(jf_plan_run(ctx, p, &src, &a, NULL), JF_OK);
    w[4] = 0.5f;
    assert_int_equal(jf_convolve(ctx, &src, &b, &co), JF_OK);
    assert_true(t_images_equal(&a, &b));
    jf_plan_free(p);

    assert_int_equal(jf_plan_create("psnr", &p), JF_OK);
    assert_int_equal(jf_plan_prepare(p), JF_OK);
    assert_int_equal(jf_plan_run(ctx, p, &src, &a, NULL), JF_ERR_ARG); /* a metric */
    assert_int_equal(jf_plan_measure(ctx, p, &src, &a, &psnr), JF_OK);
    assert_int_equal(jf_psnr(ctx, &src, &a, &direct, NULL), JF_OK);
    assert_true(psnr == direct);
    jf_plan_free(p);

    /* noise in place; auto-impulse says what it decided */
    assert_int_equal(jf_plan_create("salt-pepper", &p), JF_OK);
    assert_int_equal(jf_plan_set_double(p, "density", 0.3), JF_OK);
    assert_int_equal(jf_plan_set_int(p, "seed", 7), JF_OK);
    assert_int_equal(jf_plan_prepare(p), JF_OK);
    assert_int_equal(jf_plan_run(ctx, p, &src, NULL, NULL), JF_OK);
    jf_plan_free(p);
    assert_int_equal(jf_plan_create("auto-impulse", &p), JF_OK);
    assert_int_equal(jf_plan_prepare(p), JF_OK);
    jf_image_free(&a);
    assert_int_equal(jf_plan_run(ctx, p, &src, &a, &r), JF_OK);
    assert_non_null(strstr(r.decision, "switching-median"));
    assert_true(r.estimate > 0.2 && r.estimate < 0.4);
    jf_plan_free(p);
    jf_image_free(&a);
    jf_image_free(&b);
    jf_image_free(&src);
    jf_context_destroy(ctx);
}

/* An older caller's shorter result struct gets only what it has room for. */
static void test_result_size(void **state)
{
    jf_image src = t_random_image(9, 7, 1, 0, 3), dst = {0};
    jf_op_result r;
    jf_plan *p = NULL;
    (void)state;
    memset(&r, 0x5A, sizeof r);
    r.size = offsetof(jf_op_result, kernel);
    assert_int_equal(jf_plan_create("box", &p), JF_OK);
    assert_int_equal(jf_plan_prepare(p), JF_OK);
    assert_int_equal(jf_plan_run(NULL, p, &src, &dst, &r), JF_OK);
    assert_int_equal(r.variant, JF_VARIANT_CPU);
    assert_int_equal((unsigned char)r.kernel[0], 0x5A); /* beyond its size: untouched */
    r.size = 2;
    assert_int_equal(jf_plan_run(NULL, p, &src, &dst, &r), JF_ERR_ARG);
    jf_plan_free(p);
    jf_image_free(&src);
    jf_image_free(&dst);
}

/* Every operation run on an image with no pixels refuses it by name (the
 * noise, which writes its image, calls it the target), on a prepared plan
 * and a temporary context: no operation reads through the NULL. */
static void test_images_without_pixels_refused(void **state)
{
    int i;
    (void)state;
    for (i = 0; i < jf_op_count(); i++) {
        const jf_op_info *op = jf_op_get(i);
        const float identity[9] = {0, 0, 0, 0, 1, 0, 0, 0, 0};
        jf_image src = {0}, dst = {0};
        jf_plan *p = NULL;
        if (op->kind == JF_OP_METRIC || op->kind == JF_OP_ESTIMATE)
            continue;
        src.width = src.height = 8;
        src.channels = 1;
        src.stride = 8;
        assert_int_equal(jf_plan_create(op->name, &p), JF_OK);
        if (strcmp(op->name, "conv") == 0)
            assert_int_equal(jf_plan_set_weights(p, identity, 3), JF_OK);
        assert_int_equal(jf_plan_prepare(p), JF_OK);
        if (jf_plan_run(NULL, p, &src, &dst, NULL) != JF_ERR_ARG ||
            !strstr(jf_last_error(), op->kind == JF_OP_NOISE ? "target image is NULL"
                                                             : "source image is NULL"))
            fail_msg("%s: %s", op->name, jf_last_error());
        assert_null(dst.data);
        jf_plan_free(p);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_descriptions_pinned),
        cmocka_unit_test(test_ranges_and_variants),
        cmocka_unit_test(test_plan_set_and_errors),
        cmocka_unit_test(test_resolved_values),
        cmocka_unit_test(test_typed_defaults_are_the_tables),
        cmocka_unit_test(test_names_listed),
        cmocka_unit_test(test_run_equals_functions),
        cmocka_unit_test(test_result_size),
        cmocka_unit_test(test_images_without_pixels_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
