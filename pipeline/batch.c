/*
 * The batch: which files, where their outputs go, and a pool of jobs that
 * works through them.  Each job has its own jf_context (its own CPU threads
 * or CUDA stream), so files are independent and a failure stays with its file.
 */
#define _DEFAULT_SOURCE
#include "pipeline/batch.h"
#include "pipeline/context.h"
#include "pipeline/errors.h"
#include "io/io.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *join_output(const batch *b, const char *rel)
{
    const cli_settings *s = b->s;
    const char *dot = strrchr(rel, '.');
    const char *slash = strrchr(rel, '/');
    const char *ext = NULL;
    size_t stem_len, n;
    char *out;
    if (dot && (!slash || dot > slash) && dot != (slash ? slash + 1 : rel))
        stem_len = (size_t)(dot - rel);
    else
        stem_len = strlen(rel), dot = NULL;
    if (s->format == OUT_PNG)
        ext = ".png";
    else if (s->format == OUT_JPEG)
        ext = ".jpg";
    else
        ext = dot ? dot : "";
    /* a requested format keeps a matching extension as the user spelled it */
    if (dot && s->format != OUT_SAME && has_image_extension(rel)) {
        int dot_is_png = strcasecmp(dot, ".png") == 0;
        if ((s->format == OUT_PNG) == dot_is_png)
            ext = dot;
    }
    n = strlen(b->s->output) + 1 + stem_len + (s->suffix ? strlen(s->suffix) : 0) + strlen(ext) + 1;
    out = (char *)malloc(n);
    if (out)
        snprintf(out, n, "%s/%.*s%s%s", b->s->output, (int)stem_len, rel,
                 s->suffix ? s->suffix : "", ext);
    return out;
}

static int add_item(batch *b, const char *path, const char *rel)
{
    batch_item *it;
    if (b->count == b->cap) {
        int cap = b->cap ? b->cap * 2 : 64;
        batch_item *grown = (batch_item *)realloc(b->items, (size_t)cap * sizeof *grown);
        if (!grown)
            return 1;
        b->items = grown;
        b->cap = cap;
    }
    it = &b->items[b->count];
    memset(it, 0, sizeof *it);
    it->input = strdup(path);
    it->rel = strdup(rel);
    it->output = join_output(b, rel);
    if (!it->input || !it->rel || !it->output)
        return 1;
    b->count++;
    return 0;
}

/* Files found in folders: with --suffix, earlier outputs ("x_dn.jpg") are
 * passed over, so a second run does not filter its own results again. */
static int add_walked(batch *b, const char *path, const char *rel)
{
    const char *suffix = b->s->suffix;
    const char *base = strrchr(rel, '/'), *dot;
    size_t stem, n;
    base = base ? base + 1 : rel;
    dot = strrchr(base, '.');
    stem = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    n = suffix ? strlen(suffix) : 0;
    if (n && stem >= n && strncmp(base + stem - n, suffix, n) == 0) {
        b->ignored++;
        return 0;
    }
    return add_item(b, path, rel);
}

static void fail_item(batch_item *it, const char *fmt, const char *arg)
{
    it->status = JF_ERR_IO;
    snprintf(it->message, sizeof it->message, fmt, it->input, arg);
}

/* Is `inner` the folder `outer` or inside it?  Both resolved paths. */
static int path_within(const char *inner, const char *outer)
{
    size_t n = strlen(outer);
    if (strcmp(outer, "/") == 0)
        return 1;
    return strncmp(inner, outer, n) == 0 && (inner[n] == '\0' || inner[n] == '/');
}

static int cmp_output(const void *a, const void *b)
{
    const batch_item *x = *(const batch_item *const *)a, *y = *(const batch_item *const *)b;
    return strcmp(x->output, y->output);
}

int batch_collect(batch *b, cli_settings *s)
{
    batch_item **order;
    int i;
    b->s = s;
    if (!s->output) {
        fprintf(stderr, "jetfilter %s: no output folder; add -o OUTDIR\n", b->verb);
        return JF_EXIT_USAGE;
    }
    if (s->input_count == 0) {
        fprintf(stderr, "jetfilter %s: no inputs; give files or folders\n", b->verb);
        return JF_EXIT_USAGE;
    }
    if (s->suffix && (strchr(s->suffix, '/') || !*s->suffix)) {
        fprintf(stderr, "jetfilter %s: --suffix must be a non-empty name part without '/'\n",
                b->verb);
        return JF_EXIT_USAGE;
    }
    /* resolve the output folder before walking, to refuse writing into an input */
    if (jf_mkdirs(s->output) != JF_OK) {
        cli_log("jetfilter: %s", jf_last_error());
        return JF_EXIT_FAILED;
    }
    if (!realpath(s->output, b->out_real) || access(b->out_real, W_OK | X_OK) != 0) {
        cli_log("jetfilter: %s: output folder is not writable: %s", s->output, strerror(errno));
        return JF_EXIT_FAILED;
    }
    for (i = 0; i < s->input_count; i++) {
        const char *in = s->inputs[i];
        struct stat sb;
        char real[PATH_MAX];
        if (stat(in, &sb) != 0) {
            if (add_item(b, in, in))
                goto nomem;
            fail_item(&b->items[b->count - 1], "%s: cannot open: %s", strerror(errno));
            continue;
        }
        if (S_ISDIR(sb.st_mode)) {
            if (realpath(in, real) && path_within(b->out_real, real) && !s->suffix) {
                fprintf(stderr,
                        "jetfilter %s: output folder %s is inside input folder %s; choose another "
                        "-o, or name outputs apart with --suffix\n", b->verb, s->output, in);
                return JF_EXIT_USAGE;
            }
            if (walk_folder(b, in, b->out_real, add_walked) != 0)
                goto nomem;
        } else {
            const char *base = strrchr(in, '/');
            if (add_item(b, in, base ? base + 1 : in))
                goto nomem;
        }
    }
    if (b->count == 0) {
        cli_log("jetfilter: no JPEG or PNG files found in the inputs");
        return JF_EXIT_FAILED;
    }
    /* one output per name, and never an input overwritten */
    order = (batch_item **)malloc(sizeof *order * (size_t)b->count);
    if (!order)
        goto nomem;
    for (i = 0; i < b->count; i++)
        order[i] = &b->items[i];
    qsort(order, (size_t)b->count, sizeof *order, cmp_output);
    for (i = 1; i < b->count; i++)
        if (strcmp(order[i]->output, order[i - 1]->output) == 0 && order[i]->status == JF_OK)
            fail_item(order[i], "%s: output %s is also written for another input", order[i]->output);
    free(order);
    for (i = 0; i < b->count; i++) {
        batch_item *it = &b->items[i];
        char in_real[PATH_MAX], out_path[PATH_MAX];
        int n;
        if (it->status != JF_OK || !realpath(it->input, in_real))
            continue;
        n = snprintf(out_path, sizeof out_path, "%s/%s", b->out_real,
                     it->output + strlen(s->output) + 1);
        if (n < 0 || (size_t)n >= sizeof out_path)
            continue;
        if (strcmp(in_real, out_path) == 0)
            fail_item(it, "%s: refusing to overwrite the input (choose another -o or --suffix)%s", "");
    }
    return 0;
nomem:
    cli_log("jetfilter: out of memory while listing inputs");
    return JF_EXIT_FAILED;
}

typedef struct worker {
    batch *b;
    pthread_t tid;
    jf_context_options opt;
} worker;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

static void process(batch *b, batch_item *it, jf_context *ctx)
{
    double t0 = jf_now_ms();
    size_t n;
    struct stat sb;
    if (it->status != JF_OK)
        return; /* failed while listing */
    if (b->s->skip_existing && stat(it->output, &sb) == 0) {
        it->skipped = 1;
        return;
    }
    jf_stats_clear(ctx);
    jf_error_clear();
    it->status = b->work(b, it, ctx);
    it->ms_total = jf_now_ms() - t0;
    if (it->status != JF_OK)
        snprintf(it->message, sizeof it->message, "%s", jf_last_error());
    n = jf_stats_count(ctx);
    if (n) {
        it->stats = (jf_stat *)malloc(n * sizeof *it->stats);
        if (it->stats) {
            memcpy(it->stats, jf_stats_at(ctx, 0), n * sizeof *it->stats);
            it->stats_count = n;
        }
    }
}

static void report_item(batch *b, batch_item *it)
{
    b->done++;
    if (it->skipped) {
        b->skipped++;
        if (b->s->verbose && !cli_quiet)
            cli_log("skip %s (exists: %s)", it->input, it->output);
    } else if (it->status != JF_OK) {
        b->failed++;
        cli_log("jetfilter: %s", it->message[0] ? it->message : jf_status_str(it->status));
    } else {
        b->mpix_done += (double)it->width * it->height / 1e6;
        if (b->s->verbose && !cli_quiet) {
            char ref[160] = "";
            if (it->have_ref)
                snprintf(ref, sizeof ref, "  PSNR %.2f -> %.2f dB  SSIM %.4f -> %.4f", it->psnr_in,
                         it->psnr_out, it->ssim_in, it->ssim_out);
            cli_log("ok   %s -> %s  %dx%dx%d  %.1f ms%s", it->input, it->output, it->width,
                    it->height, it->channels, it->ms_total, ref);
        }
    }
    progress_update(b, it);
}

static void *work_loop(void *arg)
{
    worker *w = (worker *)arg;
    batch *b = w->b;
    jf_context *ctx = NULL;
    if (jf_context_create(&w->opt, &ctx) != JF_OK)
        ctx = NULL; /* the main thread made one with these options already */
    for (;;) {
        batch_item *it;
        pthread_mutex_lock(&g_lock);
        if (b->next >= b->count || !ctx) {
            pthread_mutex_unlock(&g_lock);
            break;
        }
        it = &b->items[b->next++];
        pthread_mutex_unlock(&g_lock);
        process(b, it, ctx);
        pthread_mutex_lock(&g_lock);
        report_item(b, it);
        pthread_mutex_unlock(&g_lock);
    }
    jf_context_destroy(ctx);
    return NULL;
}

int batch_run(batch *b, batch_work_fn work)
{
    const cli_settings *s = b->s;
    jf_context_options opt = {(jf_backend)s->backend, s->device, 0, NULL,
                              (jf_memory)s->memory, s->peak_gbps};
    jf_context *probe = NULL;
    worker *workers;
    int jobs = s->jobs < 1 ? 1 : s->jobs, i, total_threads;

    if (jobs > b->count)
        jobs = b->count;
    total_threads = s->threads ? s->threads : jf_cpu_count();
    opt.threads = total_threads / jobs > 0 ? total_threads / jobs : 1;
    b->work = work;
    /* one context first, to report a missing device once and clearly */
    if (jf_context_create(&opt, &probe) != JF_OK) {
        cli_log("jetfilter: %s", jf_last_error());
        return JF_EXIT_FAILED;
    }
    b->backend = jf_context_backend(probe);
    snprintf(b->backend_note, sizeof b->backend_note, "%s", jf_context_note(probe));
    if (b->backend_note[0] && !cli_quiet)
        cli_log("jetfilter: %s", b->backend_note);
    b->started_ms = jf_now_ms();
    workers = (worker *)calloc((size_t)jobs, sizeof *workers);
    if (!workers) {
        jf_context_destroy(probe);
        cli_log("jetfilter: out of memory");
        return JF_EXIT_FAILED;
    }
    if (jobs == 1) {
        /* the common case runs here, on the context already made */
        for (b->next = 0; b->next < b->count; b->next++) {
            process(b, &b->items[b->next], probe);
            report_item(b, &b->items[b->next]);
        }
    } else {
        for (i = 0; i < jobs; i++) {
            workers[i].b = b;
            workers[i].opt = opt;
            if (pthread_create(&workers[i].tid, NULL, work_loop, &workers[i]) != 0)
                workers[i].b = NULL;
        }
        for (i = 0; i < jobs; i++)
            if (workers[i].b)
                pthread_join(workers[i].tid, NULL);
        if (b->next < b->count) /* no worker could start: do it here */
            work_loop(&(worker){b, 0, opt});
    }
    free(workers);
    jf_context_destroy(probe);
    progress_clear();
    return 0;
}

static void json_item(json_buf *j, const batch_item *it)
{
    size_t k;
    json_open(j, NULL, '{');
    json_str(j, "input", it->input);
    json_str(j, "output", it->status == JF_OK ? it->output : NULL);
    json_str(j, "status", it->skipped ? "skipped" : it->status == JF_OK ? "ok" : "failed");
    if (it->status != JF_OK)
        json_str(j, "error", it->message);
    if (it->status == JF_OK && !it->skipped) {
        json_int(j, "width", it->width);
        json_int(j, "height", it->height);
        json_int(j, "channels", it->channels);
        json_open(j, "ms", '{');
        json_num(j, "decode", it->ms_decode);
        json_num(j, "filter", it->ms_filter);
        json_num(j, "metrics", it->ms_metrics);
        json_num(j, "encode", it->ms_encode);
        json_num(j, "total", it->ms_total);
        json_close(j, '}');
        if (it->have_ref) {
            json_num(j, "psnr_in_db", it->psnr_in);
            json_num(j, "psnr_out_db", it->psnr_out);
            json_num(j, "ssim_in", it->ssim_in);
            json_num(j, "ssim_out", it->ssim_out);
        }
        json_open(j, "stages", '[');
        for (k = 0; k < it->stats_count; k++) {
            const jf_stat *st = &it->stats[k];
            json_open(j, NULL, '{');
            json_str(j, "name", st->name);
            json_str(j, "variant", st->variant);
            json_int(j, "ksize", st->ksize);
            json_num(j, "ms", st->ms);
            json_int(j, "bytes_read", (long long)st->bytes_read);
            json_int(j, "bytes_written", (long long)st->bytes_written);
            json_num(j, "gbps", jf_stat_gbps(st));
            if (st->peak_gbps > 0)
                json_num(j, "pct_theoretical", jf_stat_percent(st));
            json_close(j, '}');
        }
        json_close(j, ']');
    }
    json_close(j, '}');
}

/* Sum the per-file records by stage name and print one table. */
static void print_stats(const batch *b)
{
    enum { MAX_ROWS = 32 };
    struct { char name[48]; int count; double ms; double bytes; double peak; } rows[MAX_ROWS];
    int nrows = 0, i, r;
    size_t k;
    for (i = 0; i < b->count; i++)
        for (k = 0; k < b->items[i].stats_count; k++) {
            const jf_stat *st = &b->items[i].stats[k];
            char name[48];
            snprintf(name, sizeof name, "%s%s%s", st->name, st->variant[0] ? "/" : "", st->variant);
            for (r = 0; r < nrows && strcmp(rows[r].name, name) != 0; r++)
                ;
            if (r == nrows) {
                if (nrows == MAX_ROWS)
                    continue;
                snprintf(rows[nrows].name, sizeof rows[nrows].name, "%s", name);
                rows[nrows].count = 0;
                rows[nrows].ms = rows[nrows].bytes = 0;
                rows[nrows].peak = st->peak_gbps;
                nrows++;
            }
            rows[r].count++;
            rows[r].ms += st->ms;
            rows[r].bytes += (double)(st->bytes_read + st->bytes_written);
        }
    cli_log("%-22s %6s %11s %10s %9s %8s", "stage", "calls", "total ms", "mean ms", "GB/s",
            "% peak");
    for (r = 0; r < nrows; r++) {
        char gbps[16] = "-", pct[16] = "-";
        if (rows[r].bytes > 0 && rows[r].ms > 0) {
            double g = rows[r].bytes / (rows[r].ms * 1e6);
            snprintf(gbps, sizeof gbps, "%.2f", g);
            if (rows[r].peak > 0)
                snprintf(pct, sizeof pct, "%.2f%%", 100.0 * g / rows[r].peak);
        }
        cli_log("%-22s %6d %11.2f %10.3f %9s %8s", rows[r].name, rows[r].count, rows[r].ms,
                rows[r].ms / rows[r].count, gbps, pct);
    }
}

int batch_finish(batch *b)
{
    const cli_settings *s = b->s;
    double secs = (jf_now_ms() - b->started_ms) / 1000.0;
    int ok = b->count - b->failed - b->skipped, refs = 0, i;
    double pin = 0, pout = 0, sin = 0, sout = 0;
    int pin_inf = 0, pout_inf = 0;

    for (i = 0; i < b->count; i++) {
        const batch_item *it = &b->items[i];
        if (it->status != JF_OK || it->skipped || !it->have_ref)
            continue;
        refs++;
        if (isinf(it->psnr_in)) pin_inf = 1; else pin += it->psnr_in;
        if (isinf(it->psnr_out)) pout_inf = 1; else pout += it->psnr_out;
        sin += it->ssim_in;
        sout += it->ssim_out;
    }
    if (!cli_quiet) {
        cli_log("jetfilter %s: %d ok, %d failed, %d skipped%s in %.2f s (%.1f MPix/s, backend %s)",
                b->verb, ok, b->failed, b->skipped, "", secs, secs > 0 ? b->mpix_done / secs : 0.0,
                jf_backend_name(b->backend));
        if (b->ignored)
            cli_log("  %d non-image file%s in the folders passed over", b->ignored,
                    b->ignored == 1 ? "" : "s");
        if (refs) {
            char pi[32], po[32];
            snprintf(pi, sizeof pi, pin_inf ? "inf" : "%.2f", pin / refs);
            snprintf(po, sizeof po, pout_inf ? "inf" : "%.2f", pout / refs);
            cli_log("  against the references (mean of %d): PSNR %s -> %s dB, SSIM %.4f -> %.4f",
                    refs, pi, po, sin / refs, sout / refs);
        }
        if (s->stats)
            print_stats(b);
    }
    if (s->json) {
        json_buf j = {0};
        json_open(&j, NULL, '{');
        json_str(&j, "jetfilter", JF_VERSION_STRING);
        json_str(&j, "command", b->verb);
        json_str(&j, "backend", jf_backend_name(b->backend));
        json_open(&j, "files", '[');
        for (i = 0; i < b->count; i++)
            json_item(&j, &b->items[i]);
        json_close(&j, ']');
        json_open(&j, "summary", '{');
        json_int(&j, "files", b->count);
        json_int(&j, "ok", ok);
        json_int(&j, "failed", b->failed);
        json_int(&j, "skipped", b->skipped);
        json_int(&j, "ignored", b->ignored);
        json_num(&j, "seconds", secs);
        json_num(&j, "mpix_per_s", secs > 0 ? b->mpix_done / secs : 0.0);
        if (refs) {
            json_num(&j, "mean_psnr_in_db", pin_inf ? INFINITY : pin / refs);
            json_num(&j, "mean_psnr_out_db", pout_inf ? INFINITY : pout / refs);
            json_num(&j, "mean_ssim_in", sin / refs);
            json_num(&j, "mean_ssim_out", sout / refs);
        }
        json_close(&j, '}');
        json_close(&j, '}');
        json_raw(&j, "\n");
        if (j.fail || jf_write_file_atomic(s->json, (const unsigned char *)j.data, j.len) != JF_OK) {
            cli_log("jetfilter: %s", j.fail ? "out of memory for the JSON report" : jf_last_error());
            free(j.data);
            return JF_EXIT_FAILED;
        }
        free(j.data);
    }
    return b->failed ? JF_EXIT_FAILED : JF_EXIT_OK;
}

void batch_free(batch *b)
{
    int i;
    for (i = 0; i < b->count; i++) {
        free(b->items[i].input);
        free(b->items[i].rel);
        free(b->items[i].output);
        free(b->items[i].stats);
    }
    free(b->items);
    b->items = NULL;
    b->count = b->cap = 0;
}
