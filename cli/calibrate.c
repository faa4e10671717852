/* jetfilter calibrate: measure every variant and block shape of the median
 * and the convolutions on this device, in its current power mode, over a
 * grid of sizes, channel counts and k; write the fastest of each cell as the
 * tuning profile that `auto` then follows (core/profile.h). */
#define _POSIX_C_SOURCE 200809L
#include "cli/cli.h"
#include "benchmarks/bench_util.h"
#include "calib/power.h"
#include "core/profile.h"
#include "core/util.h"
#include "filters/conv/conv.h"
#include "filters/median/median.h"
#include "filters/ops.h"
#include "filters/resolve.h"
#include "io/io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct grid {
    const int (*sizes)[2];
    int nsizes;
    const int *channels;
    int nchannels;
    const int *ks;
    int nks;
    const int (*blocks)[2];
    int nblocks;
    int reps;
} grid;

static const int FULL_SIZES[][2] = {{1280, 720}, {1920, 1080}, {3840, 2160}};
static const int QUICK_SIZES[][2] = {{640, 480}};
static const int FULL_CHANNELS[] = {1, 3};
static const int FULL_KS[] = {3, 5, 7, 9, 11, 15, 21, 31};
static const int QUICK_KS[] = {3, 5, 7};
static const int FULL_BLOCKS[][2] = {{0, 0}, {32, 4}, {32, 8}, {64, 4}};

/* Seeded samples, so every run measures the same pixels. */
static jf_status random_image(jf_context *ctx, int w, int h, int ch, jf_image *dev)
{
    jf_image host;
    jf_status st;
    if ((st = jf_image_alloc(&host, w, h, ch)) != JF_OK)
        return st;
    jf_bench_random_bytes(host.data, (size_t)host.stride * (size_t)h, 0x9E3779B97F4A7C15ull);
    if ((st = jf_image_alloc_on_as(ctx, dev, w, h, ch, JF_LOC_DEVICE, JF_SAMPLE_U8)) == JF_OK)
        st = jf_image_transfer(ctx, &host, dev);
    jf_image_free(&host);
    return st;
}

/* What calibrate measures: every family the variant table marks as tuned,
 * once with arbitrary weights and once with rank-1 ones where the family
 * has kernels for those (the profile's "conv-rank1"), each through an
 * operation of the family (the one that takes weights, where it has them). */
typedef struct tuned {
    const jf_op *op;
    int rank1;
    const char *key; /* the profile's name */
} tuned;

/* The operation a family is measured through: the one taking weights, if
 * any (arbitrary and rank-1 weights reach every kernel), else the first. */
static const jf_op *family_op(const jf_family *f)
{
    const jf_op *first = NULL;
    int i;
    for (i = 0; i < jf_op_total; i++)
        if (jf_ops[i].family == f) {
            if (jf_op_takes(&jf_ops[i], JF_P_WEIGHTS))
                return &jf_ops[i];
            if (!first)
                first = &jf_ops[i];
        }
    return first;
}

static int tuned_list(tuned *out, int max)
{
    int i, j, n = 0;
    for (i = 0; i < jf_family_total; i++) {
        const jf_family *f = jf_families[i];
        const jf_op *op = family_op(f);
        int rank1_rows = 0;
        if (!f->tuned || !op)
            continue;
        for (j = 0; j < f->row_count; j++)
            rank1_rows |= f->rows[j].rank1;
        for (j = 0; j <= rank1_rows && n < max; j++) {
            out[n].op = op;
            out[n].rank1 = j;
            out[n].key = jf_family_profile_key(f, j);
            n++;
        }
    }
    return n;
}

/* Median kernel time of `reps` calls after one warm-up (CUDA events, from
 * the stats); a negative value when the shape cannot run. */
static double measure(jf_context *ctx, const tuned *t, const jf_image *src, jf_image *dst, int k,
                      const float *weights, jf_variant v, int bx, int by, int reps)
{
    jf_op_args a = jf_op_args_defaults();
    jf_op_plan plan;
    double ms[64];
    int i;
    a.ksize = k;
    a.variant = v;
    a.block_x = bx;
    a.block_y = by;
    if (jf_op_takes(t->op, JF_P_WEIGHTS)) {
        a.weights = weights;
        a.weights_ksize = k;
    }
    if (jf_op_prepare(t->op, &a, &plan) != JF_OK)
        return -1.0;
    for (i = -1; i < reps; i++) {
        const jf_stat *st;
        jf_stats_clear(ctx);
        if (jf_op_apply(ctx, &plan, (jf_image *)src, dst, NULL) != JF_OK ||
            jf_context_sync(ctx) != JF_OK || !(st = jf_bench_last_stat(ctx, t->op->stat))) {
            jf_op_plan_free(&plan);
            return -1.0;
        }
        if (i >= 0)
            ms[i] = st->ms;
    }
    jf_op_plan_free(&plan);
    return jf_sort_median(ms, reps);
}

static void iso_date(char *out, size_t n)
{
    time_t now = time(NULL);
    struct tm tmv;
    gmtime_r(&now, &tmv);
    strftime(out, n, "%Y-%m-%dT%H:%M:%SZ", &tmv);
}

static int write_profile(const char *path, const jf_profile *p)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    jf_status st = mem ? jf_profile_write(mem, p) : JF_ERR_NOMEM;
    if (mem)
        fclose(mem);
    if (st == JF_OK)
        st = jf_write_file_atomic(path, (const unsigned char *)text, len);
    free(text);
    if (st != JF_OK) {
        job_error("jetfilter calibrate: %s", jf_last_error());
        return 0;
    }
    return 1;
}

int cli_calibrate(job_settings *s)
{
    const grid g = s->quick ? (grid){QUICK_SIZES, 1, FULL_CHANNELS, 1, QUICK_KS, 3, FULL_BLOCKS, 1, 3}
                            : (grid){FULL_SIZES, 3, FULL_CHANNELS, 2, FULL_KS, 8, FULL_BLOCKS, 4, 7};
    jf_context_options co = jf_context_defaults();
    jf_context *ctx = NULL;
    jf_device_info dev;
    const jf_power_mode *pm = job_power_mode();
    jf_profile prof;
    tuned list[8];
    const int nlist = tuned_list(list, 8);
    char dir[1024], name[256], path[1400];
    int si, ci, oi, ki, vi, bi, cells = 0, differ = 0, rc = JF_EXIT_OK;
    double saved = 0.0, builtin_total = 0.0, t0 = jf_now_ms();

    jf_profiles_use(NULL, NULL); /* measure `auto` as built in, whatever profile exists */
    co.backend = JF_BACKEND_CUDA;
    co.device = s->device;
    co.threads = s->threads;
    co.stats = 64;
    if (jf_context_create(&co, &ctx) != JF_OK || jf_context_device(ctx, &dev) != JF_OK) {
        job_error("jetfilter calibrate: %s", jf_last_error());
        jf_context_destroy(ctx);
        return JF_EXIT_FAILED;
    }
    memset(&prof, 0, sizeof prof);
    snprintf(prof.device, sizeof prof.device, "%s", dev.name);
    prof.cc_major = dev.cc_major;
    prof.cc_minor = dev.cc_minor;
    prof.multiprocessors = dev.multiprocessors;
    prof.limited = dev.limited != 0;
    prof.driver = dev.driver_version;
    snprintf(prof.power_mode, sizeof prof.power_mode, "%.63s", pm->mode_name[0] ? pm->mode_name : "none");
    iso_date(prof.date, sizeof prof.date);
    jf_profile_file_name(&dev, pm->mode_name, name, sizeof name);
    if (s->output)
        snprintf(path, sizeof path, "%s", s->output);
    else if (!job_profile_dir(dir, sizeof dir) || jf_mkdirs(dir) != JF_OK ||
             snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path) {
        job_error("jetfilter calibrate: no cache folder (set XDG_CACHE_HOME or HOME, or "
                "give --output FILE)%s%s", jf_last_error()[0] ? ": " : "", jf_last_error());
        jf_context_destroy(ctx);
        return JF_EXIT_FAILED;
    }
    if (!s->quiet)
        printf("# calibrating %s (compute capability %d.%d, %d SMs%s), power mode %s; %s grid\n",
               dev.name, dev.cc_major, dev.cc_minor, dev.multiprocessors,
               dev.limited ? ", Nano limits" : "", prof.power_mode, s->quick ? "quick" : "full");

    for (si = 0; si < g.nsizes && rc == JF_EXIT_OK; si++)
        for (ci = 0; ci < g.nchannels && rc == JF_EXIT_OK; ci++) {
            const int w = g.sizes[si][0], h = g.sizes[si][1], ch = g.channels[ci];
            jf_image src = {0}, dst = {0};
            if (random_image(ctx, w, h, ch, &src) != JF_OK ||
                jf_image_alloc_on_as(ctx, &dst, w, h, ch, JF_LOC_DEVICE, JF_SAMPLE_U8) != JF_OK) {
                job_error("jetfilter calibrate: %dx%dx%d: %s", w, h, ch, jf_last_error());
                rc = JF_EXIT_FAILED;
            }
            for (oi = 0; oi < nlist && rc == JF_EXIT_OK; oi++)
                for (ki = 0; ki < g.nks && rc == JF_EXIT_OK; ki++) {
                    const int k = g.ks[ki];
                    const tuned *t = &list[oi];
                    const char *op = t->key;
                    float weights[JF_CONV_MAX_KSIZE * JF_CONV_MAX_KSIZE];
                    jf_profile_choice best;
                    jf_shape shape;
                    double builtin;
                    shape.width = w;
                    shape.height = h;
                    shape.channels = ch;
                    shape.sample = JF_SAMPLE_U8;
                    shape.rank1 = t->rank1;
                    shape.weights = weights; /* filled below */
                    if (k > jf_op_max_ksize(t->op))
                        continue;
                    if (t->rank1) {
                        jf_kernel gauss;
                        if (jf_kernel_make(JF_KERNEL_GAUSS, k, 0.0, &gauss) != JF_OK) {
                            rc = JF_EXIT_FAILED;
                            break;
                        }
                        memcpy(weights, gauss.weights, sizeof(float) * (size_t)k * k);
                        jf_kernel_free(&gauss);
                    } else {
                        jf_bench_arbitrary_weights(weights, k);
                    }
                    memset(&best, 0, sizeof best);
                    best.ms = -1.0;
                    for (vi = JF_VARIANT_GLOBAL; vi < JF_VARIANT_COUNT; vi++)
                        for (bi = 0; bi < g.nblocks; bi++) {
                            const jf_variant v = (jf_variant)vi;
                            const int bx = g.blocks[bi][0], by = g.blocks[bi][1];
                            double ms;
                            if (!jf_variant_runs(t->op->family, v, &dev, &shape, k))
                                continue;
                            ms = measure(ctx, t, &src, &dst, k, weights, v, bx, by, g.reps);
                            if (ms >= 0 && (best.ms < 0 || ms < best.ms)) {
                                best.variant = v;
                                best.block_x = bx;
                                best.block_y = by;
                                best.ms = ms;
                            }
                        }
                    builtin = measure(ctx, t, &src, &dst, k, weights, JF_VARIANT_AUTO, 0, 0, g.reps);
                    if (best.ms < 0 || builtin < 0) {
                        job_error("jetfilter calibrate: %s k=%d %dx%dx%d: %s", op, k, w, h,
                                ch, jf_last_error());
                        rc = JF_EXIT_FAILED;
                        break;
                    }
                    snprintf(best.op, sizeof best.op, "%s", op);
                    best.channels = ch;
                    best.width = w;
                    best.height = h;
                    best.k = k;
                    if (jf_profile_add(&prof, &best) != JF_OK) {
                        rc = JF_EXIT_FAILED;
                        break;
                    }
                    cells++;
                    builtin_total += builtin;
                    if (best.ms < builtin) {
                        saved += builtin - best.ms;
                        differ += best.ms < builtin * 0.97;
                    }
                    if (!s->quiet)
                        printf("%-10s k=%-2d %4dx%-4d x%d  %-6s %2dx%-2d %9.4f ms   (built-in auto %9.4f ms)\n",
                               op, k, w, h, ch, jf_variant_name(best.variant), best.block_x,
                               best.block_y, best.ms, builtin);
                }
            jf_image_free(&src);
            jf_image_free(&dst);
        }
    jf_context_destroy(ctx);
    if (rc == JF_EXIT_OK && !write_profile(path, &prof))
        rc = JF_EXIT_FAILED;
    if (rc == JF_EXIT_OK && !s->quiet)
        printf("# %d cells in %.1f s; %d more than 3%% faster than the built-in choice (%.1f%% of "
               "its total time saved)\n# profile: %s\n",
               cells, (jf_now_ms() - t0) / 1000.0, differ,
               builtin_total > 0 ? 100.0 * saved / builtin_total : 0.0, path);
    jf_profile_free(&prof);
    return rc;
}

const char *cli_profile_status(int device, char *out, size_t n)
{
    jf_context_options co = jf_context_defaults();
    jf_context *ctx = NULL;
    co.backend = JF_BACKEND_CUDA;
    co.device = device;
    co.threads = 1;
    if (jf_context_create(&co, &ctx) != JF_OK)
        snprintf(out, n, "none (%s)", jf_last_error());
    else if (jf_context_profile(ctx))
        snprintf(out, n, "%s", jf_context_profile(ctx));
    else if (jf_context_note(ctx)[0])
        snprintf(out, n, "none: %s", jf_context_note(ctx));
    else
        snprintf(out, n, "none (the built-in tables; `jetfilter calibrate` measures one)");
    jf_context_destroy(ctx);
    return out;
}
