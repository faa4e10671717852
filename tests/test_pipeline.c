/*
 * The batch scheduler (pipeline/) and the directory walk (io/) on their own:
 * jobs whose context cannot be made leave their files to the others (never
 * counting them done), outputs mirror the inputs, and odd folder entries
 * are reported instead of skipped in silence.
 */
#define _DEFAULT_SOURCE
#include "common.h"
#include "core/errors.h"
#include "core/stats.h"
#include "io/io.h"
#include "pipeline/batch.h"
#include "pipeline/codec_choice.h"
#include "pipeline/latency.h"
#include "pipeline/stream.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int g_made, g_allow;

/* A folder named "closed" cannot be opened, as one without read permission
 * cannot for anyone but root (the tests may run as root). */
DIR *__real_opendir(const char *name);
DIR *__wrap_opendir(const char *name);
DIR *__wrap_opendir(const char *name)
{
    const char *base = strrchr(name, '/');
    if (base && strcmp(base + 1, "closed") == 0) {
        errno = EACCES;
        return NULL;
    }
    return __real_opendir(name);
}

/* Makes the first `g_allow` contexts, then fails, as a device that runs out
 * of memory for more contexts would. */
static jf_status flaky_context(const jf_context_options *opt, jf_context **out)
{
    if (g_made++ >= g_allow) {
        *out = NULL;
        return JF_ERR_CUDA; /* the detail stays what it was */
    }
    return jf_context_create(opt, out);
}

static jf_status count_work(jf_batch *b, jf_batch_item *it, jf_context *ctx)
{
    (void)b;
    (void)ctx;
    it->width = it->height = 1;
    return JF_OK;
}

/* What on_done saw: items are freed after it. */
static int g_processed, g_read_timed;
static jf_status g_last_status;
static char g_last_message[512];

static void remember(jf_batch *b, jf_batch_item *it)
{
    (void)b;
    g_processed += it->width == 1; /* processed, not just marked ok */
    g_read_timed += it->ms_read > 0.0;
    g_last_status = it->status;
    snprintf(g_last_message, sizeof g_last_message, "%s", it->message ? it->message : "");
}

static const char *make_tree(int files)
{
    const char *dir = t_make_tmpdir();
    char path[512];
    int i;
    snprintf(path, sizeof path, "%s/in", dir);
    mkdir(path, 0755);
    for (i = 0; i < files; i++) {
        FILE *f;
        snprintf(path, sizeof path, "%s/in/f%02d.png", dir, i);
        f = fopen(path, "wb");
        assert_non_null(f);
        fputs("x", f);
        fclose(f);
    }
    return dir;
}

/* A batch of one input (a folder or a file) into `out`. */
static void batch_of(jf_batch *b, const char **inputs, const char *out)
{
    memset(b, 0, sizeof *b);
    b->opt.verb = "test";
    b->opt.output = out;
    b->opt.inputs = inputs;
    b->opt.input_count = 1;
}

/* dir/in into dir/out on the CPU, `jobs` jobs, each file remembered. */
static void cpu_batch(const char *dir, int jobs, jf_batch *b)
{
    static char in[512], out[512];
    static const char *inputs[1];
    snprintf(in, sizeof in, "%s/in", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    inputs[0] = in;
    batch_of(b, inputs, out);
    b->opt.jobs = jobs;
    b->opt.threads = jobs;
    b->opt.context = jf_context_defaults();
    b->opt.context.backend = JF_BACKEND_CPU;
    b->on_done = remember;
    g_processed = g_read_timed = 0;
}

static void run_batch(const char *dir, int jobs, int allow, jf_batch *b, jf_status *st)
{
    cpu_batch(dir, jobs, b);
    b->make_context = flaky_context;
    g_made = 0;
    g_allow = allow;
    assert_int_equal(jf_batch_collect(b), JF_OK);
    *st = jf_batch_run(b, count_work);
}

/* 4 jobs, only the first context can be made: every file is still done,
 * by that job, and counted once. */
static void test_failed_workers_leave_their_files(void **state)
{
    const char *dir = make_tree(12);
    jf_batch b;
    jf_status st;
    (void)state;
    run_batch(dir, 4, 1, &b, &st);
    assert_int_equal(st, JF_OK);
    assert_int_equal(b.done, 12);
    assert_int_equal(b.failed, 0);
    assert_int_equal(g_processed, 12);
    assert_int_equal(g_made, 4);
    jf_batch_free(&b);
    t_rmtree(dir);
}

static char g_logged[2048];

static void log_all(jf_batch *b, int verbose_only, const char *message)
{
    (void)b;
    (void)verbose_only;
    snprintf(g_logged + strlen(g_logged), sizeof g_logged - strlen(g_logged), "%s\n", message);
}

/* More jobs than files: a job a file (no context made for nothing to do),
 * and a walk that agrees with the count says nothing of it. */
static void test_no_more_jobs_than_files(void **state)
{
    const char *dir = make_tree(2);
    jf_batch b;
    (void)state;
    cpu_batch(dir, 4, &b);
    b.make_context = flaky_context;
    b.log = log_all;
    g_made = 0;
    g_allow = 4;
    g_logged[0] = '\0';
    assert_int_equal(jf_batch_collect(&b), JF_OK);
    assert_int_equal(jf_batch_run(&b, count_work), JF_OK);
    assert_int_equal(b.done, 2);
    assert_int_equal(g_made, 2);
    assert_null(strstr(g_logged, "changed"));
    jf_batch_free(&b);
    t_rmtree(dir);
}

/* Outputs named apart by a changed extension: two inputs that would share
 * one fail, the later one, however many files there are (the names' set
 * grows past its first size here). */
static void test_shared_output_names(void **state)
{
    const char *dir = make_tree(2100);
    char path[512];
    jf_batch b;
    FILE *f;
    (void)state;
    snprintf(path, sizeof path, "%s/in/f07.jpg", dir); /* f07.png's output too */
    f = fopen(path, "wb");
    assert_non_null(f);
    fputs("x", f);
    fclose(f);
    cpu_batch(dir, 1, &b);
    b.opt.extension = ".png";
    assert_int_equal(jf_batch_collect(&b), JF_OK);
    assert_int_equal(jf_batch_run(&b, count_work), JF_OK);
    assert_int_equal(b.done, 2101);
    assert_int_equal(b.failed, 1);
    assert_int_equal(g_processed, 2100);
    jf_batch_free(&b);
    t_rmtree(dir);
}

/* No context at all: the run fails and no file is counted done or ok. */
static void test_no_context_no_files_done(void **state)
{
    const char *dir = make_tree(3);
    jf_batch b;
    jf_status st;
    (void)state;
    run_batch(dir, 2, 0, &b, &st);
    assert_int_not_equal(st, JF_OK);
    assert_int_equal(b.done, 0);
    assert_int_equal(g_processed, 0);
    jf_batch_free(&b);
    t_rmtree(dir);
}

typedef struct seen {
    int images, other, passed, failed;
    char reasons[1024];
} seen;

static int on_entry(void *user, jf_walk_event ev, const char *path, const char *rel,
                    const char *reason)
{
    seen *s = (seen *)user;
    (void)path;
    switch (ev) {
    case JF_WALK_IMAGE: s->images++; break;
    case JF_WALK_OTHER: s->other++; break;
    case JF_WALK_PASSED: s->passed++; break;
    case JF_WALK_FAILED: s->failed++; break;
    }
    if (reason)
        snprintf(s->reasons + strlen(s->reasons), sizeof s->reasons - strlen(s->reasons),
                 "%s: %s; ", rel, reason);
    return 0;
}

/* Links to folders are followed unless they loop (passed over: their files
 * are reached the other way); dangling links, FIFOs and devices that carry
 * an image's name are failures, others not images, each with its reason; an
 * unreadable folder is a failure. */
static void test_walk_odd_entries(void **state)
{
    const char *dir = t_make_tmpdir();
    char p[512], q[512];
    seen s;
    FILE *f;
    (void)state;
    memset(&s, 0, sizeof s);
    snprintf(p, sizeof p, "%s/a", dir);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/a/pic.jpg", dir);
    f = fopen(p, "wb");
    fputs("x", f);
    fclose(f);
    snprintf(p, sizeof p, "%s/a/notes.txt", dir);
    f = fopen(p, "wb");
    fputs("x", f);
    fclose(f);
    snprintf(p, sizeof p, "%s/a/loop", dir);
    assert_int_equal(symlink("..", p), 0);          /* back to the root: a loop */
    snprintf(p, sizeof p, "%s/linked", dir);
    assert_int_equal(symlink("a", p), 0);           /* a folder by link: followed */
    snprintf(p, sizeof p, "%s/dangling.png", dir);
    assert_int_equal(symlink("nowhere.png", p), 0);
    snprintf(p, sizeof p, "%s/self", dir);
    assert_int_equal(symlink("self", p), 0);        /* ELOOP */
    snprintf(p, sizeof p, "%s/fifo.png", dir);
    assert_int_equal(mkfifo(p, 0644), 0);
    snprintf(p, sizeof p, "%s/dev.png", dir);
    assert_int_equal(symlink("/dev/null", p), 0);
    snprintf(q, sizeof q, "%s/closed", dir);
    mkdir(q, 0755);
    snprintf(p, sizeof p, "%s/fifo", dir);
    assert_int_equal(mkfifo(p, 0644), 0);           /* no image's name: not an image */
    assert_int_equal(jf_walk(dir, NULL, 0, on_entry, &s), 0);
    assert_int_equal(s.images, 2);          /* a/pic.jpg and linked/pic.jpg */
    assert_int_equal(s.other, 4);           /* a/notes.txt twice, self (a loop), fifo */
    assert_int_equal(s.passed, 2);          /* a/loop, linked/loop */
    /* an image's name that cannot be read is a failure: dangling.png, fifo.png,
     * dev.png, and the folder that cannot be opened */
    assert_int_equal(s.failed, 4);
    assert_non_null(strstr(s.reasons, strerror(EACCES)));
    assert_non_null(strstr(s.reasons, "dangling symbolic link"));
    assert_non_null(strstr(s.reasons, "symbolic link loop"));
    assert_non_null(strstr(s.reasons, "a FIFO"));
    assert_non_null(strstr(s.reasons, "a device"));
    assert_non_null(strstr(s.reasons, "(a loop)"));
    t_rmtree(dir);
}

/* Folders past the depth limit are failures that name the limit, never a
 * silent skip; below it everything is read. */
static void test_walk_depth_limit(void **state)
{
    const char *dir = t_make_tmpdir();
    char p[4096];
    size_t n;
    seen s;
    int d;
    FILE *f;
    (void)state;
    n = (size_t)snprintf(p, sizeof p, "%s", dir);
    for (d = 0; d < 6; d++) { /* dir/d/d/d/d/d/d/x.png: six folders down */
        n += (size_t)snprintf(p + n, sizeof p - n, "/d");
        mkdir(p, 0755);
    }
    snprintf(p + n, sizeof p - n, "/x.png");
    f = fopen(p, "wb");
    fputs("x", f);
    fclose(f);
    memset(&s, 0, sizeof s);
    assert_int_equal(jf_walk(dir, NULL, 6, on_entry, &s), 0);
    assert_int_equal(s.images, 1);
    assert_int_equal(s.failed, 0);
    memset(&s, 0, sizeof s);
    assert_int_equal(jf_walk(dir, NULL, 5, on_entry, &s), 0);
    assert_int_equal(s.images, 0);
    assert_int_equal(s.failed, 1);
    assert_non_null(strstr(s.reasons, "deeper than 5 levels"));
    t_rmtree(dir);
}

/* Latency percentiles in bounded memory: exact to the microsecond below a
 * millisecond, within 0.1% above. */
static void test_latency_histogram(void **state)
{
    static jf_latency h;
    int i;
    (void)state;
    memset(&h, 0, sizeof h);
    assert_true(jf_latency_quantile(&h, 0.5) == 0);
    for (i = 1; i <= 1000; i++) /* 0.001 .. 1.000 ms */
        jf_latency_add(&h, i / 1000.0);
    assert_true(fabs(jf_latency_quantile(&h, 0.5) - 0.500) < 1e-9);
    assert_true(fabs(jf_latency_quantile(&h, 0.99) - 0.990) < 1e-9);
    assert_true(fabs(jf_latency_quantile(&h, 1.0) - 1.000) < 1e-9);
    for (i = 0; i < 99000; i++) /* a long tail of slow frames: 5 .. 4955 ms */
        jf_latency_add(&h, 5.0 + (i % 100) * 50.0);
    assert_true(fabs(jf_latency_quantile(&h, 0.99) - 4905.0) < 4905.0 * 0.001);
    assert_true(jf_latency_quantile(&h, 1.0) <= h.max_ms);
    assert_true(fabs(h.max_ms - 4955.0) < 1e-9);
    assert_int_equal(h.count[JF_LATENCY_SUB * (JF_LATENCY_POWERS + 1) - 1], 0);
    jf_latency_add(&h, 1e14); /* 2^56.5 us, beyond the last power (2^54): the last bucket */
    assert_true(h.max_ms == 1e14);
    assert_int_equal(h.count[JF_LATENCY_SUB * (JF_LATENCY_POWERS + 1) - 1], 1);
}

/* --codec auto's count of JPEGs goes by the files' first bytes, as the
 * decoder does, while the files are counted: a JPEG named .png counts, a
 * PNG named .jpg, a text file, a dangling link and a pipe (never opened:
 * it would block, or lose bytes) do not; the bytes are the JPEGs' sizes. */
static void test_batch_jpeg_inputs(void **state)
{
    static const unsigned char jpeg_head[] = {0xFF, 0xD8, 0xFF, 0xE0, 0, 16, 'J', 'F', 'I', 'F'};
    static const unsigned char png_head[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n', 0, 0};
    static const char *names[] = {"a.jpg", "b.png", "c.jpg", "d.txt", "e.jpg", "f.jpg"};
    static const char *inputs[1];
    const char *dir = t_make_tmpdir();
    char in[512], out[512], path[600];
    jf_batch b;
    int i;
    (void)state;
    snprintf(in, sizeof in, "%s/in", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    assert_int_equal(mkdir(in, 0755), 0);
    for (i = 0; i < 6; i++) {
        FILE *f;
        snprintf(path, sizeof path, "%s/%s", in, names[i]);
        if (i == 4) { /* a link to nothing: a failed item */
            assert_int_equal(symlink("nowhere.jpg", path), 0);
            continue;
        }
        if (i == 5) {
            assert_int_equal(mkfifo(path, 0600), 0);
            continue;
        }
        f = fopen(path, "wb");
        assert_non_null(f);
        /* a.jpg and b.png are JPEGs (100 and 300 bytes); c.jpg is a PNG;
         * d.txt text */
        if (i == 2)
            fwrite(png_head, 1, sizeof png_head, f);
        else if (i == 3)
            fputs("not an image at all", f);
        else {
            size_t n = i == 1 ? 300 : 100, k;
            fwrite(jpeg_head, 1, sizeof jpeg_head, f);
            for (k = sizeof jpeg_head; k < n; k++)
                fputc((int)(k & 0x7f), f);
        }
        fclose(f);
    }
    inputs[0] = in;
    batch_of(&b, inputs, out);
    b.opt.count_jpegs = 1;
    assert_int_equal(jf_batch_collect(&b), JF_OK);
    assert_int_equal(b.count, 5); /* the two that fail are files of the batch */
    assert_int_equal(b.jpeg_files, 2);
    assert_true(b.jpeg_bytes == 400.0);
    jf_batch_free(&b);
    t_rmtree(dir);
}

/* --codec auto's cost model on made-up figures: a handful of files stays on
 * the CPU, a long batch goes to the GPU, the turn comes where the start-up
 * is paid back, the engine's ceiling and the check count, jobs beyond the
 * cores do not, and the figures in use name a section of
 * docs/kernels/studies.md. */
static void test_codec_choice(void **state)
{
    const jf_codec_costs fake = {"made up", 40.0, 20.0, 5.0, 1000.0, 1.0};
    jf_codec_costs slow_engine = fake, m = jf_codec_costs_measured();
    jf_codec_choice c, d;
    char *results;
    size_t n;
    (void)state;
    jf_codec_choose(&fake, 5, 5.0, 16, 16, 1, 0, &c); /* 5 files of 1 MB */
    assert_int_equal(c.gpu, 0);
    assert_true(fabs(c.cpu_s - 5 * 40.0 / 16 / 1e3) < 1e-9);
    assert_true(fabs(c.gpu_s - (1.0 + 5 * 20.0 / 16 / 1e3)) < 1e-9);
    assert_non_null(strstr(c.reason, "the CPU's: predicted 0.01 s against 1.01 s"));
    assert_non_null(strstr(c.reason, "5 JPEGs, 5 MB, 16 jobs; made up"));
    jf_codec_choose(&fake, 2000, 2000.0, 16, 16, 1, 0, &c);
    assert_int_equal(c.gpu, 1);
    assert_true(fabs(c.cpu_s - 5.0) < 1e-9 && fabs(c.gpu_s - 3.5) < 1e-9);
    assert_non_null(strstr(c.reason, "the GPU's: predicted 3.50 s against 5.00 s for the CPU's"));
    /* cores unknown (0): one worker, not a division by nothing */
    jf_codec_choose(&fake, 5, 5.0, 4, 0, 1, 0, &c);
    assert_true(fabs(c.cpu_s - 5 * 40.0 / 1e3) < 1e-9);
    /* paid back at 1.0 s = N x (40 - 20) / 16 ms: N = 800 */
    jf_codec_choose(&fake, 790, 790.0, 16, 16, 1, 0, &c);
    assert_int_equal(c.gpu, 0);
    jf_codec_choose(&fake, 810, 810.0, 16, 16, 1, 0, &c);
    assert_int_equal(c.gpu, 1);
    /* trusting the input: the engine's ceiling (0.7 s) instead of the cores' 0.875 s */
    jf_codec_choose(&fake, 700, 700.0, 16, 16, 1, 0, &c);
    jf_codec_choose(&fake, 700, 700.0, 16, 16, 0, 0, &d);
    assert_int_equal(c.gpu, 0);
    assert_int_equal(d.gpu, 1);
    assert_true(fabs(d.gpu_s - 1.7) < 1e-9);
    slow_engine.engine_mb_per_s = 100.0; /* 2000 MB: 20 s on the engine */
    jf_codec_choose(&slow_engine, 2000, 2000.0, 16, 16, 0, 0, &c);
    assert_int_equal(c.gpu, 0);
    assert_true(fabs(c.gpu_s - 21.0) < 1e-9);
    /* 64 jobs on 16 cores work as 16; 4 jobs pay the start-up back sooner */
    jf_codec_choose(&fake, 790, 790.0, 64, 16, 1, 0, &c);
    assert_int_equal(c.gpu, 0);
    assert_non_null(strstr(c.reason, "16 jobs"));
    jf_codec_choose(&fake, 300, 300.0, 4, 16, 1, 0, &c);
    assert_int_equal(c.gpu, 1);
    jf_codec_choose(&fake, 0, 0.0, 16, 16, 1, 0, &c);
    assert_int_equal(c.gpu, 0);
    /* the engine already running (jetfilter serve): nothing to pay back, so
     * a handful of files goes to the GPU where it costs the cores less */
    jf_codec_choose(&fake, 5, 5.0, 16, 16, 1, 1, &c);
    assert_int_equal(c.gpu, 1);
    assert_true(fabs(c.gpu_s - 5 * 20.0 / 16 / 1e3) < 1e-9);
    assert_non_null(strstr(c.reason, "16 jobs, the engine running; made up"));
    jf_codec_choose(&fake, 0, 0.0, 16, 16, 1, 1, &c);
    assert_int_equal(c.gpu, 0);
    /* the measured figures: the GPU path costs the cores less a file, and
     * starting it costs time; they say where they come from */
    assert_true(m.gpu_core_ms_per_mb < m.cpu_core_ms_per_mb && m.trust_core_ms_per_mb > 0 &&
                m.trust_core_ms_per_mb < m.gpu_core_ms_per_mb && m.engine_mb_per_s > 0 &&
                m.gpu_start_s > 0);
    assert_int_equal(jf_read_file(t_source_path("docs/kernels/studies.md"), 1 << 26,
                                  (unsigned char **)&results, &n), JF_OK);
    results = (char *)realloc(results, n + 1);
    assert_non_null(results);
    results[n] = '\0';
    {
        /* the section the figures name: "... studies.md \"SECTION\"" */
        const char *open = strchr(m.source, '"'), *close = open ? strchr(open + 1, '"') : NULL;
        char heading[160];
        assert_non_null(close);
        snprintf(heading, sizeof heading, "# %.*s", (int)(close - open - 1), open + 1);
        assert_non_null(strstr(results, heading));
    }
    free(results);
}

static int g_device_seen;

static jf_status device_context(const jf_context_options *opt, jf_context **out)
{
    g_device_seen = opt->device;
    return jf_context_create(opt, out);
}

/* Details of a run: the default memory budget is half the machine's; the
 * time to read each file is measured; a device list of no devices is no
 * list (the context's device stands); and an output that is the input
 * under another name (a hard link) is refused, file by file. */
static void test_batch_details(void **state)
{
    const char *dir = make_tree(3);
    static const char *inputs[1];
    static int five[1] = {5};
    char in[512], link_name[512];
    jf_batch b;
    jf_status st;
    (void)state;
    assert_true(jf_batch_default_memory() ==
                (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE) / 2);
    run_batch(dir, 2, 2, &b, &st);
    assert_int_equal(st, JF_OK);
    assert_int_equal(b.done, 3);
    assert_int_equal(g_read_timed, 3);
    jf_batch_free(&b);
    snprintf(in, sizeof in, "%s/in/f00.png", dir);
    snprintf(link_name, sizeof link_name, "%s/in/same.png", dir);
    assert_int_equal(link(in, link_name), 0);
    inputs[0] = in;
    batch_of(&b, inputs, link_name);
    b.opt.single = 1;
    b.opt.jobs = 1;
    b.opt.context = jf_context_defaults();
    b.opt.context.backend = JF_BACKEND_CPU;
    b.opt.devices = five;
    b.opt.device_count = 0;
    b.make_context = device_context;
    g_device_seen = -1;
    b.on_done = remember;
    assert_int_equal(jf_batch_collect(&b), JF_OK);
    assert_int_equal(b.count, 1);
    assert_int_equal(jf_batch_run(&b, count_work), JF_OK);
    assert_int_equal(g_device_seen, 0);
    assert_int_equal(b.failed, 1);
    assert_int_equal(g_last_status, JF_ERR_IO);
    assert_non_null(strstr(g_last_message, "refusing to overwrite the input"));
    jf_batch_free(&b);
    t_rmtree(dir);
}

/* A warm device's first context is made while device 0's is: device 0's
 * waits (at most 10 s) for device 1's to begin.  Made one after the other,
 * as they were, device 0's would wait in vain. */
static pthread_mutex_t g_start_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_start_cond = PTHREAD_COND_INITIALIZER;
static int g_second_began, g_met;

static jf_status rendezvous_context(const jf_context_options *opt, jf_context **out)
{
    pthread_mutex_lock(&g_start_lock);
    if (opt->device == 1) {
        g_second_began = 1;
        pthread_cond_broadcast(&g_start_cond);
    } else if (opt->device == 0 && !g_met) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += 10;
        while (!g_second_began &&
               pthread_cond_timedwait(&g_start_cond, &g_start_lock, &until) == 0)
            ;
        g_met = g_second_began ? 1 : -1;
    }
    pthread_mutex_unlock(&g_start_lock);
    return jf_context_create(opt, out);
}

static int warm(int device) { (void)device; return 1; }
static int cold(int device) { (void)device; return 0; }

static void test_devices_start_together(void **state)
{
    const char *dir = make_tree(6);
    static int two[2] = {0, 1};
    jf_batch b;
    (void)state;
    g_second_began = g_met = 0;
    cpu_batch(dir, 2, &b);
    b.opt.devices = two;
    b.opt.device_count = 2;
    b.opt.context.stats = 16;
    b.make_context = rendezvous_context;
    b.device_warm = warm;
    assert_int_equal(jf_batch_collect(&b), JF_OK);
    assert_int_equal(jf_batch_run(&b, count_work), JF_OK);
    assert_int_equal(g_met, 1);
    assert_int_equal(b.done, 6);
    assert_int_equal(g_processed, 6);
    jf_batch_free(&b);
    t_rmtree(dir);
}

/* Two devices, four jobs.  Device 1 is warm (it joins at once) but slow
 * to start: no job waits for it (all four work on device 0 meanwhile), and
 * its two jobs move to it once it is up.  Then a device 1 that fails to
 * start: its jobs stay on device 0, and the batch says why. */
static pthread_mutex_t g_dev_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_dev_cond = PTHREAD_COND_INITIALIZER;
static jf_context *g_dev_ctx[16];
static int g_dev_of[16], g_dev_contexts, g_dev_fail, g_dev_slow;
static pthread_t g_dev_thread[16];
static int g_dev_mask[16], g_dev_threads;
static double g_dev_gpu_ms, g_dev_sleep_ms; /* what a file's work records and takes */

static int threads_on(int device)
{
    int i, n = 0;
    for (i = 0; i < g_dev_threads; i++)
        n += (g_dev_mask[i] >> device) & 1;
    return n;
}

static int contexts_on(int device)
{
    int i, n = 0;
    for (i = 0; i < g_dev_contexts; i++)
        n += g_dev_of[i] == device;
    return n;
}

static jf_status slow_second_context(const jf_context_options *opt, jf_context **out)
{
    jf_status st;
    pthread_mutex_lock(&g_dev_lock);
    if (opt->device == 1 && g_dev_slow && g_met == 0) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += 10;
        while (threads_on(0) < 4 &&
               pthread_cond_timedwait(&g_dev_cond, &g_dev_lock, &until) == 0)
            ;
        g_met = threads_on(0) >= 4 ? 1 : -1;
        if (g_dev_fail) {
            pthread_mutex_unlock(&g_dev_lock);
            return jf_fail(JF_ERR_CUDA, "cudaSetDevice(1): out of memory");
        }
    }
    pthread_mutex_unlock(&g_dev_lock);
    st = jf_context_create(opt, out);
    pthread_mutex_lock(&g_dev_lock);
    if (st == JF_OK && g_dev_contexts < 16) {
        g_dev_ctx[g_dev_contexts] = *out;
        g_dev_of[g_dev_contexts++] = opt->device;
    }
    pthread_mutex_unlock(&g_dev_lock);
    return st;
}

static jf_status device_work(jf_batch *b, jf_batch_item *it, jf_context *ctx)
{
    struct timespec pause = {0, 0};
    jf_stat gpu;
    int i, device = -1;
    pthread_mutex_lock(&g_dev_lock);
    for (i = 0; i < g_dev_contexts; i++)
        if (g_dev_ctx[i] == ctx)
            device = g_dev_of[i];
    for (i = 0; i < g_dev_threads && !pthread_equal(g_dev_thread[i], pthread_self()); i++)
        ;
    if (i == g_dev_threads && i < 16)
        g_dev_thread[g_dev_threads++] = pthread_self();
    if (i < 16 && device >= 0)
        g_dev_mask[i] |= 1 << device;
    pthread_cond_broadcast(&g_dev_cond);
    pthread_mutex_unlock(&g_dev_lock);
    memset(&gpu, 0, sizeof gpu);
    snprintf(gpu.name, sizeof gpu.name, "median");
    gpu.ms = g_dev_gpu_ms;
    gpu.peak_gbps = 4800.0; /* a device's stage */
    jf_stats_add(ctx, &gpu);
    pause.tv_nsec = (long)(g_dev_sleep_ms * 1e6);
    nanosleep(&pause, NULL);
    return count_work(b, it, ctx);
}

static void two_device_batch(const char *dir, jf_batch *b, int files_stats)
{
    static int two[2] = {0, 1};
    g_met = g_dev_contexts = g_dev_threads = 0;
    memset(g_dev_mask, 0, sizeof g_dev_mask);
    g_logged[0] = '\0';
    cpu_batch(dir, 4, b);
    b->opt.devices = two;
    b->opt.device_count = 2;
    b->opt.context.stats = files_stats;
    b->make_context = slow_second_context;
    b->log = log_all;
}

static void test_jobs_do_not_wait_for_a_device(void **state)
{
    int fail;
    (void)state;
    for (fail = 0; fail < 2; fail++) {
        const char *dir = make_tree(40);
        jf_batch b;
        int i, moved = 0;
        two_device_batch(dir, &b, 16);
        b.device_warm = warm;
        g_dev_slow = 1;
        g_dev_fail = fail;
        g_dev_gpu_ms = 0.0;
        g_dev_sleep_ms = 2.0;
        assert_int_equal(jf_batch_collect(&b), JF_OK);
        assert_int_equal(jf_batch_run(&b, device_work), JF_OK);
        assert_int_equal(g_met, 1);
        assert_int_equal(b.done, 40);
        assert_int_equal(g_processed, 40);
        for (i = 0; i < g_dev_threads; i++)
            moved += g_dev_mask[i] == 3;
        if (!fail) {
            assert_int_equal(moved, 2);
            assert_int_equal(threads_on(1), 2);
            assert_null(strstr(g_logged, "did not start"));
        } else {
            assert_int_equal(moved, 0);
            assert_int_equal(threads_on(1), 0);
            assert_int_equal(threads_on(0), 4);
            assert_non_null(strstr(g_logged, "device 1 did not start (cudaSetDevice(1): out of "
                                             "memory); its jobs run on device 0"));
        }
        jf_batch_free(&b);
        t_rmtree(dir);
    }
}

/* A device that has not started in the process joins only when the first
 * is measured to be the bound, and enough of the batch is left: files whose
 * GPU time (24 ms a file, four jobs) covers the wall time bring device 1
 * in, and two jobs move to it; files of 0.1 ms never start it (no context
 * on it at all), nor does the bound when less is left than a start needs. */
static void test_devices_join_when_the_first_is_the_bound(void **state)
{
    int run;
    (void)state;
    for (run = 0; run < 3; run++) {
        const char *dir = make_tree(100);
        const int bound = run > 0;
        jf_batch b;
        two_device_batch(dir, &b, 16);
        b.device_warm = cold;
        b.device_pays_ms = run < 2 ? 100.0 : 5000.0; /* the batch takes half a second */
        g_dev_slow = g_dev_fail = 0;
        g_dev_gpu_ms = bound ? 24.0 : 0.1;
        g_dev_sleep_ms = 20.0;
        assert_int_equal(jf_batch_collect(&b), JF_OK);
        assert_int_equal(jf_batch_run(&b, device_work), JF_OK);
        assert_int_equal(b.done, 100);
        assert_int_equal(g_processed, 100);
        if (run == 1) {
            assert_true(contexts_on(1) >= 2);
            assert_int_equal(threads_on(1), 2);
        } else {
            assert_int_equal(contexts_on(1), 0);
            assert_int_equal(threads_on(0), 4);
        }
        jf_batch_free(&b);
        t_rmtree(dir);
    }
}

/* Jobs go near their device only where that leaves no CPU idle. */
static void test_jobs_placed_near_their_device(void **state)
{
    /* 8 CPUs; two devices near 0-3 and 4-7 */
    static const unsigned char split[16] = {1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1};
    static const unsigned char both[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    static const unsigned char one_side[16] = {1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0};
    static const unsigned char all[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    static const unsigned char low[8] = {1, 1, 1, 1, 0, 0, 0, 0};
    static const unsigned char high_and_one[8] = {1, 0, 0, 0, 1, 1, 1, 1};
    (void)state;
    assert_true(jf_batch_place_jobs(split, 2, all, 8));
    assert_false(jf_batch_place_jobs(split, 1, low, 8));      /* one device */
    assert_false(jf_batch_place_jobs(both, 2, all, 8));       /* both near every CPU */
    assert_false(jf_batch_place_jobs(one_side, 2, all, 8));   /* CPUs 4-7 near neither */
    assert_false(jf_batch_place_jobs(split, 2, low, 8));      /* device 1 near none allowed */
    assert_true(jf_batch_place_jobs(split, 2, high_and_one, 8));
}

/* What a stream reserves: JF_STREAM_SLOTS frames (input, the filtered
 * planes' outputs, the reference) and the largest filtered plane padded by
 * k - 1 on each axis, worked out by hand for 4:2:0 at 100 x 50. */
static void test_stream_memory(void **state)
{
    jf_video_format f;
    (void)state;
    memset(&f, 0, sizeof f);
    f.width = 100, f.height = 50, f.planes = 3, f.color_planes = 3;
    f.plane_width[0] = 100, f.plane_height[0] = 50;
    f.plane_width[1] = f.plane_width[2] = 50;
    f.plane_height[1] = f.plane_height[2] = 25;
    f.plane_channels[0] = f.plane_channels[1] = f.plane_channels[2] = 1;
    /* Y filtered, k = 5: (5000 + 5000 + 1250 + 1250) x 4 + 104 x 54 */
    assert_int_equal(jf_stream_memory(&f, 1u, 0, 5), 12500u * JF_STREAM_SLOTS + 104u * 54u);
    /* every plane, with a reference, k = 3: (3 x 5000 + 2 x 3 x 1250) x 4 + 102 x 52 */
    assert_int_equal(jf_stream_memory(&f, 7u, 1, 3), 22500u * JF_STREAM_SLOTS + 102u * 52u);
    /* only the chroma planes: the padded copy is a chroma plane's */
    assert_int_equal(jf_stream_memory(&f, 6u, 0, 7), (5000u + 2u * 2u * 1250u) * JF_STREAM_SLOTS +
                                                       56u * 31u);
    /* a slot past the format's planes is not a plane, whatever it holds */
    f.plane_width[3] = 640, f.plane_height[3] = 480, f.plane_channels[3] = 1;
    assert_int_equal(jf_stream_memory(&f, 1u, 0, 5), 12500u * JF_STREAM_SLOTS + 104u * 54u);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_failed_workers_leave_their_files),
        cmocka_unit_test(test_no_context_no_files_done),
        cmocka_unit_test(test_no_more_jobs_than_files),
        cmocka_unit_test(test_shared_output_names),
        cmocka_unit_test(test_walk_odd_entries),
        cmocka_unit_test(test_walk_depth_limit),
        cmocka_unit_test(test_latency_histogram),
        cmocka_unit_test(test_batch_jpeg_inputs),
        cmocka_unit_test(test_codec_choice),
        cmocka_unit_test(test_batch_details),
        cmocka_unit_test(test_devices_start_together),
        cmocka_unit_test(test_jobs_do_not_wait_for_a_device),
        cmocka_unit_test(test_devices_join_when_the_first_is_the_bound),
        cmocka_unit_test(test_jobs_placed_near_their_device),
        cmocka_unit_test(test_stream_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
