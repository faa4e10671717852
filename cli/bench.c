/*
 * jetfilter bench: the options, the table on the terminal, CSV and JSON.
 * The measuring is benchmarks/sweep.c; the operations come from the
 * operation table, so a new filter is benchmarked without a change here.
 */
#define _DEFAULT_SOURCE
#include "benchmarks/npp.h"
#include "benchmarks/sweep.h"
#include "calib/power.h"
#include "cli/cli.h"
#include "core/parse.h"
#include "jobs/json.h"
#include "core/names.h"
#include "core/util.h"
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

typedef struct bench {
    job_settings *s;
    jf_sweep sw;
    jf_picture photo;
    char photo_path[4096];   /* the photo tiled (--photo, or the installed default) */
    FILE *csv;
    jf_atomic_file csv_file; /* --csv appears under its name when complete */
    jf_sweep_cell *cells;
    int ncells, capcells;
} bench;

static int parse_ints(const char *text, int *out, int max, const char *what)
{
    char buf[1024], *tok[JF_SWEEP_MAX + 1];
    int n, i;
    snprintf(buf, sizeof buf, "%s", text);
    n = job_split(buf, tok, JF_SWEEP_MAX + 1);
    if (n > max) {
        job_error("jetfilter bench: at most %d %s values", max, what);
        return -1;
    }
    for (i = 0; i < n; i++) {
        long long v;
        if (jf_parse_ll(tok[i], &v) || v < 1 || v > 100000) {
            job_error("jetfilter bench: bad %s list '%s'", what, text);
            return -1;
        }
        out[i] = (int)v;
    }
    return n;
}

static int parse_sizes(const char *text, int (*out)[2], int max)
{
    char buf[1024], *tok[JF_SWEEP_MAX + 1];
    int n, i;
    snprintf(buf, sizeof buf, "%s", text);
    n = job_split(buf, tok, JF_SWEEP_MAX + 1);
    for (i = 0; i < n; i++) {
        int w, h;
        if (i == max || jf_parse_wxh(tok[i], 999999, &w, &h)) {
            job_error("jetfilter bench: bad size list '%s' (want WxH,WxH,...)", text);
            return -1;
        }
        out[i][0] = w;
        out[i][1] = h;
    }
    return n;
}

/* A list option of names into enum values (already checked by the parser). */
static int parse_names(const char *text, const char *const *names, int *out, int max)
{
    char buf[1024], *tok[16];
    int n, i;
    snprintf(buf, sizeof buf, "%s", text); /* the parser held lists to 1024 bytes */
    n = job_split(buf, tok, 16);
    if (n > max)
        n = max;
    for (i = 0; i < n; i++)
        out[i] = jf_name_index(names, tok[i]);
    return n;
}

/* The settings the bench sets per cell; every other one (--sigma, --kernel)
 * is kept by each operation that takes it, as denoise would use it. */
static int swept(const char *param)
{
    static const char *const names[] = {"ksize", "max-ksize", "border", "variant", "block", NULL};
    return jf_name_index(names, param) >= 0;
}

/* The k an operation's kept settings fix when no -k is given (a weights
 * file's size, a Gaussian's 2 ceil(3 sigma) + 1), or 0; with -k, each k must
 * agree with a weights file. */
static int fixed_k(const jf_sweep *sw, int oi, int ks_given, int *k)
{
    jf_op_plan plan;
    jf_op_args a = sw->op_args[oi];
    int i;
    *k = 0;
    if (a.sigma <= 0 && !a.kernel_file)
        return 0;
    for (i = 0; i < (ks_given ? sw->nks : 1); i++) {
        a.ksize = ks_given ? sw->ks[i] : 0;
        if (ks_given && a.ksize > jf_op_max_ksize(sw->ops[oi]))
            continue;
        if (jf_op_prepare(sw->ops[oi], &a, &plan) != JF_OK) {
            job_error("jetfilter bench: --filter %s: %s", sw->ops[oi]->name, jf_last_error());
            return JF_EXIT_USAGE;
        }
        if (!ks_given)
            *k = plan.ksize;
        jf_op_plan_free(&plan);
    }
    return 0;
}

static int configure_ops(jf_sweep *sw, const job_settings *s, int ks_given)
{
    const jf_param_def *params;
    char buf[1024], *tok[JF_SWEEP_MAX];
    int n, i, p, count, rc;
    snprintf(buf, sizeof buf, "%s", s->filter ? s->filter : "median,conv");
    n = job_split(buf, tok, JF_SWEEP_MAX);
    params = job_params(&count);
    for (i = 0; i < n; i++) {
        const jf_op *op = jf_op_find(tok[i]);
        if (!op || op->kind == JF_OP_NOISE) {
            job_error("jetfilter bench: --filter %s: not something the bench measures", tok[i]);
            return JF_EXIT_USAGE;
        }
        sw->ops[sw->nops] = op;
        sw->op_args[sw->nops] = jf_op_args_defaults();
        for (p = 0; p < count; p++)
            if (s->param[p] && !swept(params[p].info.name) && jf_op_param_def(op, params[p].info.name) &&
                jf_op_args_set(op, &sw->op_args[sw->nops], params[p].info.name, s->param[p]) != JF_OK) {
                job_error("jetfilter bench: %s", jf_last_error());
                return JF_EXIT_USAGE;
            }
        if ((rc = fixed_k(sw, sw->nops, ks_given, &sw->op_k[sw->nops])) != 0)
            return rc;
        sw->nops++;
    }
    for (p = 0; p < count; p++) { /* a setting given that none of the filters has (defaults,
                                    * such as the border, only go where they belong) */
        int taken = 0;
        for (i = 0; i < sw->nops; i++)
            taken |= jf_op_param_def(sw->ops[i], params[p].info.name) != NULL;
        if (s->param_given[p] && !taken) {
            job_error("jetfilter bench: --%s is not a setting of any --filter given",
                    params[p].info.name);
            return JF_EXIT_USAGE;
        }
    }
    return 0;
}

static int configure(bench *b, job_settings *s)
{
    static const int seed_sizes[][2] = {{345, 194}, {493, 277}, {705, 396}, {1007, 567},
                                        {1440, 810}, {1920, 1080}, {3840, 2160}, {7680, 4320}};
    jf_sweep *sw = &b->sw;
    const char *ks = job_param(s, "ksize"), *variants = job_param(s, "variant");
    const char *borders = job_param(s, "border"), *block = job_param(s, "block");
    int tmp[JF_SWEEP_MAX], i, n;
    if (s->sizes) {
        if ((sw->nsizes = parse_sizes(s->sizes, sw->sizes, JF_SWEEP_MAX)) < 0)
            return JF_EXIT_USAGE;
    } else {
        memcpy(sw->sizes, seed_sizes, sizeof seed_sizes);
        sw->nsizes = 8;
    }
    if (ks) {
        if ((sw->nks = parse_ints(ks, sw->ks, JF_SWEEP_MAX, "kernel size")) < 0)
            return JF_EXIT_USAGE;
        for (i = 0; i < sw->nks; i++)
            if (sw->ks[i] % 2 == 0) {
                job_error("jetfilter bench: kernel size %d is even", sw->ks[i]);
                return JF_EXIT_USAGE;
            }
    } else {
        for (i = 0; i < 5; i++)
            sw->ks[i] = 3 + 2 * i;
        sw->nks = 5;
    }
    if (configure_ops(sw, s, ks != NULL) != 0)
        return JF_EXIT_USAGE;
    n = parse_names(variants, jf_variant_names, tmp, JF_VARIANT_COUNT); /* default: auto */
    for (i = 0; i < n; i++)
        sw->variants[sw->nvariants++] = (jf_variant)tmp[i];
    n = borders ? parse_names(borders, jf_border_names, tmp, JF_BORDER_COUNT) : 1;
    for (i = 0; i < n; i++)
        sw->borders[i] = borders ? (jf_border)tmp[i] : JF_BORDER_REPLICATE;
    sw->nborders = n;
    if (s->channels) {
        if ((sw->nchannels = parse_ints(s->channels, sw->channels, 3, "channel")) < 0)
            return JF_EXIT_USAGE;
        for (i = 0; i < sw->nchannels; i++)
            if (sw->channels[i] != 1 && sw->channels[i] != 3 && sw->channels[i] != 4) {
                job_error("jetfilter bench: channels are 1, 3 or 4");
                return JF_EXIT_USAGE;
            }
    } else {
        sw->channels[0] = 1;
        sw->nchannels = 1;
    }
    if (s->depths) {
        if ((sw->ndepths = parse_ints(s->depths, sw->depths, 2, "depth")) < 0)
            return JF_EXIT_USAGE;
        for (i = 0; i < sw->ndepths; i++)
            if (sw->depths[i] != 8 && sw->depths[i] != 16) {
                job_error("jetfilter bench: --depth: 8 or 16 bits");
                return JF_EXIT_USAGE;
            }
    }
    if (s->backend) {
        n = parse_names(s->backend, jf_backend_names, tmp, 2);
        for (i = 0; i < n; i++)
            sw->backends[sw->nbackends++] = tmp[i] == JF_BACKEND_CPU ? JF_BACKEND_CPU : JF_BACKEND_CUDA;
    } else {
        sw->backends[0] = jf_device_count() > 0 ? JF_BACKEND_CUDA : JF_BACKEND_CPU;
        sw->nbackends = 1;
    }
    if (block && jf_op_block_parse(block, &sw->block_x, &sw->block_y) != 0) { /* checked by the parser */
        job_error("jetfilter bench: --block %s: one WxH", block);
        return JF_EXIT_USAGE;
    }
    return 0;
}

/* A CSV field: quoted when it holds a comma, a quote or a line break. */
static void csv_field(FILE *f, const char *v)
{
    if (strpbrk(v, ",\"\r\n")) {
        fputc('"', f);
        for (; *v; v++) {
            if (*v == '"')
                fputc('"', f);
            fputc(*v, f);
        }
        fputc('"', f);
    } else {
        fputs(v, f);
    }
}

static void write_csv_row(bench *b, const jf_sweep_cell *r)
{
    csv_field(b->csv, b->s->tag ? b->s->tag : "");
    fprintf(b->csv, ",%s,%d,%d,%d,%s,%s,%s,%d,%d,%.5f,%.5f,%.5f,%.5f,%.3f,%llu,%llu,%.3f,%.4f,%.4f,"
                    "%.5f,%.4f,", r->backend, r->width, r->height, r->channels, r->filter, r->border,
            r->variant, r->k, r->reps, r->ms, r->min_ms, r->max_ms, r->pad_ms, r->mpix_s,
            r->bytes_read, r->bytes_written, r->gbps, r->pct_peak, r->pct_ceiling, r->npp_ms,
            r->jf_over_npp);
    csv_field(b->csv, r->check);
    fprintf(b->csv, ",%d,%.4f,%.4f,%d\n", r->l2_resident, r->energy_mj, r->mean_w, r->depth);
}

static void on_cell(void *user, const jf_sweep_cell *r)
{
    bench *b = (bench *)user;
    char npp[48] = "-", energy[80] = "", size[24], peak[16] = "-", ceil[16] = "-";
    snprintf(size, sizeof size, r->depth == 16 ? "%dx%d@16" : "%dx%d", r->width, r->height);
    if (!isnan(r->npp_ms))
        snprintf(npp, sizeof npp, "%8.4f %6.2fx", r->npp_ms, r->jf_over_npp);
    if (!isnan(r->pct_peak))
        snprintf(peak, sizeof peak, "%6.2f%%", r->pct_peak);
    if (!isnan(r->pct_ceiling))
        snprintf(ceil, sizeof ceil, "%6.2f%%", r->pct_ceiling);
    if (!isnan(r->energy_mj) && !isnan(r->energy_compute_mj))
        snprintf(energy, sizeof energy, " %8.3f mJ %6.2f W (CPU+GPU rail %.3f mJ)", r->energy_mj,
                 r->mean_w, r->energy_compute_mj);
    else if (!isnan(r->energy_mj))
        snprintf(energy, sizeof energy, " %8.3f mJ %6.2f W", r->energy_mj, r->mean_w);
    if (!job_quiet)
        printf("%-12s %2d %-16s %-9s %-4s %-13s %2d %9.4f %9.4f %9.4f %8.1f %8.1f %7s %7s %-17s %s%s\n",
               size, r->channels, r->filter, r->border, r->backend, r->variant, r->k, r->ms,
               r->min_ms, r->max_ms, r->mpix_s, r->gbps, peak, ceil, npp, r->check, energy);
    fflush(stdout);
    if (b->csv)
        write_csv_row(b, r);
    if (b->ncells == b->capcells) {
        int cap = b->capcells ? b->capcells * 2 : 256;
        jf_sweep_cell *grown = (jf_sweep_cell *)realloc(b->cells, (size_t)cap * sizeof *grown);
        if (!grown)
            return;
        b->cells = grown;
        b->capcells = cap;
    }
    b->cells[b->ncells++] = *r;
}

static void on_backend(void *user, jf_backend backend, const jf_device_info *d, double ceiling,
                       double mb)
{
    (void)user;
    if (job_quiet)
        return;
    if (backend == JF_BACKEND_CUDA && d)
        printf("# %s, cc %d.%d, %d SMs, L2 %.0f MB; theoretical %.1f GB/s (%s); "
               "copy ceiling %.1f GB/s (%.0f MB device-to-device, read + write)%s\n",
               d->name, d->cc_major, d->cc_minor, d->multiprocessors, d->l2_bytes / 1e6,
               d->theoretical_gbps, d->theoretical_source, ceiling, mb,
               d->limited ? "; Jetson Nano limits" : "");
    else
        printf("# CPU copy ceiling %.1f GB/s (%.0f MB memcpy, read + write)\n", ceiling, mb);
    printf("%-12s %2s %-16s %-9s %-4s %-13s %2s %9s %9s %9s %8s %8s %7s %7s %-17s %s\n", "size", "ch",
           "filter", "border", "back", "variant", "k", "ms", "min", "max", "Mpix/s", "GB/s",
           "%peak", "%ceil", "NPP ms  jf/NPP", "check");
}

static void on_log(void *user, const char *msg)
{
    (void)user;
    job_log("jetfilter bench: %s", msg);
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

typedef struct bench_meta {
    jf_power_mode pm;
    char cpu_model[256], date[32];
    char profile[1024]; /* what `auto` follows on the device: a profile's path, or none */
    double sm_mhz, mem_mhz;
} bench_meta;

static void json_meta(json_buf *j, const bench *b, const bench_meta *m)
{
    const jf_sweep *sw = &b->sw;
    char cmd[2048] = "", cc[16];
    size_t used = 0;
    int i;
    for (i = 0; i < cli_argc && used < sizeof cmd - 1; i++)
        used += (size_t)snprintf(cmd + used, sizeof cmd - used, "%s%s", i ? " " : "", cli_argv[i]);
    json_open(j, "meta", '{');
    json_str(j, "jetfilter", JF_VERSION_STRING);
    json_str(j, "git_revision", JF_GIT_REVISION);
    json_str(j, "date_utc", m->date);
    json_str(j, "command", cmd);
    json_str(j, "tag", b->s->tag ? b->s->tag : "");
    json_str(j, "cpu", m->cpu_model);
    json_int(j, "cpu_threads", jf_cpu_count());
    if (sw->have_dev) {
        snprintf(cc, sizeof cc, "%d.%d", sw->dev.cc_major, sw->dev.cc_minor);
        json_str(j, "device", sw->dev.name);
        json_str(j, "compute_capability", cc);
        json_int(j, "multiprocessors", sw->dev.multiprocessors);
        json_int(j, "integrated", sw->dev.integrated);
        json_int(j, "device_limits_nano", sw->dev.limited);
        json_int(j, "cuda_runtime", sw->dev.runtime_version);
        json_int(j, "cuda_driver", sw->dev.driver_version);
        json_int(j, "l2_bytes", (long long)sw->dev.l2_bytes);
        json_num(j, "theoretical_gbps", sw->dev.theoretical_gbps);
        json_str(j, "theoretical_source", sw->dev.theoretical_source);
        json_num(j, "sm_clock_mhz", m->sm_mhz);
        json_num(j, "memory_clock_mhz", m->mem_mhz);
        json_str(j, "auto_profile", m->profile);
    }
    json_num(j, "copy_ceiling_gbps_cuda", sw->ceiling[1] > 0 ? sw->ceiling[1] : NAN);
    json_num(j, "copy_ceiling_gbps_cpu", sw->ceiling[0] > 0 ? sw->ceiling[0] : NAN);
    json_str(j, "npp", jf_npp_version());
    json_int(j, "power_mode_id", m->pm.mode_id);
    json_str(j, "power_mode", m->pm.mode_name);
    json_str(j, "power_mode_source", m->pm.source);
    json_int(j, "cpus_online", m->pm.cpus_online);
    json_num(j, "gpu_cur_mhz", m->pm.gpu_cur_mhz);
    json_num(j, "gpu_max_mhz", m->pm.gpu_max_mhz);
    json_str(j, "energy_source", b->s->energy ? sw->energy_source : "not requested");
    json_str(j, "energy_rail", sw->energy_rail[0] ? sw->energy_rail : NULL);
    json_str(j, "energy_compute_rail", sw->energy_compute_rail[0] ? sw->energy_compute_rail : NULL);
    json_str(j, "input", b->sw.photo ? b->photo_path : "seeded random");
    json_num(j, "impulses", b->s->impulses);
    json_close(j, '}');
}

static void json_cell(json_buf *j, const jf_sweep_cell *r)
{
    json_open(j, NULL, '{');
    json_str(j, "backend", r->backend);
    json_int(j, "width", r->width);
    json_int(j, "height", r->height);
    json_int(j, "channels", r->channels);
    json_int(j, "depth", r->depth);
    json_str(j, "operation", r->filter);
    json_str(j, "border", r->border);
    json_str(j, "variant", r->variant);
    json_int(j, "ksize", r->k);
    json_int(j, "reps", r->reps);
    json_num(j, "ms", r->ms);
    json_num(j, "min_ms", r->min_ms);
    json_num(j, "max_ms", r->max_ms);
    json_num(j, "pad_ms", r->pad_ms);
    json_num(j, "mpix_per_s", r->mpix_s);
    json_int(j, "bytes_read", (long long)r->bytes_read);
    json_int(j, "bytes_written", (long long)r->bytes_written);
    json_num(j, "gbps", r->gbps);
    json_num(j, "pct_theoretical", r->pct_peak);
    json_num(j, "pct_copy_ceiling", r->pct_ceiling);
    json_num(j, "npp_ms", r->npp_ms);
    json_num(j, "jf_over_npp", r->jf_over_npp);
    json_str(j, "check", r->check);
    if (r->l2_resident < 0)
        json_str(j, "l2_resident", NULL); /* not known (the CPU) */
    else
        json_bool(j, "l2_resident", r->l2_resident);
    json_num(j, "energy_mj_per_image", r->energy_mj);
    json_num(j, "energy_compute_mj_per_image", r->energy_compute_mj);
    json_num(j, "mean_w", r->mean_w);
    json_close(j, '}');
}

static int write_json(const bench *b, const bench_meta *m)
{
    json_buf j = {0};
    int i, ok;
    json_report_open(&j, "bench");
    json_meta(&j, b, m);
    json_open(&j, "cells", '[');
    for (i = 0; i < b->ncells; i++)
        json_cell(&j, &b->cells[i]);
    json_close(&j, ']');
    json_close(&j, '}');
    json_raw(&j, "\n");
    ok = !j.fail && job_json_write(b->s->json, j.data, j.len);
    if (!ok)
        job_error("jetfilter bench: %s", j.fail ? "out of memory for JSON" : jf_last_error());
    free(j.data);
    return ok;
}

static void print_header(const bench *b, const bench_meta *m)
{
    if (job_quiet)
        return;
    printf("# jetfilter %s (%s), %s, CPU %s (%d threads)\n", JF_VERSION_STRING, JF_GIT_REVISION,
           m->date, m->cpu_model, jf_cpu_count());
    if (m->pm.mode_id >= 0)
        printf("# power mode %d %s (%s), %d CPUs online, GPU %.0f of %.0f MHz\n", m->pm.mode_id,
               m->pm.mode_name, m->pm.source, m->pm.cpus_online, m->pm.gpu_cur_mhz, m->pm.gpu_max_mhz);
    else
        printf("# power mode: none readable (not a Jetson, or nvpmodel not permitted); %d CPUs online\n",
               m->pm.cpus_online);
    printf("# reps per cell: %s; warm-up %d\n",
           b->s->reps ? "as given" : "30 on the GPU, 5 on the CPU", b->s->warmup);
    printf("# NPP baseline: %s\n", jf_npp_version());
    if (m->profile[0])
        printf("# auto profile: %s\n", m->profile);
}

static void sweep_settings(bench *b, job_settings *s)
{
    jf_sweep *sw = &b->sw;
    sw->reps = s->reps;
    sw->warmup = s->warmup;
    sw->photo = s->random ? NULL : &b->photo.color;
    sw->energy = s->energy;
    sw->impulses = s->impulses;
    sw->device = s->device;
    sw->threads = s->threads;
    sw->memory = (jf_memory)s->memory;
    sw->peak_gbps = s->peak_gbps;
    sw->ceiling_mb = s->ceiling_mb;
    sw->on_backend = on_backend;
    sw->on_cell = on_cell;
    sw->log = on_log;
    sw->user = b;
}

/* The photo the bench tiles: --photo, else retina.jpg where the tool is
 * installed (PREFIX/share/jetfilter, found from the executable's own path,
 * so a moved install still finds it), where it was to be installed, or in
 * the source tree it was built from. */
static int default_photo(const job_settings *s, char *path, size_t n)
{
    char exe[4096];
    ssize_t len;
    if (s->photo) {
        snprintf(path, n, "%s", s->photo);
        return 1;
    }
    if ((len = readlink("/proc/self/exe", exe, sizeof exe - 1)) > 0) {
        char *slash;
        exe[len] = '\0';
        if ((slash = strrchr(exe, '/')) != NULL) {
            *slash = '\0';
            if (snprintf(path, n, "%s/../share/jetfilter/retina.jpg", exe) < (int)n &&
                access(path, R_OK) == 0)
                return 1;
        }
    }
    if (snprintf(path, n, "%s/retina.jpg", JF_DATA_DIR) < (int)n && access(path, R_OK) == 0)
        return 1;
    return snprintf(path, n, "%s/samples/images/retina.jpg", JF_SOURCE_TREE) < (int)n &&
           access(path, R_OK) == 0;
}

int cli_bench(job_settings *s)
{
    bench b;
    bench_meta m;
    time_t now = time(NULL);
    int rc;
    jf_power_meter *meter;

    memset(&b, 0, sizeof b);
    b.s = s;
    if ((rc = configure(&b, s)) != 0)
        return rc;
    {
        const char *photo = s->photo;
        job_outputs o = {"bench", &photo, 1,
                         {{"--json", s->json, JOB_OUT_REPORT}, {"--csv", s->csv, JOB_OUT_TABLE}}, 2,
                         s->force};
        if (job_outputs_check(&o) != 0)
            return JF_EXIT_USAGE;
    }
    if (!s->random && !default_photo(s, b.photo_path, sizeof b.photo_path)) {
        job_error("jetfilter bench: the default photo (retina.jpg) is neither installed beside the "
                "tool nor in its source tree; give --photo FILE or --random");
        return JF_EXIT_FAILED;
    }
    if (!s->random && jf_picture_read(b.photo_path, &b.photo) != JF_OK) {
        job_error("jetfilter bench: %s (give --photo FILE or --random)", jf_last_error());
        return JF_EXIT_FAILED;
    }
    if (!s->random && b.photo.color.channels != 3) {
        job_error("jetfilter bench: the photo must be RGB");
        jf_picture_free(&b.photo);
        return JF_EXIT_FAILED;
    }
    if (s->csv && (jf_atomic_open(s->csv, &b.csv_file) != JF_OK ||
                   !(b.csv = fdopen(b.csv_file.fd, "w")))) { /* appears complete, at the end */
        job_error("jetfilter bench: %s", jf_last_error());
        jf_atomic_abort(&b.csv_file);
        jf_picture_free(&b.photo);
        return JF_EXIT_FAILED;
    }
    if (b.csv)
        fprintf(b.csv, JOB_CSV_FIRST_FIELDS "channels,operation,border,variant,ksize,reps,ms,min_ms,max_ms,"
                       "pad_ms,mpix_per_s,bytes_read,bytes_written,gbps,pct_theoretical,pct_copy_ceiling,"
                       "npp_ms,jf_over_npp,check,l2_resident,energy_mj_per_image,mean_w,depth\n");
    memset(&m, 0, sizeof m);
    strftime(m.date, sizeof m.date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    read_cpu_model(m.cpu_model, sizeof m.cpu_model);
    m.pm = *job_power_mode();
    meter = jf_power_meter_open(NULL, s->device);
    m.sm_mhz = m.mem_mhz = NAN;
    jf_power_meter_clocks(meter, &m.sm_mhz, &m.mem_mhz);
    jf_power_meter_close(meter);
    if (jf_device_count() > s->device)
        cli_profile_status(s->device, m.profile, sizeof m.profile);
    print_header(&b, &m);
    sweep_settings(&b, s);
    if (jf_sweep_run(&b.sw) != JF_OK) {
        job_error("jetfilter bench: %s", jf_last_error());
        rc = JF_EXIT_FAILED;
    }
    if (s->energy && strncmp(b.sw.energy_source, "none", 4) == 0)
        job_log("jetfilter bench: --energy: %s", b.sw.energy_source);
    else if (s->energy && b.sw.energy_rail[0] && !job_quiet)
        job_log("jetfilter bench: energy of the %s rail (the module)%s%s", b.sw.energy_rail,
                b.sw.energy_compute_rail[0] ? ", and of " : "", b.sw.energy_compute_rail);
    if (s->json && !write_json(&b, &m))
        rc = JF_EXIT_FAILED;
    if (b.sw.failures) {
        job_error("jetfilter bench: %d cell(s) failed verification or did not run", b.sw.failures);
        rc = JF_EXIT_FAILED;
    }
    if (b.csv) { /* the table is written whole or not at all */
        if (fflush(b.csv) != 0 || (b.csv_file.fd = dup(fileno(b.csv))) < 0 ||
            jf_atomic_commit(&b.csv_file) != JF_OK) {
            job_error("jetfilter bench: %s: %s", s->csv, jf_last_error());
            jf_atomic_abort(&b.csv_file);
            rc = JF_EXIT_FAILED;
        }
        fclose(b.csv);
    }
    free(b.cells);
    jf_picture_free(&b.photo);
    return rc;
}
