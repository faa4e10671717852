/*
 * jetfilter stream: filter a video stream frame by frame between pipes.
 * The threads and the frame ring are pipeline/stream.c; here: the command
 * line, the files, the live line, the summary, --stats and --json.
 */
#define _GNU_SOURCE /* F_SETPIPE_SZ */
#include "cli/cli.h"
#include "core/parse.h"
#include "jobs/json.h"
#include "core/names.h"
#include "core/util.h"
#include "io/io.h"
#include "pipeline/batch.h"
#include "pipeline/stream.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef struct stream_cli {
    job_settings *s;
    /* --json, written as the frames come, so memory does not grow with them:
     * standard output, or a file that appears complete at the end */
    FILE *json;
    jf_atomic_file json_file;
    int json_atomic, json_failed;
    int live;            /* the live line is shown (a terminal, not quiet) */
    double t0, t_shown;
    long long frames;
    job_ref_means means; /* over the frames, against the reference: luma PSNR */
    double psnr_all;     /* all planes' PSNR, summed */
    int psnr_all_inf;
    long long ssim_frames; /* frames SSIM was computed for (not under 11 x 11) */
    double ssim_sum;
} stream_cli;

/* One piece of the report, as it is made. */
static void json_emit(stream_cli *c, json_buf *j)
{
    if (j->fail || (j->len && fwrite(j->data, 1, j->len, c->json) != j->len))
        c->json_failed = 1;
    free(j->data);
    memset(j, 0, sizeof *j);
}

static void on_frame(void *user, const jf_stream_frame *f)
{
    stream_cli *c = (stream_cli *)user;
    double now = jf_now_ms();
    c->frames = f->index + 1;
    if (f->have_ref) {
        /* "in" stays 0: a stream has no input-against-reference figure */
        job_ref_means_add(&c->means, 0, f->psnr_y, 0, 0);
        if (isinf(f->psnr))
            c->psnr_all_inf = 1;
        else
            c->psnr_all += f->psnr;
        if (!isnan(f->ssim_y)) {
            c->ssim_frames++;
            c->ssim_sum += f->ssim_y;
        }
    }
    if (c->json) {
        json_buf j = {0};
        json_raw(&j, f->index ? ",\n" : "\n");
        json_open(&j, NULL, '{');
        json_int(&j, "frame", f->index);
        json_num(&j, "latency_ms", f->latency_ms);
        json_num(&j, "filter_ms", f->filter_ms);
        if (f->have_ref) {
            json_db(&j, "psnr_y_db", f->psnr_y);
            json_db(&j, "psnr_db", f->psnr);
            json_num(&j, "ssim_y", f->ssim_y); /* null: not computed (under 11 x 11) */
        }
        json_close(&j, '}');
        json_emit(c, &j);
    }
    if (c->live && now - c->t_shown > 250) {
        double secs = (now - c->t0) / 1000.0;
        fprintf(stderr, "\r\033[K%lld frames  %.1f fps", c->frames, secs > 0 ? c->frames / secs : 0.0);
        fflush(stderr);
        c->t_shown = now;
    }
}

/* The output: standard output, or a file that appears under its name only
 * when the stream is complete (a temporary beside it until then). */
typedef struct out_file {
    int fd;
    jf_atomic_file atomic;
    int is_atomic;
} out_file;

static int open_output(const char *path, out_file *o)
{
    struct stat sb;
    memset(o, 0, sizeof *o);
    if (strcmp(path, "-") == 0) {
        o->fd = STDOUT_FILENO;
        return 0;
    }
    /* a FIFO or a device is written as it is (nothing to rename) */
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
        o->fd = open(path, O_WRONLY | O_CLOEXEC);
        if (o->fd < 0) {
            job_log("jetfilter stream: %s: cannot open: %s", path, strerror(errno));
            return -1;
        }
        return 0;
    }
    {   /* what a killed run left in this folder goes first, as denoise does */
        char dir[4096];
        const char *slash = strrchr(path, '/');
        int removed;
        snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
        if (!dir[0])
            snprintf(dir, sizeof dir, "/");
        if ((removed = jf_remove_stale_temporaries(dir, (long long)time(NULL))) > 0 && !job_quiet)
            job_log("jetfilter: removed %d temporary file%s that an interrupted run left behind",
                    removed, removed == 1 ? "" : "s");
    }
    if (jf_atomic_open(path, &o->atomic) != JF_OK) {
        job_error("jetfilter stream: %s", jf_last_error());
        return -1;
    }
    o->fd = o->atomic.fd;
    o->is_atomic = 1;
    return 0;
}

static jf_status close_output(out_file *o, int ok)
{
    if (o->is_atomic)
        return ok ? jf_atomic_commit(&o->atomic) : (jf_atomic_abort(&o->atomic), JF_OK);
    if (o->fd != STDOUT_FILENO && o->fd >= 0)
        close(o->fd);
    return JF_OK;
}

/* A pipe's buffer is 64 KiB by default: a 1080p frame is 3 MB, so the
 * reader and the writer would each wake up 48 times a frame.  1 MiB (the
 * most an unprivileged process may ask for, by default) where the kernel
 * allows it. */
static void widen_pipe(int fd)
{
#ifdef F_SETPIPE_SZ
    struct stat sb;
    if (fstat(fd, &sb) == 0 && S_ISFIFO(sb.st_mode))
        (void)fcntl(fd, F_SETPIPE_SZ, 1 << 20);
#else
    (void)fd;
#endif
}

static int open_input(const char *path, const char *what)
{
    int fd;
    if (strcmp(path, "-") == 0)
        return STDIN_FILENO;
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        job_log("jetfilter stream: %s%s: cannot open: %s", what, path, strerror(errno));
    return fd;
}

static jf_status open_reader(const job_settings *s, int fd, const char *name, int w, int h,
                             jf_video_reader **r)
{
    if (s->raw)
        return jf_video_open_raw(fd, name, w, h, s->pix_fmt, r);
    return jf_video_open_y4m(fd, name, r);
}

/* The stage table of --stats, from the context's running totals. */
static void print_stages(const jf_context *ctx, long long frames)
{
    jf_stat_total t[64];
    size_t n = jf_stats_totals(ctx, t, 64), i;
    job_stage_header("ms/frame");
    for (i = 0; i < n; i++) {
        char name[48];
        snprintf(name, sizeof name, "%s%s%s", t[i].name, t[i].variant[0] ? "/" : "", t[i].variant);
        job_stage_row(name, (unsigned long long)t[i].calls, t[i].ms,
                      frames ? t[i].ms / (double)frames : 0.0,
                      (double)(t[i].bytes_read + t[i].bytes_written), t[i].peak_gbps);
    }
}

/* Bytes the filters moved and their time: effective bandwidth. */
static void filter_bandwidth(const jf_context *ctx, double *gbps, double *peak)
{
    jf_stat_total t[64];
    size_t n = jf_stats_totals(ctx, t, 64), i;
    double bytes = 0, ms = 0;
    *peak = 0;
    for (i = 0; i < n; i++) {
        bytes += (double)(t[i].bytes_read + t[i].bytes_written);
        ms += t[i].ms;
        if (t[i].peak_gbps > *peak)
            *peak = t[i].peak_gbps;
    }
    *gbps = ms > 0 ? bytes / (ms * 1e6) : 0;
}

/* Means over the frames measured against the reference; SSIM NAN where no
 * frame was large enough for its 11 x 11 window. */
static void ref_means(const stream_cli *c, double *psnr_y, double *psnr, double *ssim_y)
{
    const job_ref_means *m = &c->means;
    *psnr_y = m->pout_inf ? INFINITY : m->pout / m->refs;
    *psnr = c->psnr_all_inf ? INFINITY : c->psnr_all / m->refs;
    *ssim_y = c->ssim_frames ? c->ssim_sum / (double)c->ssim_frames : NAN;
}

static void json_summary(json_buf *j, const job_settings *s, const job_run *run,
                         const jf_video_format *f, const jf_stream_result *r, jf_context *ctx,
                         const stream_cli *c)
{
    double gbps, peak;
    filter_bandwidth(ctx, &gbps, &peak);
    json_open(j, "settings", '{');
    json_str(j, "command", "stream");
    job_json_operation(j, &run->plan);
    json_str(j, "planes", s->planes ? "luma" : "all");
    json_str(j, "frame_memory", r->memory);
    json_close(j, '}');
    json_open(j, "format", '{');
    json_int(j, "width", f->width);
    json_int(j, "height", f->height);
    json_str(j, "layout", f->layout);
    json_bool(j, "raw", f->raw);
    if (f->fps_num > 0 && f->fps_den > 0)
        json_num(j, "fps", (double)f->fps_num / f->fps_den);
    json_close(j, '}');
    json_open(j, "summary", '{');
    json_int(j, "frames", r->frames);
    json_num(j, "seconds", r->seconds);
    json_num(j, "fps", r->seconds > 0 ? r->frames / r->seconds : 0);
    json_num(j, "latency_p50_ms", r->latency_p50);
    json_num(j, "latency_p99_ms", r->latency_p99);
    json_num(j, "latency_max_ms", r->latency_max);
    json_num(j, "filter_ms_per_frame", r->frames ? r->filter_ms / r->frames : 0);
    json_num(j, "read_ms_per_frame", r->frames ? r->read_ms / r->frames : 0);
    json_num(j, "write_ms_per_frame", r->frames ? r->write_ms / r->frames : 0);
    json_num(j, "filter_gbps", gbps);
    if (peak > 0)
        json_num(j, "peak_gbps", peak);
    if (c->means.refs) {
        double py, pa, sy;
        ref_means(c, &py, &pa, &sy);
        json_int(j, "frames_measured", c->means.refs);
        json_db(j, "mean_psnr_y_db", py);
        json_db(j, "mean_psnr_db", pa);
        json_num(j, "mean_ssim_y", sy); /* null: not computed */
        json_int(j, "frames_ssim", c->ssim_frames);
    }
    json_str(j, "status", r->status == JF_OK ? "ok" : "failed");
    if (r->status != JF_OK)
        json_str(j, "error", r->message);
    json_close(j, '}');
}

int cli_stream(job_settings *s)
{
    job_run run;
    stream_cli c;
    jf_context_options co;
    jf_context *ctx = NULL;
    jf_video_reader *in = NULL, *ref = NULL;
    jf_video_writer *out = NULL;
    jf_stream_options so;
    jf_stream_result r;
    out_file of;
    int rc, w = 0, h = 0, in_fd = -1, ref_fd = -1, have_out = 0;
    jf_status st;

    memset(&run, 0, sizeof run);
    memset(&c, 0, sizeof c);
    memset(&r, 0, sizeof r);
    run.s = s;
    run.verb = "stream";
    if (s->input_count > 0) {
        job_error("jetfilter stream: unexpected argument '%s' (the input is -i FILE)", s->inputs[0]);
        return JF_EXIT_USAGE;
    }
    if ((s->raw != NULL) != (s->pix_fmt != NULL)) {
        job_error("jetfilter stream: --raw WxH and --pix-fmt go together");
        return JF_EXIT_USAGE;
    }
    if (s->raw && jf_parse_wxh(s->raw, 1 << 20, &w, &h)) {
        job_error("jetfilter stream: --raw %s: want WxH, such as 1920x1080", s->raw);
        return JF_EXIT_USAGE;
    }
    {
        const char *inputs[2] = {s->input, s->reference};
        job_outputs o = {"stream", inputs, 2,
                         {{"-o", s->output, JOB_OUT_STREAM}, {"--json", s->json, JOB_OUT_REPORT}},
                         2, s->force};
        if (job_outputs_check(&o) != 0)
            return JF_EXIT_USAGE;
    }
    if (strcmp(s->input, "-") == 0 && isatty(STDIN_FILENO)) {
        job_error("jetfilter stream: standard input is a terminal: pipe a stream in "
                "(e.g. ffmpeg ... -f yuv4mpegpipe - | jetfilter stream), or give -i FILE");
        return JF_EXIT_USAGE;
    }
    if (s->output && strcmp(s->output, "-") == 0 && isatty(STDOUT_FILENO)) {
        job_error("jetfilter stream: standard output is a terminal: pipe the stream on, or "
                "give -o FILE");
        return JF_EXIT_USAGE;
    }
    if (s->reference && strcmp(s->reference, "-") == 0 && strcmp(s->input, "-") == 0) {
        job_error("jetfilter stream: the input and the reference cannot both be standard input");
        return JF_EXIT_USAGE;
    }
    if ((rc = job_plan_filter("stream", s, &run)) != 0)
        goto out;
    co = job_context_options(s);
    co.stats = 64;
    rc = JF_EXIT_FAILED;
    if (jf_context_create(&co, &ctx) != JF_OK) {
        job_error("jetfilter stream: %s", jf_last_error());
        goto out;
    }
    /* a consumer that quits is an error of write(), not a signal */
    signal(SIGPIPE, SIG_IGN);
    if ((in_fd = open_input(s->input, "")) < 0)
        goto out;
    widen_pipe(in_fd);
    if ((st = open_reader(s, in_fd, s->input, w, h, &in)) != JF_OK) {
        job_error("jetfilter stream: %s", jf_last_error());
        goto out;
    }
    if (s->reference) {
        const jf_video_format *a = jf_video_reader_format(in), *b;
        if ((ref_fd = open_input(s->reference, "reference ")) < 0)
            goto out;
        if ((st = open_reader(s, ref_fd, s->reference, w, h, &ref)) != JF_OK) {
            job_log("jetfilter stream: reference %s", jf_last_error());
            goto out;
        }
        b = jf_video_reader_format(ref);
        if (a->width != b->width || a->height != b->height || a->planes != b->planes ||
            a->frame_bytes != b->frame_bytes) {
            job_log("jetfilter stream: reference %s is %dx%d %s, the input %dx%d %s", s->reference,
                    b->width, b->height, b->layout, a->width, a->height, a->layout);
            goto out;
        }
    }
    {   /* the frames in flight within the memory budget, before any is allocated */
        const jf_video_format *f = jf_video_reader_format(in);
        const uint64_t need = jf_stream_memory(f, s->planes ? 1u : 0xFu, ref != NULL,
                                               run.plan.ksize > 1 ? run.plan.ksize : 1);
        const uint64_t budget = s->max_memory_mb > 0 ? (uint64_t)(s->max_memory_mb * 1048576.0)
                                                     : jf_batch_default_memory();
        if (need > budget) {
            job_log("jetfilter stream: %s: %s: frames of %dx%d %s need about %llu MB with %d in "
                    "flight and the filter's working copy, over the memory budget of %llu MB "
                    "(--max-memory)", strcmp(s->input, "-") ? s->input : "standard input",
                    f->raw ? f->layout : jf_video_reader_header(in), f->width, f->height, f->layout,
                    (unsigned long long)(need >> 20), JF_STREAM_SLOTS,
                    (unsigned long long)(budget >> 20));
            goto out;
        }
    }
    if (open_output(s->output, &of) != 0)
        goto out;
    have_out = 1;
    widen_pipe(of.fd);
    if ((st = jf_video_writer_open(of.fd, s->output, jf_video_reader_format(in),
                                   jf_video_reader_header(in), &out)) != JF_OK) {
        job_error("jetfilter stream: %s", jf_last_error());
        goto out;
    }
    if (s->json) {
        json_buf j = {0};
        if (strcmp(s->json, "-") == 0) {
            c.json = stdout;
        } else if (jf_atomic_open(s->json, &c.json_file) != JF_OK ||
                   !(c.json = fdopen(c.json_file.fd, "w"))) {
            job_error("jetfilter stream: %s", jf_last_error());
            jf_atomic_abort(&c.json_file);
            goto out;
        } else {
            c.json_atomic = 1;
        }
        json_report_open(&j, "stream");
        json_str(&j, "backend", jf_backend_name(jf_context_backend(ctx)));
        json_str(&j, "operation", run.plan.describe);
        json_path(&j, "input", s->input);
        json_path(&j, "output", s->output);
        json_open(&j, "frames", '[');
        json_emit(&c, &j);
    }
    c.s = s;
    c.live = !s->quiet && isatty(STDERR_FILENO);
    c.t0 = jf_now_ms();
    memset(&so, 0, sizeof so);
    so.ctx = ctx;
    so.plan = &run.plan;
    so.plane_mask = s->planes ? 1u : 0xFu;
    so.in = in;
    so.ref = ref;
    so.out = out;
    so.on_frame = on_frame;
    so.user = &c;
    jf_stream_run(&so, &r);
    if (c.live)
        fputs("\r\033[K", stderr);
    if (r.status != JF_OK)
        job_error("jetfilter stream: %s", r.message);
    if (close_output(&of, r.status == JF_OK) != JF_OK) {
        job_error("jetfilter stream: %s", jf_last_error());
        r.status = JF_ERR_IO;
    }
    have_out = 0;
    if (!s->quiet) {
        const jf_video_format *f = jf_video_reader_format(in);
        double gbps, peak;
        filter_bandwidth(ctx, &gbps, &peak);
        job_log("stream: %lld frames of %dx%d %s in %.2f s (%.1f fps), %s on %s",
                r.frames, f->width, f->height, f->layout, r.seconds,
                r.seconds > 0 ? r.frames / r.seconds : 0.0, run.plan.describe,
                jf_backend_name(jf_context_backend(ctx)));
        if (r.frames)
            job_log("  latency read to write: p50 %.2f ms, p99 %.2f ms, max %.2f ms; filter %.3f ms "
                    "per frame, %.2f GB/s%s", r.latency_p50, r.latency_p99, r.latency_max,
                    r.filter_ms / r.frames, gbps, peak > 0 ? "" : " (CPU)");
        if (r.frames && peak > 0)
            job_log("  %.1f%% of the device's theoretical %.1f GB/s", 100.0 * gbps / peak, peak);
        if (r.frames)
            job_log("  per frame: reading %.3f ms, filter %.3f ms, writing %.3f ms (each stage its own "
                    "thread: the largest bounds the rate)", r.read_ms / r.frames, r.filter_ms / r.frames,
                    r.write_ms / r.frames);
        if (c.means.refs) {
            double py, pa, sy;
            ref_means(&c, &py, &pa, &sy);
            if (isnan(sy))
                job_log("  against the reference (mean of %d frames): PSNR %.2f dB luma, %.2f dB all "
                        "planes; SSIM not computed (frames under 11 x 11, its window)",
                        c.means.refs, py, pa);
            else
                job_log("  against the reference (mean of %d frames): PSNR %.2f dB luma, %.2f dB all "
                        "planes; SSIM %.4f luma", c.means.refs, py, pa, sy);
        }
        if (s->stats)
            print_stages(ctx, r.frames);
    }
    if (c.json) {
        json_buf j = {0};
        json_raw(&j, "\n");
        json_close(&j, ']');
        json_summary(&j, s, &run, jf_video_reader_format(in), &r, ctx, &c);
        json_close(&j, '}');
        json_raw(&j, "\n");
        json_emit(&c, &j);
        if (fflush(c.json) != 0 || c.json_failed ||
            (c.json_atomic && ((c.json_file.fd = dup(fileno(c.json))) < 0 ||
                               jf_atomic_commit(&c.json_file) != JF_OK))) {
            job_log("jetfilter stream: %s: the report could not be written", s->json);
            r.status = r.status == JF_OK ? JF_ERR_IO : r.status;
        }
    }
    rc = r.status == JF_OK ? JF_EXIT_OK : JF_EXIT_FAILED;
out:
    if (have_out)
        close_output(&of, 0);
    if (c.json_atomic) { /* committed above, or its temporary removed (the FILE owns the fd) */
        if (c.json_file.slot >= 0) {
            c.json_file.fd = -1;
            jf_atomic_abort(&c.json_file);
        }
        fclose(c.json);
    }
    jf_video_writer_close(out);
    jf_video_reader_close(in);
    jf_video_reader_close(ref);
    if (in_fd > STDIN_FILENO)
        close(in_fd);
    if (ref_fd > STDIN_FILENO)
        close(ref_fd);
    jf_context_destroy(ctx);
    jf_op_plan_free(&run.plan);
    return rc;
}
