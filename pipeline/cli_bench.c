/*
 * jetfilter bench: sizes x kernel sizes x filters x borders x channels x
 * variants (x backends), with the NPP baseline in the same run where built.
 *
 * Method (see /work/.library/device/METHOD.md and benchmarks/RESULTS.md):
 *  - inputs: a real photo tiled to each size (or seeded random data), never
 *    zeros; on the GPU several device-resident copies are rotated so repeated
 *    calls do not reread one buffer from the cache (cells whose data fits in
 *    L2 anyway are flagged);
 *  - warm-up calls, then N timed calls; the filter kernel's own time (CUDA
 *    events on the GPU, the wall clock on the CPU) is read from the stats;
 *    median, min and max are reported;
 *  - every cell's last output is compared once with the CPU reference: a
 *    fast wrong kernel is a failed cell, not a fast one;
 *  - effective bandwidth = (padded input read once + output written once) /
 *    time, against the theoretical bandwidth and against the copy ceiling
 *    measured at start (bytes read + written by a large copy);
 *  - with --energy, each cell then runs for at least 0.5 s more while a
 *    background thread integrates the board's power (Jetson INA3221, NVML).
 */
#define _DEFAULT_SOURCE
#include "benchmarks/bench_util.h"
#include "benchmarks/npp.h"
#include "calib/power.h"
#include "pipeline/batch.h"
#include "pipeline/context.h"
#include "pipeline/errors.h"
#include "io/io.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#ifndef JF_GIT_REVISION
#define JF_GIT_REVISION "unknown"
#endif

#define MAX_LIST 32
#define MAX_ROTATE 8

int cli_argc;
char **cli_argv;

typedef struct bench_row {
    char backend[8], filter[8], border[12], variant[16], check[40];
    int width, height, channels, k, reps;
    double ms, min_ms, max_ms, pad_ms, mpix_s, gbps, pct_peak, pct_ceiling;
    double npp_ms, jf_over_npp;
    double energy_mj, mean_w;
    unsigned long long bytes_read, bytes_written;
    int l2_resident; /* 1, 0, or -1 unknown */
} bench_row;

typedef struct bench {
    cli_settings *s;
    int sizes[MAX_LIST][2], nsizes;
    int ks[MAX_LIST], nks;
    int filters[2], nfilters;          /* 0 median, 1 conv */
    jf_variant variants[3];
    int nvariants;
    jf_border borders[JF_BORDER_COUNT];
    int nborders;
    int channels[2], nchannels;
    jf_backend backends[2];
    int nbackends;
    jf_picture photo;
    jf_context *cpu;
    jf_power_meter *meter;
    FILE *csv;
    bench_row *rows;
    int nrows, caprows, failures;
    double ceiling[2]; /* per backend index */
    jf_device_info dev;
    int have_dev;
} bench;

static int parse_ints(const char *text, int *out, int max, const char *what)
{
    int n = 0;
    const char *p = text;
    while (*p) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v < 1 || v > 100000 || n == max) {
            fprintf(stderr, "jetfilter bench: bad %s list '%s'\n", what, text);
            return -1;
        }
        out[n++] = (int)v;
        p = *end == ',' ? end + 1 : end;
        if (*end && *end != ',') {
            fprintf(stderr, "jetfilter bench: bad %s list '%s'\n", what, text);
            return -1;
        }
    }
    return n;
}

static int parse_sizes(const char *text, int (*out)[2], int max)
{
    int n = 0;
    const char *p = text;
    while (*p) {
        int w, h, used = 0;
        if (n == max || sscanf(p, "%dx%d%n", &w, &h, &used) != 2 || w < 1 || h < 1) {
            fprintf(stderr, "jetfilter bench: bad size list '%s' (want WxH,WxH,...)\n", text);
            return -1;
        }
        out[n][0] = w;
        out[n][1] = h;
        n++;
        p += used;
        if (*p == ',')
            p++;
        else if (*p) {
            fprintf(stderr, "jetfilter bench: bad size list '%s'\n", text);
            return -1;
        }
    }
    return n;
}

/* Names from a comma list matched against `names`; returns count or -1. */
static int parse_names(const char *text, const char *const *names, int nnames, int *out, int max,
                       const char *what)
{
    char buf[256], *tok, *save = NULL;
    int n = 0, i;
    snprintf(buf, sizeof buf, "%s", text);
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        for (i = 0; i < nnames && strcmp(tok, names[i]) != 0; i++)
            ;
        if (i == nnames || n == max) {
            fprintf(stderr, "jetfilter bench: unknown %s '%s'\n", what, tok);
            return -1;
        }
        out[n++] = i;
    }
    return n;
}

static int configure(bench *b, cli_settings *s)
{
    static const int seed_sizes[][2] = {{345, 194}, {493, 277}, {705, 396}, {1007, 567},
                                        {1440, 810}, {1920, 1080}, {3840, 2160}, {7680, 4320}};
    static const char *const filter_names[] = {"median", "conv"};
    static const char *const variant_names[] = {"global", "shared", "fast"};
    static const char *const border_names[] = {"zero", "replicate", "reflect", "mirror"};
    static const char *const backend_names[] = {"cpu", "cuda"};
    int tmp[MAX_LIST], i, n;
    b->s = s;
    if (s->sizes) {
        if ((b->nsizes = parse_sizes(s->sizes, b->sizes, MAX_LIST)) < 0)
            return JF_EXIT_USAGE;
    } else {
        for (i = 0; i < 8; i++) {
            b->sizes[i][0] = seed_sizes[i][0];
            b->sizes[i][1] = seed_sizes[i][1];
        }
        b->nsizes = 8;
    }
    if (s->ksizes) {
        if ((b->nks = parse_ints(s->ksizes, b->ks, MAX_LIST, "kernel size")) < 0)
            return JF_EXIT_USAGE;
        for (i = 0; i < b->nks; i++)
            if (b->ks[i] % 2 == 0 || b->ks[i] > JF_CONV_MAX_KSIZE) {
                fprintf(stderr, "jetfilter bench: kernel size %d: odd, 1 to %d\n", b->ks[i],
                        JF_CONV_MAX_KSIZE);
                return JF_EXIT_USAGE;
            }
    } else {
        for (i = 0; i < 5; i++)
            b->ks[i] = 3 + 2 * i;
        b->nks = 5;
    }
    if ((n = s->filters ? parse_names(s->filters, filter_names, 2, tmp, 2, "filter") : 2) < 0)
        return JF_EXIT_USAGE;
    for (i = 0; i < n; i++)
        b->filters[i] = s->filters ? tmp[i] : i;
    b->nfilters = n;
    if ((n = s->variants ? parse_names(s->variants, variant_names, 3, tmp, 3, "variant") : 3) < 0)
        return JF_EXIT_USAGE;
    for (i = 0; i < n; i++) {
        static const jf_variant map[] = {JF_VARIANT_GLOBAL, JF_VARIANT_SHARED, JF_VARIANT_FAST};
        b->variants[i] = map[s->variants ? tmp[i] : i];
    }
    b->nvariants = n;
    if ((n = s->borders ? parse_names(s->borders, border_names, 4, tmp, 4, "border") : 1) < 0)
        return JF_EXIT_USAGE;
    for (i = 0; i < n; i++)
        b->borders[i] = s->borders ? (jf_border)tmp[i] : JF_BORDER_REPLICATE;
    b->nborders = n;
    if (s->channels) {
        if ((b->nchannels = parse_ints(s->channels, b->channels, 2, "channel")) < 0)
            return JF_EXIT_USAGE;
        for (i = 0; i < b->nchannels; i++)
            if (b->channels[i] != 1 && b->channels[i] != 3) {
                fprintf(stderr, "jetfilter bench: channels are 1 or 3\n");
                return JF_EXIT_USAGE;
            }
    } else {
        b->channels[0] = 1;
        b->nchannels = 1;
    }
    if (s->backends) {
        if ((n = parse_names(s->backends, backend_names, 2, tmp, 2, "backend")) < 0)
            return JF_EXIT_USAGE;
        for (i = 0; i < n; i++)
            b->backends[i] = tmp[i] == 0 ? JF_BACKEND_CPU : JF_BACKEND_CUDA;
        b->nbackends = n;
    } else {
        b->backends[0] = jf_device_count() > 0 ? JF_BACKEND_CUDA : JF_BACKEND_CPU;
        b->nbackends = 1;
    }
    return 0;
}

/* The photo tiled to w x h (grey = (R+G+B)/3), or seeded random bytes;
 * `shift` makes rotated copies differ. */
static jf_status make_input(bench *b, int w, int h, int ch, int shift, jf_image *img)
{
    jf_status st;
    uint64_t state = 0x9E3779B97F4A7C15ull * (uint64_t)(shift + 1);
    size_t i, n = (size_t)w * h * ch;
    if (!b->s->random)
        return jf_bench_tile(&b->photo.color, w, h, ch, shift, img);
    if ((st = jf_image_alloc(img, w, h, ch)) != JF_OK)
        return st;
    for (i = 0; i < n; i++) {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        img->data[i] = (unsigned char)(state >> 24);
    }
    return JF_OK;
}

/* Run one operation: the median or the convolution with the preset weights. */
static jf_status run_op(jf_context *ctx, int filter, const jf_image *in, jf_image *out, int k,
                        jf_border border, jf_variant v, const jf_kernel *kern)
{
    if (filter == 0) {
        jf_median_options mo = {k, border, v};
        return jf_median(ctx, in, out, &mo);
    } else {
        jf_conv_options co = {k, kern->weights, border, v};
        return jf_convolve(ctx, in, out, &co);
    }
}

static void check_text(char *buf, size_t n, int filter, int diff)
{
    if (diff == 0)
        snprintf(buf, n, "exact");
    else if (filter == 1 && diff <= 1)
        snprintf(buf, n, "within 1");
    else
        snprintf(buf, n, "FAIL (off by %d)", diff);
}

static void emit(bench *b, bench_row *r)
{
    const char *tag = b->s->tag ? b->s->tag : "";
    char npp[48] = "-", energy[48] = "", size[24], peak[16] = "-", ceil[16] = "-";
    snprintf(size, sizeof size, "%dx%d", r->width, r->height);
    if (!isnan(r->npp_ms))
        snprintf(npp, sizeof npp, "%8.4f %6.2fx", r->npp_ms, r->jf_over_npp);
    if (!isnan(r->pct_peak))
        snprintf(peak, sizeof peak, "%6.2f%%", r->pct_peak);
    if (!isnan(r->pct_ceiling))
        snprintf(ceil, sizeof ceil, "%6.2f%%", r->pct_ceiling);
    if (!isnan(r->energy_mj))
        snprintf(energy, sizeof energy, " %8.3f mJ %6.2f W", r->energy_mj, r->mean_w);
    if (!b->s->quiet)
        printf("%-10s %2d %-6s %-9s %-4s %-13s %2d %9.4f %9.4f %9.4f %8.1f %8.1f %7s %7s %-17s %s%s\n",
               size, r->channels, r->filter, r->border, r->backend, r->variant, r->k, r->ms,
               r->min_ms, r->max_ms, r->mpix_s, r->gbps, peak, ceil, npp, r->check, energy);
    if (b->csv)
        fprintf(b->csv,
                "%s,%s,%d,%d,%d,%s,%s,%s,%d,%d,%.5f,%.5f,%.5f,%.5f,%.3f,%llu,%llu,%.3f,%.4f,%.4f,%.5f,%.4f,"
                "%s,%d,%.4f,%.4f\n",
                tag, r->backend, r->width, r->height, r->channels, r->filter, r->border, r->variant, r->k,
                r->reps, r->ms, r->min_ms, r->max_ms, r->pad_ms, r->mpix_s, r->bytes_read,
                r->bytes_written, r->gbps, r->pct_peak, r->pct_ceiling, r->npp_ms, r->jf_over_npp,
                r->check, r->l2_resident, r->energy_mj, r->mean_w);
    if (strncmp(r->check, "FAIL", 4) == 0)
        b->failures++;
    if (b->nrows == b->caprows) {
        int cap = b->caprows ? b->caprows * 2 : 256;
        bench_row *grown = (bench_row *)realloc(b->rows, (size_t)cap * sizeof *grown);
        if (!grown)
            return;
        b->rows = grown;
        b->caprows = cap;
    }
    b->rows[b->nrows++] = *r;
}

/* Energy: keep calling for >= 0.5 s while the meter integrates. */
static void measure_energy(bench *b, jf_context *ctx, int filter, jf_image *in, int nin,
                           jf_image *out, int k, jf_border border, jf_variant v,
                           const jf_kernel *kern, bench_row *r)
{
    double t0, e, w;
    int calls = 0;
    r->energy_mj = r->mean_w = NAN;
    /* CPU work on a GPU-board meter (NVML) would be measured as idle GPU power */
    if (!b->s->energy || (strcmp(r->backend, "cpu") == 0 && !jf_power_meter_whole_board(b->meter)) ||
        !jf_power_meter_start(b->meter, 5))
        return;
    t0 = jf_now_ms();
    while (jf_now_ms() - t0 < 500.0 || calls < 3) {
        if (run_op(ctx, filter, &in[calls % nin], out, k, border, v, kern) != JF_OK)
            break;
        calls++;
    }
    if (jf_power_meter_stop(b->meter, &e, &w) && calls > 0) {
        r->energy_mj = e / calls;
        r->mean_w = w;
    }
}

static void fill_rates(bench *b, bench_row *r, int backend_index, double peak)
{
    double pixels = (double)r->width * r->height;
    r->mpix_s = pixels / (r->ms * 1e3);
    r->gbps = (double)(r->bytes_read + r->bytes_written) / (r->ms * 1e6);
    r->pct_peak = peak > 0 ? 100.0 * r->gbps / peak : NAN;
    r->pct_ceiling = b->ceiling[backend_index] > 0 ? 100.0 * r->gbps / b->ceiling[backend_index] : NAN;
}

static int bench_size(bench *b, jf_context *ctx, int w, int h, int ch)
{
    const int cuda = jf_context_backend(ctx) == JF_BACKEND_CUDA;
    const int bi = cuda; /* index of this backend's copy ceiling */
    const int reps = cuda ? b->s->reps : (b->s->reps / 6 > 3 ? b->s->reps / 6 : 3);
    const int warm = cuda ? b->s->warmup : (b->s->warmup > 1 ? 1 : b->s->warmup);
    const size_t img_bytes = (size_t)w * h * ch;
    jf_image host[MAX_ROTATE], dev[MAX_ROTATE], out = {0}, host_out = {0};
    int nrot = 2, f, ki, bo, vi, i, rc = 0;
    double *t = (double *)malloc(sizeof(double) * (size_t)reps);

    memset(host, 0, sizeof host);
    memset(dev, 0, sizeof dev);
    if (!t) {
        cli_log("jetfilter bench: out of memory");
        return JF_EXIT_FAILED;
    }
    if (cuda && b->have_dev) {
        /* enough copies that consecutive calls do not find their input in L2 */
        size_t need = (size_t)(2 * b->dev.l2_bytes / (img_bytes ? img_bytes : 1)) + 1;
        nrot = need < 2 ? 2 : need > MAX_ROTATE ? MAX_ROTATE : (int)need;
    }
    for (i = 0; i < nrot; i++)
        if (make_input(b, w, h, ch, i, &host[i]) != JF_OK ||
            (cuda && (jf_image_alloc_on(ctx, &dev[i], w, h, ch, JF_LOC_DEVICE) != JF_OK ||
                      jf_image_transfer(ctx, &host[i], &dev[i]) != JF_OK))) {
            cli_log("jetfilter bench: %dx%dx%d: %s", w, h, ch, jf_last_error());
            rc = JF_EXIT_FAILED;
            goto done;
        }
    if ((cuda && jf_image_alloc_on(ctx, &out, w, h, ch, JF_LOC_DEVICE) != JF_OK) ||
        jf_image_alloc(&host_out, w, h, ch) != JF_OK) {
        cli_log("jetfilter bench: %s", jf_last_error());
        rc = JF_EXIT_FAILED;
        goto done;
    }
    for (f = 0; f < b->nfilters; f++)
        for (ki = 0; ki < b->nks; ki++)
            for (bo = 0; bo < b->nborders; bo++) {
                const int k = b->ks[ki], filter = b->filters[f];
                const jf_border border = b->borders[bo];
                const int last_in = (warm + reps - 1) % nrot;
                jf_kernel kern = {0, NULL};
                jf_image ref = {0};
                bench_row base;
                double npp_ms = 0.0;
                jf_image *inputs = cuda ? dev : host;

                memset(&base, 0, sizeof base);
                base.width = w;
                base.height = h;
                base.channels = ch;
                base.k = k;
                base.reps = reps;
                base.energy_mj = base.mean_w = NAN;
                base.npp_ms = base.jf_over_npp = NAN;
                base.bytes_read = (unsigned long long)(w + k - 1) * (h + k - 1) * ch;
                base.bytes_written = (unsigned long long)img_bytes;
                base.l2_resident = cuda && b->have_dev
                    ? (base.bytes_read + base.bytes_written) * 2 < b->dev.l2_bytes : -1;
                snprintf(base.backend, sizeof base.backend, "%s", cuda ? "cuda" : "cpu");
                snprintf(base.filter, sizeof base.filter, "%s", filter ? "conv" : "median");
                snprintf(base.border, sizeof base.border, "%s", jf_border_name(border));
                if (filter == 1 && jf_kernel_make(JF_KERNEL_GAUSS, k, 0.0, &kern) != JF_OK)
                    continue;
                /* the oracle for this cell's last input */
                if (run_op(b->cpu, filter, &host[last_in], &ref, k, border, JF_VARIANT_CPU, &kern) != JF_OK) {
                    cli_log("jetfilter bench: CPU reference: %s", jf_last_error());
                    jf_kernel_free(&kern);
                    continue;
                }
                /* NPP on the same padded buffers, where built */
                if (cuda && jf_npp_available()) {
                    jf_image padded[MAX_ROTATE];
                    bench_row r = base;
                    int ok = 1;
                    memset(padded, 0, sizeof padded);
                    for (i = 0; i < nrot && ok; i++)
                        ok = jf_image_alloc_on(ctx, &padded[i], w + k - 1, h + k - 1, ch, JF_LOC_DEVICE) == JF_OK &&
                             jf_pad(ctx, &dev[i], k / 2, border, &padded[i]) == JF_OK;
                    if (ok && (filter == 0 ? jf_npp_median(ctx, padded, nrot, k, &out, warm, reps, &npp_ms)
                                           : jf_npp_filter(ctx, padded, nrot, k, kern.weights, &out, warm, reps,
                                                           &npp_ms)) == JF_OK &&
                        jf_image_transfer(ctx, &out, &host_out) == JF_OK) {
                        snprintf(r.variant, sizeof r.variant, "npp");
                        r.ms = r.min_ms = r.max_ms = npp_ms;
                        check_text(r.check, sizeof r.check, filter, jf_bench_max_diff(&host_out, &ref));
                        fill_rates(b, &r, bi, b->dev.theoretical_gbps);
                        r.npp_ms = npp_ms;
                        r.jf_over_npp = 1.0;
                        r.pad_ms = NAN; /* NPP reads the padded buffer; no pad step is timed */
                        emit(b, &r);
                    } else {
                        cli_log("jetfilter bench: NPP %s k=%d: %s", base.filter, k, jf_last_error());
                        npp_ms = 0.0;
                    }
                    for (i = 0; i < nrot; i++)
                        jf_image_free(&padded[i]);
                }
                for (vi = 0; vi < (cuda ? b->nvariants : 1); vi++) {
                    const jf_variant v = cuda ? b->variants[vi] : JF_VARIANT_CPU;
                    if (filter == 0 && v == JF_VARIANT_FAST)
                        continue; /* the median has no fast variant (yet) */
                    const char *stat_name = filter ? "conv" : "median";
                    jf_image *dst = cuda ? &out : &host_out;
                    bench_row r = base;
                    const jf_stat *st = NULL;
                    int failed = 0;
                    double pad_ms = 0;
                    for (i = -warm; i < reps; i++) {
                        jf_stats_clear(ctx);
                        if (run_op(ctx, filter, &inputs[(i + warm) % nrot], dst, k, border, v, &kern) != JF_OK ||
                            !(st = jf_bench_last_stat(ctx, stat_name))) {
                            cli_log("jetfilter bench: %s %s k=%d: %s", stat_name, jf_variant_name(v), k,
                                    jf_last_error());
                            failed = 1;
                            break;
                        }
                        if (i >= 0) {
                            const jf_stat *pad = jf_bench_last_stat(ctx, "pad");
                            t[i] = st->ms;
                            pad_ms += pad ? pad->ms : 0.0;
                        }
                    }
                    if (failed) {
                        b->failures++;
                        continue;
                    }
                    snprintf(r.variant, sizeof r.variant, "%s", st->variant);
                    r.ms = jf_sort_median(t, reps);
                    r.min_ms = t[0];
                    r.max_ms = t[reps - 1];
                    r.pad_ms = pad_ms / reps;
                    fill_rates(b, &r, bi, cuda ? b->dev.theoretical_gbps : 0.0);
                    if (npp_ms > 0) {
                        r.npp_ms = npp_ms;
                        r.jf_over_npp = r.ms / npp_ms;
                    }
                    if (cuda && jf_image_transfer(ctx, &out, &host_out) != JF_OK)
                        snprintf(r.check, sizeof r.check, "FAIL (download)");
                    else if (!cuda)
                        snprintf(r.check, sizeof r.check, "reference");
                    else
                        check_text(r.check, sizeof r.check, filter, jf_bench_max_diff(&host_out, &ref));
                    measure_energy(b, ctx, filter, inputs, nrot, dst, k, border, v, &kern, &r);
                    emit(b, &r);
                }
                jf_image_free(&ref);
                jf_kernel_free(&kern);
            }
done:
    for (i = 0; i < MAX_ROTATE; i++) {
        jf_image_free(&host[i]);
        jf_image_free(&dev[i]);
    }
    jf_image_free(&out);
    jf_image_free(&host_out);
    free(t);
    fflush(stdout);
    return rc;
}

static void read_cpu_model(char *out, size_t n)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    struct utsname u;
    out[0] = '\0';
    if (f) {
        while (fgets(line, sizeof line, f))
            if (strncmp(line, "model name", 10) == 0) {
                const char *p = strchr(line, ':');
                if (p) {
                    snprintf(out, n, "%s", p + 2);
                    out[strcspn(out, "\n")] = '\0';
                }
                break;
            }
        fclose(f);
    }
    if (!out[0] && (f = fopen("/proc/device-tree/model", "r")) != NULL) { /* Jetson */
        if (fgets(line, sizeof line, f))
            snprintf(out, n, "%.200s", line);
        fclose(f);
    }
    if (!out[0] && uname(&u) == 0)
        snprintf(out, n, "%s", u.machine);
}

static void write_json(bench *b, const jf_power_mode *pm, const char *cpu_model, const char *date,
                       double sm_mhz, double mem_mhz)
{
    json_buf j = {0};
    char cmd[2048] = "";
    size_t used = 0;
    int i;
    for (i = 0; i < cli_argc && used < sizeof cmd - 1; i++)
        used += (size_t)snprintf(cmd + used, sizeof cmd - used, "%s%s", i ? " " : "", cli_argv[i]);
    json_open(&j, NULL, '{');
    json_open(&j, "meta", '{');
    json_str(&j, "jetfilter", JF_VERSION_STRING);
    json_str(&j, "git_revision", JF_GIT_REVISION);
    json_str(&j, "date_utc", date);
    json_str(&j, "command", cmd);
    json_str(&j, "tag", b->s->tag ? b->s->tag : "");
    json_str(&j, "cpu", cpu_model);
    json_int(&j, "cpu_threads", jf_cpu_count());
    if (b->have_dev) {
        json_str(&j, "device", b->dev.name);
        char cc[16];
        snprintf(cc, sizeof cc, "%d.%d", b->dev.cc_major, b->dev.cc_minor);
        json_str(&j, "compute_capability", cc);
        json_int(&j, "multiprocessors", b->dev.multiprocessors);
        json_int(&j, "integrated", b->dev.integrated);
        json_int(&j, "cuda_runtime", b->dev.runtime_version);
        json_int(&j, "cuda_driver", b->dev.driver_version);
        json_int(&j, "l2_bytes", (long long)b->dev.l2_bytes);
        json_num(&j, "theoretical_gbps", b->dev.theoretical_gbps);
        json_str(&j, "theoretical_source", b->dev.theoretical_source);
        json_num(&j, "sm_clock_mhz", sm_mhz);
        json_num(&j, "memory_clock_mhz", mem_mhz);
    }
    json_num(&j, "copy_ceiling_gbps_cuda", b->ceiling[1] > 0 ? b->ceiling[1] : NAN);
    json_num(&j, "copy_ceiling_gbps_cpu", b->ceiling[0] > 0 ? b->ceiling[0] : NAN);
    json_str(&j, "npp", jf_npp_version());
    json_int(&j, "power_mode_id", pm->mode_id);
    json_str(&j, "power_mode", pm->mode_name);
    json_str(&j, "power_mode_source", pm->source);
    json_int(&j, "cpus_online", pm->cpus_online);
    json_num(&j, "gpu_cur_mhz", pm->gpu_cur_mhz);
    json_num(&j, "gpu_max_mhz", pm->gpu_max_mhz);
    json_str(&j, "energy_source", b->s->energy ? jf_power_meter_source(b->meter) : "not requested");
    json_str(&j, "input", b->s->random ? "seeded random" : b->s->photo ? b->s->photo : "samples/images/retina.jpg");
    json_close(&j, '}');
    json_open(&j, "cells", '[');
    for (i = 0; i < b->nrows; i++) {
        const bench_row *r = &b->rows[i];
        json_open(&j, NULL, '{');
        json_str(&j, "backend", r->backend);
        json_int(&j, "width", r->width);
        json_int(&j, "height", r->height);
        json_int(&j, "channels", r->channels);
        json_str(&j, "filter", r->filter);
        json_str(&j, "border", r->border);
        json_str(&j, "variant", r->variant);
        json_int(&j, "k", r->k);
        json_int(&j, "reps", r->reps);
        json_num(&j, "ms", r->ms);
        json_num(&j, "min_ms", r->min_ms);
        json_num(&j, "max_ms", r->max_ms);
        json_num(&j, "pad_ms", r->pad_ms);
        json_num(&j, "mpix_per_s", r->mpix_s);
        json_int(&j, "bytes_read", (long long)r->bytes_read);
        json_int(&j, "bytes_written", (long long)r->bytes_written);
        json_num(&j, "gbps", r->gbps);
        json_num(&j, "pct_theoretical", r->pct_peak);
        json_num(&j, "pct_copy_ceiling", r->pct_ceiling);
        json_num(&j, "npp_ms", r->npp_ms);
        json_num(&j, "jf_over_npp", r->jf_over_npp);
        json_str(&j, "check", r->check);
        json_int(&j, "l2_resident", r->l2_resident);
        json_num(&j, "energy_mj_per_image", r->energy_mj);
        json_num(&j, "mean_w", r->mean_w);
        json_close(&j, '}');
    }
    json_close(&j, ']');
    json_close(&j, '}');
    json_raw(&j, "\n");
    if (j.fail || jf_write_file_atomic(b->s->json, (const unsigned char *)j.data, j.len) != JF_OK)
        cli_log("jetfilter bench: %s", j.fail ? "out of memory for JSON" : jf_last_error());
    free(j.data);
}

int cli_bench(cli_settings *s)
{
    bench b;
    jf_context_options co = {JF_BACKEND_CPU, 0, s->threads, NULL, JF_MEMORY_AUTO, 0.0};
    jf_power_mode pm;
    char cpu_model[256], date[32];
    double sm_mhz = NAN, mem_mhz = NAN;
    time_t now = time(NULL);
    int rc, bi, si, ci;

    memset(&b, 0, sizeof b);
    if ((rc = configure(&b, s)) != 0)
        return rc;
    if (!s->random &&
        jf_picture_read(s->photo ? s->photo : "samples/images/retina.jpg", &b.photo) != JF_OK) {
        cli_log("jetfilter bench: %s (give --photo FILE or --random)", jf_last_error());
        return JF_EXIT_FAILED;
    }
    if (!s->random && b.photo.color.channels != 3) {
        cli_log("jetfilter bench: the photo must be RGB");
        jf_picture_free(&b.photo);
        return JF_EXIT_FAILED;
    }
    if (jf_context_create(&co, &b.cpu) != JF_OK) {
        cli_log("jetfilter bench: %s", jf_last_error());
        return JF_EXIT_FAILED;
    }
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    read_cpu_model(cpu_model, sizeof cpu_model);
    jf_power_read_mode(NULL, &pm);
    b.meter = jf_power_meter_open(NULL, s->device);
    jf_power_meter_clocks(b.meter, &sm_mhz, &mem_mhz);
    if (s->csv && !(b.csv = fopen(s->csv, "w"))) {
        cli_log("jetfilter bench: %s: cannot write", s->csv);
        rc = JF_EXIT_FAILED;
        goto done;
    }
    if (b.csv)
        fprintf(b.csv, "tag,backend,width,height,channels,filter,border,variant,k,reps,ms,min_ms,max_ms,"
                       "pad_ms,mpix_per_s,bytes_read,bytes_written,gbps,pct_theoretical,pct_copy_ceiling,"
                       "npp_ms,jf_over_npp,check,l2_resident,energy_mj_per_image,mean_w\n");
    printf("# jetfilter %s (%s), %s, CPU %s (%d threads)\n", JF_VERSION_STRING, JF_GIT_REVISION, date,
           cpu_model, jf_cpu_count());
    if (pm.mode_id >= 0)
        printf("# power mode %d %s (%s), %d CPUs online, GPU %.0f of %.0f MHz\n", pm.mode_id,
               pm.mode_name, pm.source, pm.cpus_online, pm.gpu_cur_mhz, pm.gpu_max_mhz);
    else
        printf("# power mode: none readable (not a Jetson, or nvpmodel not permitted); %d CPUs online\n",
               pm.cpus_online);
    if (s->energy)
        printf("# energy: %s\n", jf_power_meter_source(b.meter));
    printf("# NPP baseline: %s\n", jf_npp_version());
    for (bi = 0; bi < b.nbackends; bi++) {
        jf_context_options o = {b.backends[bi], s->device, s->threads, NULL, JF_MEMORY_COPY,
                                s->peak_gbps};
        jf_context *ctx = NULL;
        const int idx = b.backends[bi] == JF_BACKEND_CUDA;
        size_t copy_bytes = (size_t)(s->ceiling_mb * 1024 * 1024);
        if (jf_context_create(&o, &ctx) != JF_OK) {
            cli_log("jetfilter bench: %s", jf_last_error());
            rc = JF_EXIT_FAILED;
            goto done;
        }
        if (idx) {
            b.have_dev = jf_context_device(ctx, &b.dev) == JF_OK;
            if (b.have_dev && copy_bytes > b.dev.total_memory / 8)
                copy_bytes = (size_t)(b.dev.total_memory / 8);
        } else if (copy_bytes > ((size_t)256 << 20)) {
            copy_bytes = (size_t)256 << 20;
        }
        if (jf_measure_copy_gbps(ctx, copy_bytes, 10, &b.ceiling[idx]) != JF_OK)
            cli_log("jetfilter bench: copy ceiling not measured: %s", jf_last_error());
        if (idx && b.have_dev)
            printf("# %s, cc %d.%d, %d SMs, L2 %.0f MB; theoretical %.1f GB/s (%s); "
                   "copy ceiling %.1f GB/s (%.0f MB device-to-device, read + write)\n",
                   b.dev.name, b.dev.cc_major, b.dev.cc_minor, b.dev.multiprocessors,
                   b.dev.l2_bytes / 1e6, b.dev.theoretical_gbps, b.dev.theoretical_source,
                   b.ceiling[1], copy_bytes / 1048576.0);
        else
            printf("# CPU copy ceiling %.1f GB/s (%.0f MB memcpy, read + write)\n", b.ceiling[0],
                   copy_bytes / 1048576.0);
        printf("%-10s %2s %-6s %-9s %-4s %-13s %2s %9s %9s %9s %8s %8s %7s %7s %-17s %s\n", "size", "ch",
               "filter", "border", "back", "variant", "k", "ms", "min", "max", "Mpix/s", "GB/s",
               "%peak", "%ceil", "NPP ms  jf/NPP", "check");
        for (si = 0; si < b.nsizes && rc == 0; si++)
            for (ci = 0; ci < b.nchannels && rc == 0; ci++) {
                rc = bench_size(&b, ctx, b.sizes[si][0], b.sizes[si][1], b.channels[ci]);
            }
        jf_context_destroy(ctx);
    }
    if (s->json)
        write_json(&b, &pm, cpu_model, date, sm_mhz, mem_mhz);
    if (b.failures) {
        cli_log("jetfilter bench: %d cell(s) failed verification or did not run", b.failures);
        rc = JF_EXIT_FAILED;
    }
done:
    if (b.csv)
        fclose(b.csv);
    free(b.rows);
    jf_power_meter_close(b.meter);
    jf_context_destroy(b.cpu);
    jf_picture_free(&b.photo);
    return rc;
}
