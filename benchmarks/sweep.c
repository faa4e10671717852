/* The bench sweep: backends x sizes x channels x operations x k x borders x
 * variants (and NPP), measured as sweep.h describes. */
#define _DEFAULT_SOURCE
#include "benchmarks/sweep.h"
#include "benchmarks/bench_util.h"
#include "benchmarks/npp.h"
#include "calib/power.h"
#include "core/errors.h"
#include "filters/filters.h"
#include "filters/resolve.h"
#include "core/names.h"
#include "core/stats.h"
#include "core/util.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ROTATE 8

typedef struct size_run {
    jf_sweep *sw;
    jf_context *ctx, *cpu;
    jf_power_meter *meter;
    int cuda, w, h, ch, nrot, reps, warm;
    jf_sample sample;
    jf_image host[MAX_ROTATE], dev[MAX_ROTATE];
    jf_image out, host_out, ref;
    double *t;
} size_run;

static void say(jf_sweep *sw, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (sw->log)
        sw->log(sw->user, msg);
}

/* 16 bits: v * 256 plus a seeded low byte, so the low byte is not a copy
 * of the high one (a sensor's data has its own); 0..65535 without overflow. */
static jf_status widen(jf_image *img, uint64_t state)
{
    jf_image deep;
    jf_status st;
    int x, y;
    if ((st = jf_image_alloc_as(&deep, img->width, img->height, img->channels, JF_SAMPLE_U16)) != JF_OK)
        return st;
    for (y = 0; y < deep.height; y++) {
        const unsigned char *in = img->data + (size_t)y * img->stride;
        uint16_t *row = (uint16_t *)(void *)(deep.data + (size_t)y * deep.stride);
        for (x = 0; x < deep.width * deep.channels; x++) {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            row[x] = (uint16_t)(in[x] * 256u + (unsigned)(state >> 56));
        }
    }
    jf_image_free(img);
    *img = deep;
    return JF_OK;
}

/* The photo tiled to w x h (grey = (R+G+B)/3), or seeded random bytes;
 * `shift` makes rotated copies differ.  Salt and pepper on top when asked;
 * then widened to 16 bits when the depth asks. */
static jf_status make_input(const jf_sweep *sw, int w, int h, int ch, int shift, jf_sample sample,
                            jf_image *img)
{
    uint64_t state = 0x9E3779B97F4A7C15ull * (uint64_t)(shift + 1);
    const size_t n = (size_t)w * h * ch;
    jf_noise_options noise = jf_noise_defaults();
    jf_status st;
    if (sw->photo) {
        st = jf_bench_tile(sw->photo, w, h, ch, shift, img);
    } else if ((st = jf_image_alloc(img, w, h, ch)) == JF_OK) {
        state = jf_bench_random_bytes(img->data, n, state);
    }
    if (st == JF_OK && sw->impulses > 0.0) {
        noise.kind = JF_NOISE_SALT_PEPPER;
        noise.amount = sw->impulses;
        noise.seed = (uint64_t)shift + 1;
        st = jf_add_noise(NULL, img, &noise);
    }
    return st == JF_OK && sample == JF_SAMPLE_U16 ? widen(img, state | 1) : st;
}

static jf_status make_plan(const jf_sweep *sw, int oi, int k, jf_border border,
                           const float *weights, jf_op_plan *plan)
{
    const jf_op *op = sw->ops[oi];
    jf_op_args a = sw->op_args[oi];
    a.ksize = jf_op_takes(op, JF_P_KSIZE) ? k : 0;
    a.max_ksize = jf_op_takes(op, JF_P_MAX_KSIZE) ? k : 0; /* the impulse filters' window */
    a.border = border;
    if (jf_op_takes(op, JF_P_WEIGHTS) && !a.kernel_file) { /* no --kernel: weights of every k */
        a.weights = weights;
        a.weights_ksize = k;
    }
    return jf_op_prepare(op, &a, plan);
}

/* One call of the operation with variant v (a metric compares with the
 * first input). */
static jf_status run_once(size_run *r, const jf_op_plan *plan, jf_variant v, jf_context *ctx,
                          jf_image *src, jf_image *dst)
{
    jf_op_plan p = *plan;
    double value;
    jf_status st;
    p.args.variant = v;
    p.args.block_x = r->sw->block_x;
    p.args.block_y = r->sw->block_y;
    if (plan->op->kind == JF_OP_METRIC)
        st = plan->op->measure(ctx, &p.args, r->cuda && ctx == r->ctx ? &r->dev[0] : &r->host[0], src, &value);
    else
        st = jf_op_apply(ctx, &p, src, dst, NULL);
    return st != JF_OK ? st : jf_context_sync(ctx);
}

static void fill_rates(const jf_sweep *sw, jf_sweep_cell *c, int cuda)
{
    const double peak = cuda ? sw->dev.theoretical_gbps : 0.0;
    c->mpix_s = (double)c->width * c->height / (c->ms * 1e3);
    c->gbps = (double)(c->bytes_read + c->bytes_written) / (c->ms * 1e6);
    c->pct_peak = peak > 0 ? 100.0 * c->gbps / peak : NAN;
    c->pct_ceiling = sw->ceiling[cuda] > 0 ? 100.0 * c->gbps / sw->ceiling[cuda] : NAN;
}

static void check_text(char *buf, size_t n, const jf_op *op, int diff)
{
    if (diff == 0)
        snprintf(buf, n, "exact");
    else if (!op->exact && diff <= 1)
        snprintf(buf, n, "within 1");
    else
        snprintf(buf, n, "FAIL (off by %d)", diff);
}

/* Energy: keep calling for >= 0.5 s while the meter integrates. */
static void measure_energy(size_run *r, const jf_op_plan *plan, jf_variant v, jf_image *dst,
                           jf_sweep_cell *c)
{
    jf_image *in = r->cuda ? r->dev : r->host;
    double t0, e, w;
    int calls = 0;
    c->energy_mj = c->mean_w = c->energy_compute_mj = NAN;
    /* CPU work on a GPU-board meter (NVML) would be measured as idle GPU power */
    if (!r->sw->energy || (!r->cuda && !jf_power_meter_whole_board(r->meter)) ||
        !jf_power_meter_start(r->meter, 5))
        return;
    t0 = jf_now_ms();
    while (jf_now_ms() - t0 < 500.0 || calls < 3) {
        if (run_once(r, plan, v, r->ctx, &in[calls % r->nrot], dst) != JF_OK)
            break;
        calls++;
    }
    if (jf_power_meter_stop(r->meter, &e, &w) && calls > 0) {
        c->energy_mj = e / calls;
        c->mean_w = w;
        c->energy_compute_mj = jf_power_meter_compute_mj(r->meter) / calls;
    }
}

/* The output of the cell's last call against the CPU reference. */
static void verify(size_run *r, const jf_op_plan *plan, jf_variant v, jf_sweep_cell *c)
{
    if (v == JF_VARIANT_CPU || plan->op->kind == JF_OP_METRIC) {
        snprintf(c->check, sizeof c->check, "reference");
        return;
    }
    /* (on the CPU, `auto`'s output is in host_out already: fixed point) */
    if (r->cuda && jf_image_transfer(r->ctx, &r->out, &r->host_out) != JF_OK)
        snprintf(c->check, sizeof c->check, "FAIL (download)");
    else
        check_text(c->check, sizeof c->check, plan->op, jf_bench_max_diff(&r->host_out, &r->ref));
}

/* On the CPU: the index in the asked list where `auto` runs (where auto
 * is, else the first name that is not `cpu`), or -1. */
static int cpu_lists_auto(const jf_sweep *sw)
{
    int i, first = -1;
    for (i = 0; i < sw->nvariants; i++) {
        if (sw->variants[i] == JF_VARIANT_AUTO)
            return i;
        if (first < 0 && sw->variants[i] != JF_VARIANT_CPU)
            first = i;
    }
    return first;
}

/* One variant: warm-up, timed calls, verification, energy. */
static void run_variant(size_run *r, const jf_op_plan *plan, jf_variant v, const jf_sweep_cell *base,
                        double npp_ms)
{
    jf_sweep *sw = r->sw;
    jf_image *in = r->cuda ? r->dev : r->host;
    jf_image *dst = r->cuda ? &r->out : &r->host_out;
    jf_sweep_cell c = *base;
    const jf_stat *st = NULL;
    double pad_ms = 0;
    int i;
    for (i = -r->warm; i < r->reps; i++) {
        jf_stats_clear(r->ctx);
        if (run_once(r, plan, v, r->ctx, &in[(i + r->warm) % r->nrot], dst) != JF_OK ||
            !(st = jf_bench_last_stat(r->ctx, plan->op->stat))) {
            say(sw, "%s %s k=%d: %s", plan->op->name, jf_variant_name(v), c.k,
                st ? jf_last_error() : "no timing recorded");
            sw->failures++;
            return;
        }
        if (i >= 0) {
            const jf_stat *pad = jf_bench_last_stat(r->ctx, "pad");
            r->t[i] = st->ms;
            pad_ms += pad && plan->op->kind != JF_OP_PAD ? pad->ms : 0.0;
        }
    }
    snprintf(c.variant, sizeof c.variant, "%s", st->variant[0] ? st->variant : jf_variant_name(v));
    c.ms = jf_sort_median(r->t, r->reps);
    c.min_ms = r->t[0];
    c.max_ms = r->t[r->reps - 1];
    c.pad_ms = pad_ms / r->reps;
    fill_rates(sw, &c, r->cuda);
    if (npp_ms > 0) {
        c.npp_ms = npp_ms;
        c.jf_over_npp = c.ms / npp_ms;
    }
    verify(r, plan, v, &c);
    if (strncmp(c.check, "FAIL", 4) == 0)
        sw->failures++;
    measure_energy(r, plan, v, dst, &c);
    sw->on_cell(sw->user, &c);
}

/* NPP on padded copies of the same inputs, where built; its median ms. */
static double run_npp(size_run *r, const jf_op_plan *plan, const jf_sweep_cell *base)
{
    jf_image padded[MAX_ROTATE];
    jf_sweep_cell c = *base;
    const int k = base->k;
    double ms = 0.0;
    int i, ok = 1;
    if (!r->cuda || !jf_npp_available() || plan->op->npp == JF_NPP_NONE)
        return 0.0;
    memset(padded, 0, sizeof padded);
    for (i = 0; i < r->nrot && ok; i++)
        ok = jf_image_alloc_on_as(r->ctx, &padded[i], r->w + k - 1, r->h + k - 1, r->ch,
                                  JF_LOC_DEVICE, r->sample) == JF_OK &&
             jf_pad(r->ctx, &r->dev[i], k / 2, plan->args.border, &padded[i]) == JF_OK &&
             jf_context_sync(r->ctx) == JF_OK;
    if (ok && (plan->op->npp == JF_NPP_MEDIAN
                   ? jf_npp_median(r->ctx, padded, r->nrot, k, &r->out, r->warm, r->reps, &ms)
                   : jf_npp_filter(r->ctx, padded, r->nrot, k, plan->kernel.weights, &r->out,
                                   r->warm, r->reps, &ms)) == JF_OK &&
        jf_image_transfer(r->ctx, &r->out, &r->host_out) == JF_OK) {
        snprintf(c.variant, sizeof c.variant, "npp");
        c.ms = c.min_ms = c.max_ms = ms;
        check_text(c.check, sizeof c.check, plan->op, jf_bench_max_diff(&r->host_out, &r->ref));
        if (strncmp(c.check, "FAIL", 4) == 0)
            r->sw->failures++;
        fill_rates(r->sw, &c, 1);
        c.npp_ms = ms;
        c.jf_over_npp = 1.0;
        c.pad_ms = NAN; /* NPP reads the padded buffer; no pad step is timed */
        r->sw->on_cell(r->sw->user, &c);
    } else {
        say(r->sw, "NPP %s k=%d: %s", plan->op->name, k, jf_last_error());
        ms = 0.0;
    }
    for (i = 0; i < r->nrot; i++)
        jf_image_free(&padded[i]);
    return ms;
}

static jf_sweep_cell base_cell(const size_run *r, const jf_op *op, int k, jf_border border)
{
    jf_sweep_cell c;
    memset(&c, 0, sizeof c);
    c.width = r->w;
    c.height = r->h;
    c.channels = r->ch;
    c.k = op->kind == JF_OP_METRIC ? 0 : k;
    c.depth = 8 * (int)jf_sample_size(r->sample);
    c.reps = r->reps;
    c.energy_mj = c.mean_w = NAN;
    c.npp_ms = c.jf_over_npp = NAN;
    /* filters read the image once (the tiled kernels apply the border as
     * they load; the halo comes again from cache) and write it once; pad
     * reads the image and writes the padded one; metrics read two images */
    c.bytes_read = op->kind == JF_OP_METRIC ? 2ull * r->w * r->h * r->ch
                 : (unsigned long long)r->w * r->h * r->ch;
    c.bytes_written = op->kind == JF_OP_METRIC ? 0
                    : op->kind == JF_OP_PAD ? (unsigned long long)(r->w + k - 1) * (r->h + k - 1) * r->ch
                    : (unsigned long long)r->w * r->h * r->ch;
    c.bytes_read *= jf_sample_size(r->sample); /* 2 bytes a sample at 16 bits */
    c.bytes_written *= jf_sample_size(r->sample);
    c.l2_resident = r->cuda && r->sw->have_dev
        ? (c.bytes_read + c.bytes_written) * 2 < r->sw->dev.l2_bytes : -1;
    snprintf(c.backend, sizeof c.backend, "%s", r->cuda ? "cuda" : "cpu");
    snprintf(c.filter, sizeof c.filter, "%s", op->name);
    snprintf(c.border, sizeof c.border, "%s", jf_op_takes(op, JF_P_BORDER) ? jf_border_name(border) : "-");
    return c;
}

/* Output buffers shaped for this operation and k (pad makes larger images). */
static jf_status shape_outputs(size_run *r, const jf_op *op, int k)
{
    const int ow = op->kind == JF_OP_PAD ? r->w + k - 1 : r->w;
    const int oh = op->kind == JF_OP_PAD ? r->h + k - 1 : r->h;
    jf_status st;
    if (r->host_out.data && r->host_out.width == ow && r->host_out.height == oh)
        return JF_OK;
    jf_image_free(&r->out);
    jf_image_free(&r->host_out);
    if ((r->cuda && (st = jf_image_alloc_on_as(r->ctx, &r->out, ow, oh, r->ch, JF_LOC_DEVICE,
                                               r->sample)) != JF_OK) ||
        (st = jf_image_alloc_as(&r->host_out, ow, oh, r->ch, r->sample)) != JF_OK)
        return st;
    return JF_OK;
}

static void run_op_cells(size_run *r, int oi, int k, jf_border border)
{
    jf_sweep *sw = r->sw;
    const jf_op *op = sw->ops[oi];
    float weights[JF_CONV_MAX_KSIZE * JF_CONV_MAX_KSIZE];
    const int last_in = (r->warm + r->reps - 1) % r->nrot;
    jf_sweep_cell base = base_cell(r, op, k, border);
    jf_op_plan plan;
    double npp_ms;
    int vi, auto_at, ran = 0;
    if (jf_op_takes(op, JF_P_WEIGHTS))
        jf_bench_arbitrary_weights(weights, k);
    if (make_plan(sw, oi, k, border, weights, &plan) != JF_OK || shape_outputs(r, op, k) != JF_OK) {
        say(sw, "%s k=%d: %s", op->name, k, jf_last_error());
        sw->failures++;
        return;
    }
    jf_image_free(&r->ref);
    if (op->kind != JF_OP_METRIC &&
        run_once(r, &plan, JF_VARIANT_CPU, r->cpu, &r->host[last_in], &r->ref) != JF_OK) {
        say(sw, "CPU reference %s k=%d: %s", op->name, k, jf_last_error());
        sw->failures++;
        jf_op_plan_free(&plan);
        return;
    }
    npp_ms = run_npp(r, &plan, &base);
    /* the CPU runs `auto` and `cpu` (the reference) of those asked for;
     * GPU variants alone mean what the CPU runs by default */
    auto_at = r->cuda ? -1 : cpu_lists_auto(sw);
    for (vi = 0; vi < sw->nvariants; vi++) {
        const jf_variant v = r->cuda || sw->variants[vi] == JF_VARIANT_CPU ? sw->variants[vi]
                             : vi == auto_at                                ? JF_VARIANT_AUTO
                                                                            : JF_VARIANT_COUNT;
        jf_shape shape;
        shape.width = r->w;
        shape.height = r->h;
        shape.channels = r->ch;
        shape.sample = r->sample;
        shape.rank1 = plan.rank1;
        shape.weights = plan.kernel.weights;
        /* what this device runs at this k and depth (fast has no kernel at
         * k = 13 for the median; shared takes 8 bits) */
        if (v == JF_VARIANT_COUNT || !jf_op_has_variant(op, v, k) ||
            (v != JF_VARIANT_AUTO && !jf_variant_runs(op->family, v, r->cuda ? &sw->dev : NULL, &shape, k)))
            continue;
        run_variant(r, &plan, v, &base, npp_ms);
        ran++;
    }
    /* operations with a single GPU implementation (pad, metrics): that one */
    if (r->cuda && !ran && !jf_op_takes(op, JF_P_VARIANT))
        run_variant(r, &plan, JF_VARIANT_AUTO, &base, npp_ms);
    jf_op_plan_free(&plan);
}

static jf_status prepare_inputs(size_run *r)
{
    const size_t img_bytes = (size_t)r->w * r->h * r->ch * jf_sample_size(r->sample);
    jf_status st;
    int i;
    r->nrot = 2;
    if (r->cuda && r->sw->have_dev) {
        /* enough copies that consecutive calls do not find their input in L2 */
        size_t need = (size_t)(2 * r->sw->dev.l2_bytes / (img_bytes ? img_bytes : 1)) + 1;
        r->nrot = need < 2 ? 2 : need > MAX_ROTATE ? MAX_ROTATE : (int)need;
    }
    for (i = 0; i < r->nrot; i++)
        if ((st = make_input(r->sw, r->w, r->h, r->ch, i, r->sample, &r->host[i])) != JF_OK ||
            (r->cuda && ((st = jf_image_alloc_on_as(r->ctx, &r->dev[i], r->w, r->h, r->ch,
                                                    JF_LOC_DEVICE, r->sample)) != JF_OK ||
                         (st = jf_image_transfer(r->ctx, &r->host[i], &r->dev[i])) != JF_OK)))
            return st;
    return JF_OK;
}

static void free_size_run(size_run *r)
{
    int i;
    for (i = 0; i < MAX_ROTATE; i++) {
        jf_image_free(&r->host[i]);
        jf_image_free(&r->dev[i]);
    }
    jf_image_free(&r->out);
    jf_image_free(&r->host_out);
    jf_image_free(&r->ref);
    free(r->t);
}

static jf_status sweep_size(jf_sweep *sw, jf_context *ctx, jf_context *cpu, jf_power_meter *meter,
                            int w, int h, int ch, jf_sample sample)
{
    size_run r;
    int oi, ki, bo, nks;
    jf_status st;
    memset(&r, 0, sizeof r);
    r.sw = sw;
    r.ctx = ctx;
    r.cpu = cpu;
    r.meter = meter;
    r.cuda = jf_context_backend(ctx) == JF_BACKEND_CUDA;
    r.w = w;
    r.h = h;
    r.ch = ch;
    r.sample = sample;
    r.reps = sw->reps > 0 ? sw->reps : r.cuda ? 30 : 5;
    r.warm = sw->warmup;
    if (!(r.t = (double *)malloc(sizeof(double) * (size_t)r.reps)))
        return jf_fail(JF_ERR_NOMEM, "out of memory");
    if ((st = prepare_inputs(&r)) != JF_OK) {
        say(sw, "%dx%dx%d %d-bit: %s", w, h, ch, 8 * (int)jf_sample_size(sample), jf_last_error());
        free_size_run(&r);
        return st;
    }
    for (oi = 0; oi < sw->nops; oi++) {
        const jf_op *op = sw->ops[oi];
        const int sized = jf_op_takes(op, JF_P_KSIZE) || jf_op_takes(op, JF_P_MAX_KSIZE);
        if (!(op->samples & (1u << sample)))
            continue; /* the impulse filters at 16 bits */
        nks = sized && !sw->op_k[oi] ? sw->nks : 1;
        for (ki = 0; ki < nks; ki++) {
            const int k = !sized ? 1 : sw->op_k[oi] ? sw->op_k[oi] : sw->ks[ki];
            if (sized && (k > jf_op_max_ksize(op) || (jf_op_takes(op, JF_P_MAX_KSIZE) && k < 3)))
                continue; /* e.g. laplace beyond 3, convolutions beyond 63 */
            for (bo = 0; bo < (jf_op_takes(op, JF_P_BORDER) ? sw->nborders : 1); bo++)
                run_op_cells(&r, oi, k, sw->borders[bo]);
        }
    }
    free_size_run(&r);
    return JF_OK;
}

static jf_status sweep_backend(jf_sweep *sw, jf_backend backend, jf_context *cpu,
                               jf_power_meter *meter)
{
    jf_context_options o = jf_context_defaults();
    jf_context *ctx = NULL;
    const int idx = backend == JF_BACKEND_CUDA;
    size_t copy_bytes = (size_t)(sw->ceiling_mb * 1024 * 1024);
    jf_status st = JF_OK;
    int si, ci, di;
    o.backend = backend;
    o.device = sw->device;
    o.threads = sw->threads;
    o.memory = sw->memory;
    o.peak_gbps = sw->peak_gbps;
    o.stats = 64;
    if ((st = jf_context_create(&o, &ctx)) != JF_OK)
        return st;
    if (idx) {
        sw->have_dev = jf_context_device(ctx, &sw->dev) == JF_OK;
        if (sw->have_dev && copy_bytes > sw->dev.total_memory / 8)
            copy_bytes = (size_t)(sw->dev.total_memory / 8);
    } else if (copy_bytes > ((size_t)256 << 20)) {
        copy_bytes = (size_t)256 << 20;
    }
    if (jf_measure_copy_gbps(ctx, copy_bytes, 10, &sw->ceiling[idx]) != JF_OK)
        say(sw, "copy ceiling not measured: %s", jf_last_error());
    if (sw->on_backend)
        sw->on_backend(sw->user, backend, idx && sw->have_dev ? &sw->dev : NULL, sw->ceiling[idx],
                       copy_bytes / 1048576.0);
    for (di = 0; di < (sw->ndepths ? sw->ndepths : 1) && st == JF_OK; di++)
        for (si = 0; si < sw->nsizes && st == JF_OK; si++)
            for (ci = 0; ci < sw->nchannels && st == JF_OK; ci++)
                st = sweep_size(sw, ctx, cpu, meter, sw->sizes[si][0], sw->sizes[si][1],
                                sw->channels[ci],
                                sw->ndepths && sw->depths[di] == 16 ? JF_SAMPLE_U16 : JF_SAMPLE_U8);
    jf_context_destroy(ctx);
    return st;
}

jf_status jf_sweep_run(jf_sweep *sw)
{
    jf_context_options co = jf_context_defaults();
    jf_power_meter *meter;
    jf_context *cpu = NULL;
    jf_status st = JF_OK;
    int bi;
    co.backend = JF_BACKEND_CPU;
    co.threads = sw->threads;
    if ((st = jf_context_create(&co, &cpu)) != JF_OK)
        return st;
    meter = jf_power_meter_open(NULL, sw->device);
    snprintf(sw->energy_source, sizeof sw->energy_source, "%s", jf_power_meter_source(meter));
    snprintf(sw->energy_rail, sizeof sw->energy_rail, "%s", jf_power_meter_rail(meter, 0));
    snprintf(sw->energy_compute_rail, sizeof sw->energy_compute_rail, "%s",
             jf_power_meter_rail(meter, 1));
    if (strcmp(sw->energy_source, "none") == 0) {
        char looked[256];
        jf_power_meter_looked_for(looked, sizeof looked);
        snprintf(sw->energy_source, sizeof sw->energy_source, "none found; looked for %s", looked);
    }
    for (bi = 0; bi < sw->nbackends && st == JF_OK; bi++)
        st = sweep_backend(sw, sw->backends[bi], cpu, meter);
    jf_power_meter_close(meter);
    jf_context_destroy(cpu);
    return st;
}
