/* The variant resolver (resolve.h): one decision, from the variant table. */
#include "filters/resolve.h"
#include "core/context.h"
#include "core/errors.h"
#include "core/names.h"
#include "core/profile.h"

#include <stdio.h>
#include <string.h>

size_t jf_device_smem_limit(const jf_device_info *dev)
{
    const int n = dev->shared_per_block_optin > dev->shared_per_block ? dev->shared_per_block_optin
                                                                       : dev->shared_per_block;
    return n > 0 ? (size_t)n : 0;
}

const char *jf_samples_words(unsigned samples)
{
    static const char *const words[8] = {"no",          "8-bit",          "16-bit",
                                          "8- and 16-bit", "float32",       "8-bit and float32",
                                          "16-bit and float32", "8-bit, 16-bit and float32"};
    return words[samples & 7u];
}

static int cc_of(const jf_device_info *dev) { return dev->cc_major * 10 + dev->cc_minor; }
/* What the kernels were compiled for: a row that needs newer code than the
 * device runs (a Nano-only build, its PTX compiled at load on a newer GPU)
 * finds its kernel's body compiled out. */
static int code_cc_of(const jf_device_info *dev)
{
    return dev->code_cc > 0 && dev->code_cc < cc_of(dev) ? dev->code_cc : cc_of(dev);
}

static size_t row_smem(const jf_variant_row *row, const jf_shape *s, int k, int bx, int by)
{
    return row->smem ? row->smem(s, k, bx, by) : 0;
}

/* The row's default block for this image: its rule, then fewer rows until
 * its shared memory fits; 0 x 0 when nothing fits. */
static void default_block(const jf_variant_row *row, const jf_device_info *dev, const jf_shape *s,
                          int k, int *bx, int *by)
{
    const size_t limit = jf_device_smem_limit(dev);
    *bx = row->block_x;
    *by = row->block_y;
    if (row->block)
        row->block(dev, s, k, bx, by);
    if (*bx < 1 || *by < 1) {
        *bx = *by = 0;
        return;
    }
    while (*by > 1 && row_smem(row, s, k, *bx, *by) > limit)
        *by /= 2;
    if (row_smem(row, s, k, *bx, *by) > limit)
        *bx = *by = 0;
}

/* Why a row cannot run, from the least telling reason to the most: the
 * resolver reports the most telling one its variant's rows gave. */
enum { RUNS = 0, NO_K, NOT_THESE_SAMPLES, NOT_THIS_DEVICE };

static int row_check(const jf_variant_row *row, const jf_device_info *dev, const jf_shape *s, int k,
                     char *why, size_t n)
{
    int bx, by;
    if (k < row->kmin || k > row->kmax || k % 2 == 0) {
        if (row->kmin == row->kmax)
            snprintf(why, n, "%s runs k = %d only", row->kernel, row->kmin);
        else
            snprintf(why, n, "%s runs k = %d to %d", row->kernel, row->kmin, row->kmax);
        return NO_K;
    }
    if (!(row->samples & (1u << s->sample))) {
        snprintf(why, n, "%s takes %s samples only", row->kernel, jf_samples_words(row->samples));
        return NOT_THESE_SAMPLES;
    }
    if (row->grey_only && s->channels != 1) {
        snprintf(why, n, "%s takes grey images only", row->kernel);
        return NOT_THESE_SAMPLES;
    }
    if (row->rank1 && !s->rank1) {
        snprintf(why, n, "%s takes rank-1 weights only (box, Gaussian, a separable kernel)",
                 row->kernel);
        return NOT_THESE_SAMPLES;
    }
    if (row->variant == JF_VARIANT_CPU)
        return RUNS;
    if (!dev) {
        snprintf(why, n, "%s needs the CUDA backend", row->kernel);
        return NOT_THIS_DEVICE;
    }
    if (row->min_cc && code_cc_of(dev) < row->min_cc) {
        if (cc_of(dev) < row->min_cc)
            snprintf(why, n, "%s needs compute capability %d.%d (this device: %d.%d)", row->kernel,
                     row->min_cc / 10, row->min_cc % 10, dev->cc_major, dev->cc_minor);
        else
            snprintf(why, n, "%s needs code for compute capability %d.%d (this build's kernels "
                     "run here as compiled for %d.%d)", row->kernel, row->min_cc / 10,
                     row->min_cc % 10, code_cc_of(dev) / 10, code_cc_of(dev) % 10);
        return NOT_THIS_DEVICE;
    }
    if (row->max_cc && cc_of(dev) > row->max_cc && !dev->limited) {
        snprintf(why, n, "%s is made for compute capability %d.%d and older (this device: %d.%d)",
                 row->kernel, row->max_cc / 10, row->max_cc % 10, dev->cc_major, dev->cc_minor);
        return NOT_THIS_DEVICE;
    }
    if (row->full_device && dev->limited) {
        snprintf(why, n, "%s is not run under the Nano's limits (JETFILTER_DEVICE_LIMITS)",
                 row->kernel);
        return NOT_THIS_DEVICE;
    }
    /* after the device's checks: a weights test can cost more than they do
     * (the fixed-point convolution quantises its weights), and a row made
     * for another device need not run it */
    if (row->takes && !row->takes(s, k)) {
        snprintf(why, n, "%s does not take these weights (%s)", row->kernel, row->what);
        return NOT_THESE_SAMPLES;
    }
    default_block(row, dev, s, k, &bx, &by);
    if (bx == 0) {
        snprintf(why, n, "%s needs more shared memory than the %zu bytes a block gets here",
                 row->kernel, jf_device_smem_limit(dev));
        return NOT_THIS_DEVICE;
    }
    return RUNS;
}

int jf_row_runs(const jf_variant_row *row, const jf_device_info *dev, const jf_shape *s, int k,
                char *why, size_t n)
{
    char tmp[160];
    return row_check(row, dev, s, k, why ? why : tmp, why ? n : sizeof tmp) == RUNS;
}

/* The first row of variant v that runs; NULL with the most telling reason
 * its rows gave (where none runs this k, the widest range of k a row has:
 * a special row for one k says less of what the variant does). */
static const jf_variant_row *first_row(const jf_family *f, jf_variant v, const jf_device_info *dev,
                                       const jf_shape *s, int k, char *why, size_t n)
{
    int i, best = -1, span = -1;
    for (i = 0; i < f->row_count; i++) {
        const jf_variant_row *row = &f->rows[i];
        char w[160];
        int level;
        if (row->variant != v)
            continue;
        if ((level = row_check(row, dev, s, k, w, sizeof w)) == RUNS)
            return row;
        if (level > best || (level == NO_K && best == NO_K && row->kmax - row->kmin > span)) {
            snprintf(why, n, "%s", w);
            best = level;
            span = row->kmax - row->kmin;
        }
    }
    if (best < 0)
        snprintf(why, n, "%s has no '%s' variant", f->name, jf_variant_name(v));
    return NULL;
}

int jf_variant_runs(const jf_family *f, jf_variant v, const jf_device_info *dev, const jf_shape *s,
                    int k)
{
    char why[160];
    if (!dev && v != JF_VARIANT_CPU)
        return 0;
    return first_row(f, v, dev, s, k, why, sizeof why) != NULL;
}

static int has_variant(const jf_family *f, jf_variant v)
{
    int i;
    for (i = 0; i < f->row_count; i++)
        if (f->rows[i].variant == v)
            return 1;
    return 0;
}

const char *jf_family_profile_key(const jf_family *f, int rank1)
{
    int i;
    if (rank1)
        for (i = 0; i < f->row_count; i++)
            if (f->rows[i].rank1)
                return strcmp(f->name, "conv") == 0 ? "conv-rank1" : f->name;
    return f->name;
}

/* A block the caller gave: well formed, and within the device's shared
 * memory for this row. */
static jf_status check_block(const jf_resolve_in *in, const jf_variant_row *row, jf_choice *out)
{
    const int bx = in->block_x, by = in->block_y;
    const size_t limit = jf_device_smem_limit(in->dev);
    if (bx < 4 || bx % 4 != 0 || by < 1 || bx > 1024 || by > 1024 || bx * by > 1024 ||
        (in->dev->max_threads_per_block > 0 && bx * by > in->dev->max_threads_per_block))
        return jf_fail(JF_ERR_ARG, "%s: block %dx%d: width must be a multiple of 4 and width x "
                       "height at most %d", in->fn, bx, by,
                       in->dev->max_threads_per_block > 0 ? in->dev->max_threads_per_block : 1024);
    out->smem = row_smem(row, &in->shape, in->k, bx, by);
    if (out->smem > limit)
        return jf_fail(JF_ERR_ARG, "%s: block %dx%d: %s needs %zu bytes of shared memory at k = %d; "
                       "this device gives a block %zu", in->fn, bx, by, row->kernel, out->smem,
                       in->k, limit);
    out->block_x = bx;
    out->block_y = by;
    return JF_OK;
}

/* Take `row`, with the caller's block or its default. */
static jf_status take(const jf_resolve_in *in, const jf_variant_row *row, jf_choice *out)
{
    out->variant = row->variant;
    out->row = row;
    if (row->variant == JF_VARIANT_CPU)
        return JF_OK;
    if (in->block_x || in->block_y)
        return check_block(in, row, out);
    default_block(row, in->dev, &in->shape, in->k, &out->block_x, &out->block_y);
    out->smem = row_smem(row, &in->shape, in->k, out->block_x, out->block_y);
    return JF_OK;
}

/* The CPU row that runs this: the first that can run k on this shape and,
 * under `auto`, takes these weights (a row with a test of the weights is
 * passed over when the CPU is asked for by name); a family with one CPU
 * row for everything, that row. */
static const jf_variant_row *cpu_row(const jf_resolve_in *in)
{
    const jf_family *f = in->family;
    const jf_variant_row *first = NULL;
    int i;
    for (i = 0; i < f->row_count; i++) {
        const jf_variant_row *r = &f->rows[i];
        if (r->variant != JF_VARIANT_CPU)
            continue;
        if (!first)
            first = r;
        if (jf_row_runs(r, NULL, &in->shape, in->k, NULL, 0) &&
            (!r->takes || (in->asked == JF_VARIANT_AUTO && r->takes(&in->shape, in->k))))
            return r;
    }
    return first;
}

int jf_family_runs_cpu_rows(const jf_family *f)
{
    int i;
    for (i = 0; i < f->row_count; i++)
        if (f->rows[i].variant == JF_VARIANT_CPU && f->rows[i].cpu)
            return 1;
    return 0;
}

size_t jf_cpu_work_bytes(const jf_family *f, const jf_shape *s, int k, int threads)
{
    jf_resolve_in in;
    const jf_variant_row *a, *b;
    size_t na, nb;
    memset(&in, 0, sizeof in);
    in.family = f;
    in.shape = *s;
    in.k = k;
    in.asked = JF_VARIANT_AUTO;
    a = cpu_row(&in);
    in.asked = JF_VARIANT_CPU;
    b = cpu_row(&in);
    na = a && a->cpu_work ? a->cpu_work(s, k, threads) : 0;
    nb = b && b->cpu_work ? b->cpu_work(s, k, threads) : 0;
    return na > nb ? na : nb;
}

/* `auto` under a tuning profile: its measured choice, where it has one for
 * this k near this size and that choice runs here. */
static int from_profile(const jf_resolve_in *in, jf_choice *out)
{
    const jf_profile_choice *c;
    const jf_variant_row *row;
    char why[160];
    jf_resolve_in mine;
    if (!in->profile || !in->family->tuned || in->shape.sample != JF_SAMPLE_U8)
        return 0;
    c = jf_profile_choose(in->profile, jf_family_profile_key(in->family, in->shape.rank1),
                          in->shape.channels, in->shape.width, in->shape.height, in->k);
    if (!c || !(row = first_row(in->family, c->variant, in->dev, &in->shape, in->k, why, sizeof why)))
        return 0;
    mine = *in;
    if (!in->block_x && !in->block_y && (c->block_x || c->block_y)) {
        mine.block_x = c->block_x;
        mine.block_y = c->block_y;
    }
    if (take(&mine, row, out) != JF_OK) {
        jf_error_clear(); /* a profile's block that does not fit: the built-in rules */
        memset(out, 0, sizeof *out);
        return 0;
    }
    snprintf(out->reason, sizeof out->reason, "auto: the tuning profile's fastest at %dx%d, k = %d",
             c->width, c->height, c->k);
    return 1;
}

static int pref_applies(const jf_auto_pref *p, const jf_resolve_in *in)
{
    const double sms = in->dev->multiprocessors > 0 ? in->dev->multiprocessors : 132.0;
    const double samples = (double)in->shape.width * in->shape.height * in->shape.channels;
    if (in->k < p->kmin || in->k > p->kmax)
        return 0;
    return p->below_samples <= 0 || samples < p->below_samples * sms / 132.0;
}

static jf_status resolve_auto(const jf_resolve_in *in, jf_choice *out)
{
    char passed[170] = "", why[160];
    int i;
    if (from_profile(in, out))
        return JF_OK;
    for (i = 0; i < in->family->pref_count; i++) {
        const jf_auto_pref *p = &in->family->prefs[i];
        const jf_variant_row *row;
        if (!pref_applies(p, in))
            continue;
        if (!(row = first_row(in->family, p->variant, in->dev, &in->shape, in->k, why, sizeof why))) {
            if (!passed[0])
                snprintf(passed, sizeof passed, "; %s", why);
            continue;
        }
        if (snprintf(out->reason, sizeof out->reason, "auto: %s (%s)%s", jf_variant_name(p->variant),
                     p->why, passed) >= (int)sizeof out->reason)
            out->reason[sizeof out->reason - 1] = '\0'; /* cut: the reason is for people */
        return take(in, row, out);
    }
    /* a family with no CUDA kernel (noise), or none that runs this */
    if (cpu_row(in) && !in->family->pref_count) {
        out->variant = JF_VARIANT_CPU;
        out->row = cpu_row(in);
        snprintf(out->reason, sizeof out->reason, "%s runs on the CPU only", in->family->name);
        return JF_OK;
    }
    return jf_fail(JF_ERR_UNSUPPORTED, "%s: no variant runs k = %d on this device%s", in->fn, in->k,
                   passed);
}

jf_status jf_resolve(const jf_resolve_in *in, jf_choice *out)
{
    char why[160];
    const jf_variant_row *row;
    memset(out, 0, sizeof *out);
    if ((unsigned)in->asked >= JF_VARIANT_COUNT)
        return jf_fail(JF_ERR_ARG, "%s: unknown variant %d", in->fn, (int)in->asked);
    if (in->asked != JF_VARIANT_AUTO && !has_variant(in->family, in->asked))
        return jf_fail(JF_ERR_UNSUPPORTED, "%s: no '%s' variant (%s has no such kernels)", in->fn,
                       jf_variant_name(in->asked), in->family->name);
    if (!in->dev || in->asked == JF_VARIANT_CPU) {
        if (in->asked != JF_VARIANT_CPU && in->asked != JF_VARIANT_AUTO)
            return jf_fail(JF_ERR_ARG, "%s: variant '%s' needs the CUDA backend", in->fn,
                           jf_variant_name(in->asked));
        out->variant = JF_VARIANT_CPU;
        out->row = cpu_row(in);
        snprintf(out->reason, sizeof out->reason, "%s",
                 in->asked == JF_VARIANT_CPU ? "asked for" : "the CPU backend");
        return JF_OK;
    }
    if (in->asked == JF_VARIANT_AUTO)
        return resolve_auto(in, out);
    if (!(row = first_row(in->family, in->asked, in->dev, &in->shape, in->k, why, sizeof why)))
        return jf_fail(JF_ERR_UNSUPPORTED, "%s: variant '%s' cannot run k = %d on this %d-bit "
                       "image here: %s", in->fn, jf_variant_name(in->asked), in->k,
                       8 * (in->shape.sample == JF_SAMPLE_U16 ? 2 : 1), why);
    snprintf(out->reason, sizeof out->reason, "asked for");
    return take(in, row, out);
}

jf_status jf_resolve_row(const jf_resolve_in *in, const jf_variant_row *row, jf_choice *out)
{
    char why[160];
    memset(out, 0, sizeof *out);
    if (!jf_row_runs(row, in->dev, &in->shape, in->k, why, sizeof why))
        return jf_fail(JF_ERR_UNSUPPORTED, "%s: %s", in->fn, why);
    snprintf(out->reason, sizeof out->reason, "the row %s, asked for", row->kernel);
    return take(in, row, out);
}

void jf_choice_record(jf_context *ctx, const jf_choice *c)
{
    if (!ctx)
        return;
    ctx->last.variant = c->variant;
    snprintf(ctx->last.kernel, sizeof ctx->last.kernel, "%s", c->row ? c->row->kernel : "");
    ctx->last.block_x = c->block_x;
    ctx->last.block_y = c->block_y;
    snprintf(ctx->last.reason, sizeof ctx->last.reason, "%s", c->reason);
}
