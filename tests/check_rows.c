/*
 * Every row of the variant tables against its family's reference, case by
 * case, in the spirit of FFmpeg's checkasm: each CPU implementation and,
 * where a CUDA device is, each GPU kernel, taken by its row as `auto` might
 * never take it (second choices, the Nano's kernels under
 * JETFILTER_DEVICE_LIMITS), at awkward sizes, every border, both depths,
 * grey and colour, random samples and windows full of ties.  Each case is
 * named and timed; a failing case names itself.  The rows come from the
 * tables, so a new row is checked without a line here; a family whose rows
 * run its calls needs its reference in ORACLES, or this fails.
 *
 *   check_rows [-v] [--list] [--quick] [SUBSTRING]    (cases whose name holds it)
 *
 * --quick (or JF_CHECK_QUICK set: the emulated Jetson builds) checks k to 5
 * and the row's largest (on the two smallest images), without the largest
 * image.
 */
#include "common.h"
#include "core/context.h"
#include "core/errors.h"
#include "core/gpu.h"
#include "core/util.h"
#include "filters/conv/conv.h"
#include "filters/filters.h"
#include "filters/median/median.h"
#include "filters/rank/rank.h"
#include "filters/ops.h"
#include "filters/resolve.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int SIZES[][2] = {{1, 1}, {7, 5}, {37, 23}, {97, 61}};
#define NSIZES 4

typedef struct checker {
    int verbose, list, quick;
    const char *only;
    jf_context *cpu, *gpu;
    long cases, failed, skipped;
} checker;

struct oracle;

/* One case's inputs. */
typedef struct job {
    const struct oracle *o;
    jf_context *cpu;                  /* the CPU context the references run on */
    const jf_image *src;
    int k;
    jf_border border;
    const float *weights, *col, *row; /* convolutions */
    int mode;                         /* the oracle's second kind of case (its modes[1]) */
} job;

/* A family's reference and its calls of a row.  Families whose CPU code is
 * not yet rows (the denoisers) are checked through their operation: the
 * reference is the operation asked for the CPU by name, the row the same
 * operation asked for the row's variant (one row a variant there), and
 * the kernel that ran must be the row's. */
typedef struct oracle {
    const jf_family *family;
    int tolerance; /* levels a row may differ from the reference */
    void (*reference)(const job *j, jf_image *want);
    jf_status (*gpu)(jf_context *ctx, const job *j, const jf_choice *c, jf_image *got);
    const char *op;                      /* through the operation: its name */
    int (*params)(jf_plan *p, int k);    /* its parameters for k (0: k not its) */
    const char *modes[2];                /* two kinds of case (the convolutions' weights, the
                                            rank filters' extremes), named; NULL: one */
    const void *(*cpu_args)(const job *j); /* the CPU call's family arguments, or NULL */
} oracle;

static void median_reference(const job *j, jf_image *want)
{
    if (j->src->sample == JF_SAMPLE_F32)
        t_median_reference_f(j->src, j->k, j->border, want);
    else
        t_median_reference(j->src, j->k, j->border, want);
}

static void conv_reference(const job *j, jf_image *want)
{
    int x, y, c;
    for (y = 0; y < j->src->height; y++)
        for (x = 0; x < j->src->width; x++)
            for (c = 0; c < j->src->channels; c++) {
                const double d = t_conv_reference_at(j->src, x, y, c, j->k, j->weights, j->border);
                const float v = (float)d;
                if (j->src->sample == JF_SAMPLE_F32)
                    t_set_fpx(want, x, y, c, d);
                else
                    t_set_px(want, x, y, c,
                             j->src->sample == JF_SAMPLE_U16 ? jf_saturate_round16(v) : jf_saturate_round(v));
            }
}

/* The operation with the case's parameters, asked for variant v. */
static jf_status plan_run(jf_context *ctx, const job *j, jf_variant v, jf_image *out, char *kernel,
                          size_t n)
{
    jf_op_result r = JF_OP_RESULT_INIT;
    jf_image src = *j->src; /* read, not written: a filter */
    jf_plan *p = NULL;
    jf_status st;
    if ((st = jf_plan_create(j->o->op, &p)) != JF_OK)
        return st;
    if (!j->o->params(p, j->k) ||
        (st = jf_plan_set(p, "border", jf_border_name(j->border))) != JF_OK ||
        (st = jf_plan_set(p, "variant", jf_variant_name(v))) != JF_OK ||
        (st = jf_plan_prepare(p)) != JF_OK || (st = jf_plan_run(ctx, p, &src, out, &r)) != JF_OK) {
        jf_plan_free(p);
        return st != JF_OK ? st : JF_ERR_ARG;
    }
    jf_plan_free(p);
    if (kernel)
        snprintf(kernel, n, "%s", r.kernel);
    return JF_OK;
}

static void plan_reference(const job *j, jf_image *want)
{
    if (plan_run(j->cpu, j, JF_VARIANT_CPU, want, NULL, 0) != JF_OK)
        fail_msg("%s on the CPU: %s", j->o->op, jf_last_error());
}

/* search + patch - 1 = k, patches of 3 (1 below), the noise given */
static int nlm_params(jf_plan *p, int k)
{
    char v[16];
    const int patch = k >= 5 ? 3 : 1, search = k - patch + 1;
    if (search < 3)
        return 0;
    snprintf(v, sizeof v, "%d", search);
    if (jf_plan_set(p, "search", v) != JF_OK)
        return 0;
    snprintf(v, sizeof v, "%d", patch);
    return jf_plan_set(p, "patch", v) == JF_OK && jf_plan_set(p, "noise-sigma", "12") == JF_OK;
}

static int bilateral_params(jf_plan *p, int k)
{
    char v[16];
    snprintf(v, sizeof v, "%d", k);
    return jf_plan_set(p, "ksize", v) == JF_OK;
}

/* the k x k minimum or maximum, straight from the definition (t_border_index's
 * borders, zero outside for `zero`) */
static void rank_reference(const job *j, jf_image *want)
{
    const jf_image *src = j->src;
    const int r = j->k / 2;
    int x, y, c, dx, dy;
    for (y = 0; y < src->height; y++)
        for (x = 0; x < src->width; x++)
            for (c = 0; c < src->channels; c++) {
                unsigned v = j->mode ? 0u : src->sample == JF_SAMPLE_U16 ? 65535u : 255u;
                for (dy = -r; dy <= r; dy++)
                    for (dx = -r; dx <= r; dx++) {
                        const int sx = t_border_index(x + dx, src->width, j->border);
                        const int sy = t_border_index(y + dy, src->height, j->border);
                        const unsigned s = sx < 0 || sy < 0 ? 0u : t_px(src, sx, sy, c);
                        v = j->mode ? (s > v ? s : v) : (s < v ? s : v);
                    }
                t_set_px(want, x, y, c, v);
            }
}

#ifdef JF_HAVE_CUDA
static jf_status plan_gpu(jf_context *ctx, const job *j, const jf_choice *c, jf_image *got)
{
    char kernel[64];
    jf_status st = plan_run(ctx, j, c->variant, got, kernel, sizeof kernel);
    if (st == JF_OK && strcmp(kernel, c->row->kernel) != 0)
        return jf_fail(JF_ERR_INTERNAL, "%s ran instead of %s", kernel, c->row->kernel);
    return st;
}

static jf_status median_gpu(jf_context *ctx, const job *j, const jf_choice *c, jf_image *got)
{
    jf_median_options o = t_median_opts(j->k, j->border, c->variant);
    return jf_median_cuda(ctx, j->src, got, &o, c);
}
static jf_status conv_gpu(jf_context *ctx, const job *j, const jf_choice *c, jf_image *got)
{
    jf_conv_options o = t_conv_opts(j->k, j->weights, j->border, c->variant);
    return jf_convolve_cuda(ctx, j->src, got, &o, c, j->col, j->row);
}
#define GPU_CALL(fn) fn
#else
#define GPU_CALL(fn) NULL
#endif

static const void *rank_args(const job *j)
{
    static const jf_rank_which which[2] = {{0}, {1}};
    return &which[j->mode];
}

#ifdef JF_HAVE_CUDA
static jf_status rank_gpu(jf_context *ctx, const job *j, const jf_choice *c, jf_image *got)
{
    return jf_rank_cuda(ctx, j->src, got, j->k, j->border, j->mode, c);
}
#endif

static const oracle ORACLES[] = {
    {&jf_median_family, 0, median_reference, GPU_CALL(median_gpu), NULL, NULL, {NULL, NULL}, NULL},
    {&jf_conv_family, 1, conv_reference, GPU_CALL(conv_gpu), NULL, NULL, {"full-rank", "rank-1"}, NULL},
    {&jf_nlmeans_family, 1, plan_reference, GPU_CALL(plan_gpu), "nlmeans", nlm_params, {NULL, NULL}, NULL},
    {&jf_bilateral_family, 1, plan_reference, GPU_CALL(plan_gpu), "bilateral", bilateral_params,
     {NULL, NULL}, NULL},
    {&jf_rank_family, 0, rank_reference, GPU_CALL(rank_gpu), NULL, NULL, {"erode", "dilate"}, rank_args},
};

static int rows_run_calls(const jf_family *f)
{
    int i;
    for (i = 0; i < f->row_count; i++)
        if (f->rows[i].cpu || f->rows[i].run)
            return 1;
    return 0;
}

/* The k a row is checked at: every odd one to 11, then 15, 31, 63 and its
 * largest; the image sizes shrink as k grows (the reference is direct). */
static int row_ks(const jf_variant_row *r, int quick, int *ks)
{
    static const int more[] = {15, 31, 63};
    const int small = quick ? 5 : 11;
    int k, i, n = 0;
    for (k = r->kmin < 1 ? 1 : r->kmin; k <= small && k <= r->kmax; k += 2)
        ks[n++] = k;
    for (i = 0; i < 3 && !quick; i++)
        if (more[i] >= r->kmin && more[i] < r->kmax)
            ks[n++] = more[i];
    if (r->kmax > small)
        ks[n++] = r->kmax;
    return n;
}

/* Rank-1 weights that the 16-bit fixed point takes (non-negative, sum 1),
 * or k x k weights of both signs that are not rank 1. */
static float *make_weights(int k, int rank1, uint64_t seed, float *col, float *row)
{
    float *w = malloc(sizeof(float) * (size_t)k * k);
    double sc = 0, sr = 0;
    uint64_t s = seed * 0x9E3779B97F4A7C15ull + 3;
    int i, j;
    if (!w)
        abort();
    for (i = 0; i < k; i++) {
        col[i] = (float)(1 + t_rand(&s) % 9);
        row[i] = (float)(1 + t_rand(&s) % 9);
        sc += col[i];
        sr += row[i];
    }
    for (j = 0; j < k; j++)
        for (i = 0; i < k; i++)
            w[j * k + i] = rank1 ? (float)(col[j] / sc * (row[i] / sr))
                                 : (float)((int)(t_rand(&s) % 21) - 8) / (float)(3 * k * k);
    if (!rank1 && k > 1)
        w[0] += 0.25f; /* a lone corner: not rank 1 */
    return w;
}

static jf_image make_source(int w, int h, int ch, jf_sample sample, int ties, uint64_t seed)
{
    if (sample == JF_SAMPLE_F32) /* NaN, infinities and signed zeros among them */
        return t_random_float(w, h, ch, 3, ties ? 1 : 0, seed);
    if (sample == JF_SAMPLE_U16)
        return t_random_image16(w, h, ch, 3, ties ? 14 : 0, seed);
    {
        jf_image img = t_random_image(w, h, ch, 3, seed);
        if (ties) /* four levels: windows full of ties */
            t_map_bytes(&img, 6);
        return img;
    }
}

static void case_name(char *out, size_t n, const jf_variant_row *r, const job *j)
{
    snprintf(out, n, "%s k=%d %dx%dx%d %s %s%s%s", r->kernel, j->k, j->src->width, j->src->height,
             j->src->channels, jf_sample_name(j->src->sample),
             jf_border_name(j->border), j->o->modes[0] ? " " : "",
             j->o->modes[0] ? j->o->modes[j->mode] : "");
}

/* Does the operation (where the check goes through it) take this k? */
static int op_takes(const oracle *o, int k)
{
    jf_plan *p = NULL;
    int ok;
    if (!o->op)
        return 1;
    if (jf_plan_create(o->op, &p) != JF_OK)
        return 0;
    ok = o->params(p, k);
    jf_plan_free(p);
    return ok;
}

/* Float outputs against the reference: the median exactly (NaN equal to
 * NaN), the convolutions within the stated tolerance of the double sum:
 * k^2 x 2^-23 x the sum of |weight x sample| (float's worst rounding over
 * k^2 additions), plus 2e-6 x max |weight| x the sum of |sample| for the
 * factors of rank-1 weights (jf_kernel_separate's 1e-6, twice); NaN and
 * infinities where the reference has them. */
static long float_misses(const job *j, const jf_image *got, const jf_image *want)
{
    const int k = j->k, r = k / 2;
    long bad = 0;
    int x, y, c, a, b;
    double wmax = 0.0;
    if (!j->weights)
        return t_float_mismatches(got, want);
    for (a = 0; a < k * k; a++)
        wmax = fmax(wmax, fabs((double)j->weights[a]));
    for (y = 0; y < got->height; y++)
        for (x = 0; x < got->width; x++)
            for (c = 0; c < got->channels; c++) {
                const double g = t_fpx(got, x, y, c), want_v = t_fpx(want, x, y, c);
                double terms = 0.0, samples = 0.0, tol;
                if (isnan(want_v) || isinf(want_v)) {
                    if (!(isnan(want_v) ? isnan(g) : g == want_v) && bad++ == 0)
                        printf("  at %d,%d,%d: %.9g, the reference %.9g\n", x, y, c, g, want_v);
                    continue;
                }
                for (b = 0; b < k; b++)
                    for (a = 0; a < k; a++) {
                        const double v = fabs(t_sample_at(j->src, x + a - r, y + b - r, c, j->border));
                        terms += fabs((double)j->weights[b * k + a]) * v;
                        samples += v;
                    }
                tol = (double)k * k * FLT_EPSILON * terms + (j->col ? 2e-6 * wmax * samples : 0.0);
                if (!(fabs(g - want_v) <= tol) && bad++ == 0)
                    printf("  at %d,%d,%d: %.9g, the reference %.9g (tolerance %.3g)\n", x, y, c, g,
                           want_v, tol);
            }
    return bad;
}

/* Run one case of row r: the reference, then the row; compare. */
static void run_case(checker *ck, const oracle *o, const jf_variant_row *r, job *j, int rank1)
{
    jf_image want = t_poisoned_like(j->src, 0), got = t_poisoned_like(j->src, 2);
    jf_resolve_in in;
    jf_choice choice;
    jf_status st;
    char name[160];
    double ms;
    int diff;
    jf_shape shape;

    case_name(name, sizeof name, r, j);
    if (ck->only && !strstr(name, ck->only))
        goto done;
    memset(&in, 0, sizeof in);
    in.family = o->family;
    in.fn = "check_rows";
    in.dev = r->variant == JF_VARIANT_CPU ? NULL : jf_gpu_info(ck->gpu);
    in.shape.width = j->src->width;
    in.shape.height = j->src->height;
    in.shape.channels = j->src->channels;
    in.shape.sample = j->src->sample;
    in.shape.rank1 = rank1;
    in.shape.weights = j->weights;
    in.k = j->k;
    shape = in.shape;
    if (jf_resolve_row(&in, r, &choice) != JF_OK || (r->takes && !r->takes(&shape, j->k)) ||
        !op_takes(o, j->k)) {
        ck->skipped++; /* not this row's case here (a device it needs, weights it leaves) */
        jf_error_clear();
        goto done;
    }
    if (ck->list) {
        printf("%s\n", name);
        goto done;
    }
    o->reference(j, &want);
    ms = jf_now_ms();
    if (r->variant == JF_VARIANT_CPU) {
        jf_cpu_call call = jf_cpu_call_of(ck->cpu, j->src, &got, j->k, j->border);
        call.args = o->cpu_args ? o->cpu_args(j) : NULL;
        call.weights = j->weights;
        call.col = j->col;
        call.row = j->row;
        st = jf_cpu_row_run(&choice, o->family->name, &call);
    } else {
        st = o->gpu(ck->gpu, j, &choice, &got);
        if (st == JF_OK)
            st = jf_context_sync(ck->gpu);
    }
    ms = jf_now_ms() - ms;
    ck->cases++;
    if (st == JF_OK && j->src->sample == JF_SAMPLE_F32) {
        const long bad = float_misses(j, &got, &want);
        if (bad) {
            ck->failed++;
            printf("FAIL %s: %ld samples beyond the tolerance\n", name, bad);
        } else if (ck->verbose) {
            printf("ok   %s  %.3f ms\n", name, ms);
        }
        goto done;
    }
    diff = st == JF_OK ? t_max_abs_diff(&got, &want) : -1;
    if (st != JF_OK || diff > o->tolerance) {
        ck->failed++;
        if (st != JF_OK)
            printf("FAIL %s: %s\n", name, jf_last_error());
        else
            printf("FAIL %s: %d levels from the reference (at most %d)\n", name, diff, o->tolerance);
    } else if (ck->verbose) {
        printf("ok   %s  %.3f ms\n", name, ms);
    }
done:
    jf_image_free(&want);
    jf_image_free(&got);
}

/* One source of every kind a row takes, at size s, each weighting and border. */
static void row_cases(checker *ck, const oracle *o, const jf_variant_row *r, int k, int w, int h,
                      int ch, jf_sample smp, int ties, uint64_t seed)
{
    const int is_conv = o->family == &jf_conv_family;
    jf_image src = make_source(w, h, ch, smp, ties, seed);
    int mode, b;
    for (mode = 0; mode <= (o->modes[0] != NULL); mode++) {
        float col[JF_CONV_MAX_KSIZE], row[JF_CONV_MAX_KSIZE];
        float *wt = is_conv ? make_weights(k, mode, seed, col, row) : NULL;
        job j;
        memset(&j, 0, sizeof j);
        j.o = o;
        j.cpu = ck->cpu;
        j.src = &src;
        j.k = k;
        j.weights = wt;
        j.mode = mode;
        if (wt && k > 1 && jf_kernel_separate(wt, k, col, row)) { /* as the entry finds them */
            j.col = col;
            j.row = row;
        }
        for (b = 0; b < JF_BORDER_COUNT; b++) {
            j.border = (jf_border)b;
            run_case(ck, o, r, &j, j.col != NULL);
        }
        free(wt);
    }
    jf_image_free(&src);
}

/* Every case of one row. */
static void check_row(checker *ck, const oracle *o, const jf_variant_row *r)
{
    static const int big[][2] = {{160, 120}, {640, 480}};
    const long before = ck->cases, failed = ck->failed;
    int ks[16], nk = row_ks(r, ck->quick, ks), i, s, ch, sample;
    double t0 = jf_now_ms();
    for (i = 0; i < nk; i++)
        for (s = 0; s < NSIZES; s++) {
            if ((ks[i] > 11 && s >= (ck->quick ? 2 : NSIZES - 1)) || (ck->quick && s == NSIZES - 1) ||
                (ks[i] > 63 && s == 0))
                continue;
            for (ch = 1; ch <= 4; ch++) {
                if (ch == 2 || (ch == 4 && s != 1))
                    continue;
                for (sample = 0; sample < JF_SAMPLE_COUNT; sample++)
                    if ((r->samples & (1u << sample)) && /* floats: a sort a window */
                        !(sample == JF_SAMPLE_F32 && ks[i] > 11 &&
                          (s > 1 || ck->quick || (ks[i] > 63 && ch != 1))))
                        row_cases(ck, o, r, ks[i], SIZES[s][0], SIZES[s][1], ch, (jf_sample)sample,
                                  s % 2, (uint64_t)(ks[i] * 131 + s * 7 + ch * 3 + sample));
            }
        }
    /* a row taken only where it pays (the FFT: large images and k) */
    for (s = 0; s < 2 && r->takes && ck->cases == before && !ck->only && !ck->list; s++)
        row_cases(ck, o, r, 31, big[s][0], big[s][1], 1, JF_SAMPLE_U8, 0, 5);
    if (!ck->list && (!ck->only || ck->cases > before))
        printf("%-28s %-7s %5ld cases %s  %8.1f ms\n", r->kernel, jf_variant_name(r->variant),
               ck->cases - before,
               ck->failed > failed ? "FAILED" : ck->cases > before ? "ok" : "(not on this device)",
               jf_now_ms() - t0);
    if (!ck->list && !ck->only && ck->cases == before && r->variant == JF_VARIANT_CPU) {
        printf("FAIL %s: no case of it ran\n", r->kernel);
        ck->failed++;
    }
}

int main(int argc, char **argv)
{
    checker ck;
    jf_context_options co;
    int i, f, r, families = 0;
    double t0 = jf_now_ms();
    memset(&ck, 0, sizeof ck);
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-v"))
            ck.verbose = 1;
        else if (!strcmp(argv[i], "--list"))
            ck.list = 1;
        else if (!strcmp(argv[i], "--quick"))
            ck.quick = 1;
        else
            ck.only = argv[i];
    }
    if (getenv("JF_CHECK_QUICK"))
        ck.quick = 1;
    ck.cpu = t_cpu_context(2);
    co = t_context_opts(JF_BACKEND_CUDA, 2, JF_MEMORY_COPY);
    if (jf_context_create(&co, &ck.gpu) != JF_OK) {
        ck.gpu = NULL; /* no device here: the CPU rows */
        jf_error_clear();
    }
    for (f = 0; f < jf_op_count(); f++) {
        const jf_family *fam = jf_ops[f].family;
        const oracle *o = NULL;
        int seen = 0;
        for (i = 0; i < f; i++)
            seen |= jf_ops[i].family == fam;
        if (!fam || seen || !rows_run_calls(fam))
            continue;
        for (i = 0; i < (int)(sizeof ORACLES / sizeof ORACLES[0]); i++)
            if (ORACLES[i].family == fam)
                o = &ORACLES[i];
        if (!o) {
            printf("FAIL family %s: its rows run its calls, but check_rows has no reference for it\n",
                   fam->name);
            ck.failed++;
            continue;
        }
        families++;
        for (r = 0; r < fam->row_count; r++) {
            const jf_variant_row *row = &fam->rows[r];
            if (row->variant == JF_VARIANT_CPU ? !row->cpu : (!ck.gpu || !row->run || !o->gpu))
                continue;
            check_row(&ck, o, row);
        }
    }
    if (!ck.list)
        printf("%ld cases in %d families (%s), %ld failed, %ld not for their row here; %.0f ms\n",
               ck.cases, families, ck.gpu ? "CPU and GPU rows" : "CPU rows: no CUDA device",
               ck.failed, ck.skipped, jf_now_ms() - t0);
    jf_context_destroy(ck.cpu);
    jf_context_destroy(ck.gpu);
    return ck.failed || (!ck.list && !ck.only && ck.cases == 0) ? 1 : 0;
}
