/* What a batch says as it goes (a line per file with -v, failures always,
 * its progress to the sink) and at its end: the summary, the stage table of
 * --stats and the --json report. */
#define _POSIX_C_SOURCE 200809L
#include "jobs/jobs.h"
#include "jobs/json.h"
#include "core/util.h"
#include "io/io.h"
#include "pipeline/batch.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

/* What the end of a batch needs, gathered as its files finish: the report
 * is written a record at a time (to --json, and for a library caller to
 * memory), the summary's sums kept, never the files. */
enum { MAX_STAGE_ROWS = 64 };
typedef struct stage_row {
    char name[80];
    int count;
    double ms, bytes, peak;
} stage_row;

typedef struct device_share {
    int device, files;
    double mpix, ms;
} device_share;

struct job_stream {
    json_buf j;            /* the piece being written */
    FILE *sinks[2];
    int nsinks, began, failed;
    FILE *file;            /* --json FILE through a temporary (atomic) */
    jf_atomic_file af;
    FILE *memory;          /* the library caller's copy */
    char *memory_text;
    size_t memory_len;
    job_ref_means refs;
    device_share shares[JOB_MAX_DEVICES];
    int nshares;
    stage_row rows[MAX_STAGE_ROWS];
    int nrows;
};

void job_batch_log(jf_batch *b, int verbose_only, const char *message)
{
    const job_run *run = (const job_run *)b->user;
    if (job_quiet || (verbose_only && !run->s->verbose))
        return;
    job_log("%s", message);
}

/* How far the batch is, to the sink (path NULL: before the first file and
 * after the last). */
void job_batch_progress(const jf_batch *b, const char *path)
{
    jf_job_progress p;
    p.done = b->done;
    p.total = b->count;
    p.failed = b->failed;
    p.skipped = b->skipped;
    p.mpix = b->mpix_done;
    p.seconds = b->started_ms > 0 ? (jf_now_ms() - b->started_ms) / 1000.0 : 0.0;
    p.path = path;
    job_progress(&p, b->opt.single);
}

void job_batch_done(jf_batch *b, jf_batch_item *it)
{
    const job_settings *s = ((const job_run *)b->user)->s;
    if (it->skipped) {
        if (s->verbose && !job_quiet)
            job_log("skip %s (exists: %s)", it->input, it->output);
    } else if (it->status != JF_OK) {
        job_error("jetfilter: %s", it->message ? it->message : jf_status_str(it->status));
    } else if (s->verbose && !job_quiet) {
        char ref[160] = "";
        if (it->have_ref)
            snprintf(ref, sizeof ref, "  PSNR %.2f -> %.2f dB  SSIM %.4f -> %.4f", it->psnr_in,
                     it->psnr_out, it->ssim_in, it->ssim_out);
        job_log("ok   %s -> %s  %dx%dx%d  %.1f ms%s", it->input, it->output, it->width,
                it->height, it->channels, it->ms_total, ref);
        if (it->decision[0])
            job_log("     %s: %s (%s %.4f)", it->input, it->decision,
                    it->estimate_name ? it->estimate_name : "estimate", it->estimate);
        if (it->notes[0])
            job_log("     %s: %s", it->input, it->notes);
    }
    job_stream_file(b, it);
    job_batch_progress(b, it->rel);
}

static void json_stages(json_buf *j, const jf_batch_item *it)
{
    size_t k;
    json_open(j, "stages", '[');
    for (k = 0; k < it->stats_count; k++) {
        const jf_stat *st = &it->stats[k];
        json_open(j, NULL, '{');
        json_str(j, "name", st->name);
        json_str(j, "variant", st->variant);
        if (st->ksize > 0)
            json_int(j, "ksize", st->ksize);
        else
            json_str(j, "ksize", NULL); /* a stage without a kernel (decode, encode) */
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

static void json_item(json_buf *j, const jf_batch_item *it)
{
    json_open(j, NULL, '{');
    json_path(j, "path", it->rel);
    json_path(j, "input", it->input);
    json_path(j, "output", it->status == JF_OK ? it->output : NULL);
    json_str(j, "status", it->skipped ? "skipped" : it->status == JF_OK ? "ok" : "failed");
    if (it->status != JF_OK)
        json_str(j, "error", it->message);
    if (it->status == JF_OK && !it->skipped) {
        json_int(j, "width", it->width);
        json_int(j, "height", it->height);
        json_int(j, "channels", it->channels);
        if (it->device >= 0)
            json_int(j, "device", it->device);
        if (it->notes[0])
            json_str(j, "notes", it->notes);
        if (it->decision[0])
            json_str(j, "decision", it->decision);
        if (it->estimate_name)
            json_num(j, it->estimate_name, it->estimate);
        json_open(j, "ms", '{');
        json_num(j, "read", it->ms_read);
        json_num(j, "wait", it->ms_wait);
        json_num(j, "decode", it->ms_decode);
        json_num(j, "filter", it->ms_filter);
        json_num(j, "metrics", it->ms_metrics);
        json_num(j, "encode", it->ms_encode);
        json_num(j, "total", it->ms_total);
        json_close(j, '}');
        if (it->have_ref) {
            json_db(j, "psnr_in_db", it->psnr_in);
            json_db(j, "psnr_out_db", it->psnr_out);
            json_num(j, "ssim_in", it->ssim_in);
            json_num(j, "ssim_out", it->ssim_out);
        }
        json_stages(j, it);
    }
    json_close(j, '}');
}

void job_stage_header(const char *per)
{
    job_log("%-22s %6s %11s %10s %9s %8s", "stage", "calls", "total ms", per, "GB/s", "% peak");
}

void job_stage_row(const char *name, unsigned long long calls, double ms, double per_ms,
                   double bytes, double peak_gbps)
{
    char gbps[16] = "-", pct[16] = "-";
    if (bytes > 0 && ms > 0) {
        double g = bytes / (ms * 1e6);
        snprintf(gbps, sizeof gbps, "%.2f", g);
        if (peak_gbps > 0)
            snprintf(pct, sizeof pct, "%.2f%%", 100.0 * g / peak_gbps);
    }
    job_log("%-22s %6llu %11.2f %10.3f %9s %8s", name, calls, ms, per_ms, gbps, pct);
}

/* A file's stage records into the --stats table's rows, by stage name. */
static void add_stages(job_stream *st, const jf_batch *b, const jf_batch_item *it)
{
    const int per_device = b->opt.device_count > 1 && b->backend == JF_BACKEND_CUDA;
    size_t k;
    int r;
    for (k = 0; k < it->stats_count; k++) {
        const jf_stat *sk = &it->stats[k];
        char name[80], dev[16] = "";
        if (per_device && it->device >= 0) /* several GPUs: a row each */
            snprintf(dev, sizeof dev, "gpu%d ", it->device);
        snprintf(name, sizeof name, "%s%s%s%s", dev, sk->name, sk->variant[0] ? "/" : "",
                 sk->variant);
        for (r = 0; r < st->nrows && strcmp(st->rows[r].name, name) != 0; r++)
            ;
        if (r == st->nrows) {
            if (st->nrows == MAX_STAGE_ROWS)
                continue;
            memset(&st->rows[r], 0, sizeof st->rows[r]);
            snprintf(st->rows[r].name, sizeof st->rows[r].name, "%s", name);
            st->rows[r].peak = sk->peak_gbps;
            st->nrows++;
        }
        st->rows[r].count++;
        st->rows[r].ms += sk->ms;
        st->rows[r].bytes += (double)(sk->bytes_read + sk->bytes_written);
    }
}

static void print_stats(const job_stream *st)
{
    int r;
    job_stage_header("mean ms");
    for (r = 0; r < st->nrows; r++)
        job_stage_row(st->rows[r].name, (unsigned long long)st->rows[r].count, st->rows[r].ms,
                      st->rows[r].ms / st->rows[r].count, st->rows[r].bytes, st->rows[r].peak);
}

/* Files, megapixels and busy time of each device a multi-GPU run used. */
static void add_share(job_stream *st, const jf_batch *b, const jf_batch_item *it)
{
    int d;
    if (b->opt.device_count < 2 || b->backend != JF_BACKEND_CUDA || it->skipped ||
        it->status != JF_OK || it->device < 0)
        return;
    for (d = 0; d < st->nshares && st->shares[d].device != it->device; d++)
        ;
    if (d == st->nshares) {
        if (d == JOB_MAX_DEVICES)
            return;
        memset(&st->shares[d], 0, sizeof st->shares[d]);
        st->shares[st->nshares++].device = it->device;
    }
    st->shares[d].files++;
    st->shares[d].mpix += (double)it->width * it->height / 1e6;
    st->shares[d].ms += it->ms_total;
}

static void print_device_shares(const job_stream *st)
{
    int d, files = 0;
    for (d = 0; d < st->nshares; d++)
        files += st->shares[d].files;
    for (d = 0; d < st->nshares; d++)
        job_log("  device %d: %d files (%.1f%%), %.1f MPix, %.2f s of job time",
                st->shares[d].device, st->shares[d].files,
                100.0 * st->shares[d].files / (files ? files : 1), st->shares[d].mpix,
                st->shares[d].ms / 1000.0);
}

void job_ref_means_add(job_ref_means *m, double pin, double pout, double sin, double sout)
{
    m->refs++;
    if (isinf(pin)) m->pin_inf = 1; else m->pin += pin;
    if (isinf(pout)) m->pout_inf = 1; else m->pout += pout;
    m->sin += sin;
    m->sout += sout;
}

void job_ref_means_log(const job_ref_means *m)
{
    char pi[32], po[32];
    if (!m->refs)
        return;
    snprintf(pi, sizeof pi, m->pin_inf ? "inf" : "%.2f", m->pin / m->refs);
    snprintf(po, sizeof po, m->pout_inf ? "inf" : "%.2f", m->pout / m->refs);
    job_log("  against the references (mean of %d): PSNR %s -> %s dB, SSIM %.4f -> %.4f", m->refs,
            pi, po, m->sin / m->refs, m->sout / m->refs);
}

void job_ref_means_json(json_buf *j, const job_ref_means *m)
{
    if (!m->refs)
        return;
    json_db(j, "mean_psnr_in_db", m->pin_inf ? INFINITY : m->pin / m->refs);
    json_db(j, "mean_psnr_out_db", m->pout_inf ? INFINITY : m->pout / m->refs);
    json_num(j, "mean_ssim_in", m->sin / m->refs);
    json_num(j, "mean_ssim_out", m->sout / m->refs);
}

/* What decides the outputs, so that reports of shards can be checked to
 * belong to one run before they are merged (jobs, threads and devices do
 * not change an output, so they are not here). */
void job_json_operation(json_buf *j, const jf_op_plan *plan)
{
    int i;
    json_str(j, "operation", plan->op->name);
    /* resolved values, typed: equal settings compare equal however spelled */
    json_open(j, "parameters", '{');
    for (i = 0; i < plan->op->param_count; i++) {
        const jf_param_def *p = &plan->op->params[i];
        char v[512];
        if (p->id == JF_P_WEIGHTS)
            continue;
        jf_op_plan_value(plan, p, v, sizeof v);
        if (!v[0])
            json_str(j, p->info.name, NULL);
        else if (p->info.type == JF_PARAM_INT || p->info.type == JF_PARAM_DOUBLE)
            json_num(j, p->info.name, strtod(v, NULL));
        else
            json_str(j, p->info.name, v);
    }
    json_close(j, '}');
}

static void json_settings(json_buf *j, const job_run *run)
{
    static const char *const formats[] = {"same", "png", "jpg", "tif", "webp", "pfm"};
    const job_settings *s = run->s;
    json_open(j, "settings", '{');
    json_str(j, "command", run->verb);
    if (run->plan.op)
        job_json_operation(j, &run->plan);
    json_str(j, "format", formats[s->format]);
    json_int(j, "quality", s->quality);
    json_int(j, "png_level", s->png_level);
    json_str(j, "png_filter", jf_png_filter_names[s->png_filter + 1]);
    json_path(j, "suffix", s->suffix);
    json_bool(j, "reference", s->reference != NULL);
    json_bool(j, "trust_input", s->trust_input);
    json_close(j, '}');
}

/* This process's share of the inputs, and the whole walk it came from. */
static void json_shard(json_buf *j, const jf_batch *b)
{
    const int count = b->opt.shard.count > 1 ? b->opt.shard.count : 1;
    char digest[24];
    int i;
    json_open(j, "shard", '{');
    json_int(j, "index", count > 1 ? b->opt.shard.index : 0);
    json_int(j, "count", count);
    json_str(j, "source", count > 1 ? b->opt.shard.source : NULL);
    json_int(j, "files_in_inputs", b->walk_files);
    json_open(j, "files_per_shard", '[');
    for (i = 0; i < count; i++)
        json_int(j, NULL, b->shard_files ? b->shard_files[i] : b->walk_files);
    json_close(j, ']');
    snprintf(digest, sizeof digest, "%016llx", (unsigned long long)b->walk_digest);
    json_str(j, "inputs_digest", digest);
    json_close(j, '}');
}

/* The piece written so far to every sink (the JSON state stays). */
static void flush_piece(job_stream *st)
{
    int i;
    if (st->j.fail)
        st->failed = 1;
    for (i = 0; i < st->nsinks && !st->failed; i++)
        if (st->j.len && fwrite(st->j.data, 1, st->j.len, st->sinks[i]) != st->j.len)
            st->failed = 1;
    st->j.len = 0;
}

static job_stream *stream_of(const jf_batch *b)
{
    job_run *run = (job_run *)b->user;
    if (!run->stream)
        run->stream = (job_stream *)calloc(1, sizeof *run->stream);
    return run->stream;
}

/* The report's head, up to its "files": where it goes opened first (a
 * report that cannot be written is said before any file is done). */
void job_batch_start(jf_batch *b)
{
    const job_run *run = (const job_run *)b->user;
    job_stream *st = stream_of(b);
    json_buf *j;
    if (!st || st->began)
        return;
    st->began = 1;
    j = &st->j;
    if (run->s->json && strcmp(run->s->json, "-") == 0) {
        st->sinks[st->nsinks++] = stdout;
    } else if (run->s->json) {
        if (jf_atomic_open(run->s->json, &st->af) != JF_OK || !(st->file = fdopen(st->af.fd, "w"))) {
            job_error("jetfilter: %s", jf_last_error());
            jf_atomic_abort(&st->af);
            st->failed = 1;
        } else {
            st->sinks[st->nsinks++] = st->file;
        }
    }
    if (run->job && (st->memory = open_memstream(&st->memory_text, &st->memory_len)) != NULL)
        st->sinks[st->nsinks++] = st->memory;
    json_report_open(j, run->verb);
    json_str(j, "backend", jf_backend_name(b->backend));
    if (b->backend_note[0]) /* why auto chose the CPU */
        json_str(j, "backend_note", b->backend_note);
    if (run->plan.op)
        json_str(j, "operation", run->plan.describe);
    json_settings(j, run);
    if (run->codec_chosen) { /* --codec auto's decision and what it rested on */
        const jf_codec_choice *c = &run->codec_choice;
        json_open(j, "codecs", '{');
        json_str(j, "chosen", c->gpu ? "gpu" : "cpu");
        json_num(j, "predicted_cpu_s", c->cpu_s);
        json_num(j, "predicted_gpu_s", c->gpu_s);
        json_str(j, "reason", c->reason);
        json_close(j, '}');
    }
    json_shard(j, b);
    json_open(j, "files", '[');
    flush_piece(st);
}

/* A finished file: its record written, its figures summed. */
void job_stream_file(jf_batch *b, const jf_batch_item *it)
{
    job_run *run = (job_run *)b->user;
    job_stream *st = stream_of(b);
    if (!st)
        return;
    if (!st->began)
        job_batch_start(b);
    if (it->status == JF_OK && !it->skipped && it->have_ref)
        job_ref_means_add(&st->refs, it->psnr_in, it->psnr_out, it->ssim_in, it->ssim_out);
    add_share(st, b, it);
    if (run->s->stats)
        add_stages(st, b, it);
    if (run->job)
        job_keep_file(run->job, it);
    if (st->nsinks) {
        json_item(&st->j, it);
        flush_piece(st);
    }
}

/* The report's tail (the summary), and the report in place. */
static int finish_report(const jf_batch *b, const job_run *run, job_stream *st, double secs)
{
    const int ok = b->done - b->failed - b->skipped;
    json_buf *j = &st->j;
    int i, rc = 0;
    json_close(j, ']');
    json_open(j, "summary", '{');
    json_int(j, "files", b->done);
    json_int(j, "ok", ok);
    json_int(j, "failed", b->failed);
    json_int(j, "skipped", b->skipped);
    json_int(j, "ignored", b->ignored);
    json_int(j, "earlier_outputs", b->earlier_outputs);
    json_int(j, "passed_over", b->passed);
    json_num(j, "seconds", secs);
    json_num(j, "mpix", b->mpix_done);
    json_num(j, "mpix_per_s", secs > 0 ? b->mpix_done / secs : 0.0);
    {
        struct rusage ru; /* the whole process so far: every job, the codecs, the report */
        if (getrusage(RUSAGE_SELF, &ru) == 0)
            json_num(j, "peak_rss_mb", (double)ru.ru_maxrss / 1024.0);
    }
    if (st->nshares) {
        json_open(j, "devices", '[');
        for (i = 0; i < st->nshares; i++) {
            json_open(j, NULL, '{');
            json_int(j, "device", st->shares[i].device);
            json_int(j, "files", st->shares[i].files);
            json_num(j, "mpix", st->shares[i].mpix);
            json_num(j, "busy_s", st->shares[i].ms / 1000.0);
            json_close(j, '}');
        }
        json_close(j, ']');
    }
    job_ref_means_json(j, &st->refs);
    json_close(j, '}');
    json_close(j, '}');
    json_raw(j, "\n");
    flush_piece(st);
    if (st->file) {
        if (fflush(st->file) != 0)
            st->failed = 1;
        if (!st->failed && ((st->af.fd = dup(fileno(st->file))) < 0 ||
                            jf_atomic_commit(&st->af) != JF_OK))
            st->failed = 1;
        if (st->failed && st->af.slot >= 0) {
            st->af.fd = -1; /* the FILE owns it */
            jf_atomic_abort(&st->af);
        }
        fclose(st->file);
        st->file = NULL;
    } else if (run->s->json && fflush(stdout) != 0) {
        st->failed = 1;
    }
    if (st->memory) {
        fclose(st->memory);
        st->memory = NULL;
        if (run->job && !st->failed) {
            job_keep_report(run->job, st->memory_text);
            st->memory_text = NULL; /* the job's now */
        }
    }
    if (st->failed && run->s->json) {
        job_error("jetfilter: --json %s: the report could not be written (%s)", run->s->json,
                  errno ? strerror(errno) : "out of memory");
        rc = 1;
    }
    return rc;
}

void job_stream_end(job_run *run)
{
    job_stream *st = run->stream;
    if (!st)
        return;
    if (st->file) { /* never finished: nothing half-written is left */
        fclose(st->file);
        st->af.fd = -1;
        jf_atomic_abort(&st->af);
    }
    if (st->memory)
        fclose(st->memory);
    free(st->memory_text);
    free(st->j.data);
    free(st);
    run->stream = NULL;
}

int job_batch_finish(jf_batch *b)
{
    job_run *run = (job_run *)b->user;
    const job_settings *s = run->s;
    double secs = (jf_now_ms() - b->started_ms) / 1000.0;
    int ok = b->done - b->failed - b->skipped;
    job_stream *st = stream_of(b);

    job_batch_progress(b, NULL);
    /* one file to one file, as convert does: quiet unless asked (-v, --stats) */
    if (!job_quiet && (!b->opt.single || s->verbose || s->stats)) {
        job_log("jetfilter %s: %d ok, %d failed, %d skipped in %.2f s (%.1f MPix/s, backend %s)",
                run->verb, ok, b->failed, b->skipped, secs, secs > 0 ? b->mpix_done / secs : 0.0,
                jf_backend_name(b->backend));
        if (b->ignored)
            job_log("  %d file%s in the folders passed over: not images", b->ignored,
                    b->ignored == 1 ? "" : "s");
        if (b->earlier_outputs)
            job_log("  %d file%s passed over: named as outputs (--suffix %s)", b->earlier_outputs,
                    b->earlier_outputs == 1 ? "" : "s", s->suffix);
        if (b->passed)
            job_log("  %d link%s back into the tree not followed: %s files are read the other way "
                    "(-v names them)", b->passed, b->passed == 1 ? "" : "s",
                    b->passed == 1 ? "its" : "their");
        if (st) {
            job_ref_means_log(&st->refs);
            print_device_shares(st);
            if (s->stats)
                print_stats(st);
        }
    }
    if (!st) {
        job_error("jetfilter: out of memory for the summary");
        return JF_EXIT_FAILED;
    }
    if (s->json || run->job) {
        if (!st->began)
            job_batch_start(b); /* no file ran: an empty shard */
        if (finish_report(b, run, st, secs))
            return JF_EXIT_FAILED;
    }
    return b->failed ? JF_EXIT_FAILED : JF_EXIT_OK;
}

/* ---- --json targets ---------------------------------------------------------- */

int job_json_write(const char *path, const char *text, size_t len)
{
    if (strcmp(path, "-") == 0) {
        return fwrite(text, 1, len, stdout) == len && fflush(stdout) == 0;
    }
    return jf_write_file_atomic(path, (const unsigned char *)text, len) == JF_OK;
}
