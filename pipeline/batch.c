/*
 * The batch: which files, where their outputs go, and a pool of jobs that
 * works through them.  Each job has its own jf_context (its own CPU threads
 * or CUDA stream), so files are independent and a failure stays with its file.
 */
#define _GNU_SOURCE /* pthread_setaffinity_np */
#include "pipeline/batch.h"
#include "core/errors.h"
#include "core/util.h"
#include "io/io.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void logf_(jf_batch *b, int verbose_only, const char *fmt, ...)
{
    char msg[2 * PATH_MAX + 512]; /* a path, another, and the reason, whole */
    va_list ap;
    if (!b->log)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    b->log(b, verbose_only, msg);
}

static char *join_output(const jf_batch *b, const char *rel)
{
    const jf_batch_options *o = &b->opt;
    const char *dot = strrchr(rel, '.');
    const char *slash = strrchr(rel, '/');
    const char *ext;
    size_t stem_len, n;
    char *out;
    if (dot && (!slash || dot > slash) && dot != (slash ? slash + 1 : rel))
        stem_len = (size_t)(dot - rel);
    else
        stem_len = strlen(rel), dot = NULL;
    ext = o->extension ? o->extension : dot ? dot : "";
    /* a requested format keeps a matching extension as the user spelled it */
    if (dot && o->extension && jf_extension_format(dot) == jf_extension_format(o->extension))
        ext = dot;
    n = strlen(o->output) + 1 + stem_len + (o->suffix ? strlen(o->suffix) : 0) + strlen(ext) + 1;
    out = (char *)malloc(n);
    if (out)
        snprintf(out, n, "%s/%.*s%s%s", o->output, (int)stem_len, rel, o->suffix ? o->suffix : "",
                 ext);
    return out;
}

/* The run's walk, which the jobs take files from as they need them (one
 * job at a time, under its own lock): no thread, no queue. */
typedef struct jf_batch_feed {
    pthread_mutex_t lock;
    jf_walker *walker;      /* the folder input being walked (NULL: none) */
    int input;              /* the next input to start */
    jf_batch_item *ready;   /* what the walk found, for the job that asked */
    int closed;             /* the walk is over */
    int walk_files;         /* what this walk found, to compare with the count */
    uint64_t walk_digest;
    int out_of_memory;
    uint64_t *outputs;      /* hashes of the output names so far, when two inputs */
    size_t outputs_cap, outputs_count; /* can have one output name (0: empty) */
} jf_batch_feed;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_memory_freed = PTHREAD_COND_INITIALIZER;

static jf_batch_item *new_item(const jf_batch *b, const char *path, const char *rel)
{
    jf_batch_item *it = (jf_batch_item *)calloc(1, sizeof *it);
    if (!it)
        return NULL;
    it->input = strdup(path);
    it->rel = strdup(rel);
    it->output = join_output(b, rel);
    if (!it->input || !it->rel || !it->output) {
        free(it->input);
        free(it->rel);
        free(it->output);
        free(it);
        return NULL;
    }
    return it;
}

static void free_item(jf_batch_item *it)
{
    if (!it)
        return;
    free(it->message);
    free(it->input);
    free(it->rel);
    free(it->output);
    free(it->stats);
    free(it);
}

/* The reason an item failed, kept whole. */
static void set_message(jf_batch_item *it, const char *fmt, va_list ap)
{
    char msg[2 * PATH_MAX + 512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    free(it->message);
    it->message = strdup(msg); /* NULL when out of memory: the status still tells */
}

static void fail_item(jf_batch_item *it, jf_status status, const char *fmt, ...)
{
    va_list ap;
    it->status = status;
    va_start(ap, fmt);
    set_message(it, fmt, ap);
    va_end(ap);
}

/* The last error of this thread as the item's reason. */
static void keep_error(jf_batch_item *it)
{
    free(it->message);
    it->message = strdup(jf_last_error());
}

/* A JPEG file counted, with its bytes (--codec auto's choice). */
static int count_jpeg(const char *path, double *bytes)
{
    double size = 0;
    if (jf_file_format(path, &size) != JF_FORMAT_JPEG)
        return 0;
    *bytes += size;
    return 1;
}

/* Counting: temporaries that killed runs left in a folder this run writes
 * go before any file is written (a folder met again is cleared again,
 * which finds nothing). */
static void clear_output_folder(jf_batch *b, const char *rel)
{
    char *out = join_output(b, rel), *slash;
    if (!out)
        return;
    if ((slash = strrchr(out, '/')) != NULL && slash != out) {
        *slash = '\0';
        if (!b->cleaned || strcmp(b->cleaned, out) != 0) {
            b->stale_removed += jf_remove_stale_temporaries(out, b->collect_time);
            free(b->cleaned);
            b->cleaned = out;
            return;
        }
    }
    free(out);
}

/* Two inputs can share an output name when the extension changes
 * (x.jpg and x.png to x.png) or several inputs are given; the later one
 * fails.  The names are kept as 64-bit hashes (a false clash among a
 * million names: about 1 in 30 million runs). */
static int output_taken(jf_batch_feed *f, const char *output)
{
    uint64_t h = jf_shard_hash(output, strlen(output)) | 1;
    size_t i;
    if (2 * (f->outputs_count + 1) > f->outputs_cap) {
        size_t cap = f->outputs_cap ? 2 * f->outputs_cap : 4096, k;
        uint64_t *grown = (uint64_t *)calloc(cap, sizeof *grown);
        if (!grown)
            return 0; /* unchecked rather than stopped */
        for (k = 0; k < f->outputs_cap; k++)
            if (f->outputs[k]) {
                for (i = f->outputs[k] & (cap - 1); grown[i]; i = (i + 1) & (cap - 1))
                    ;
                grown[i] = f->outputs[k];
            }
        free(f->outputs);
        f->outputs = grown;
        f->outputs_cap = cap;
    }
    for (i = h & (f->outputs_cap - 1); f->outputs[i]; i = (i + 1) & (f->outputs_cap - 1))
        if (f->outputs[i] == h)
            return 1;
    f->outputs[i] = h;
    f->outputs_count++;
    return 0;
}

/* One output per name, and never an input overwritten. */
static void check_output(jf_batch *b, jf_batch_item *it)
{
    char in_real[PATH_MAX], out_path[PATH_MAX];
    int n;
    if ((b->opt.extension || b->opt.input_count > 1) && output_taken(b->feed, it->output)) {
        fail_item(it, JF_ERR_IO, "%s: output %s is also written for another input", it->input,
                  it->output);
        return;
    }
    if (!realpath(it->input, in_real))
        return;
    n = snprintf(out_path, sizeof out_path, "%s/%s", b->out_real,
                 it->output + strlen(b->opt.output) + 1);
    /* an error (n < 0) is as far past the size as a name too long */
    if ((size_t)n < sizeof out_path && strcmp(in_real, out_path) == 0)
        fail_item(it, JF_ERR_IO, "%s: refusing to overwrite the input (choose another -o or "
                  "--suffix)", it->input);
}

/* A file of the inputs, or one that cannot be read (`failure`, whole):
 * counted while counting, made ready for a job while running when it is
 * in this process's shard.  Non-zero: out of memory. */
static int found(jf_batch *b, const char *path, const char *rel, const char *failure)
{
    const int count = b->opt.shard.count > 1 ? b->opt.shard.count : 1;
    const uint64_t hash = jf_shard_hash(rel, strlen(rel));
    const int shard = jf_shard_of(rel, count); /* 0 with one shard */
    const int mine = count == 1 || shard == b->opt.shard.index;
    jf_batch_item *it;
    if (!b->listing) {
        b->walk_files++;
        b->walk_digest += hash;
        if (b->shard_files)
            b->shard_files[shard]++;
        if (!mine)
            return 0;
        b->count++;
        if (!failure && b->opt.count_jpegs)
            b->jpeg_files += count_jpeg(path, &b->jpeg_bytes);
        if (!failure)
            clear_output_folder(b, rel);
        return 0;
    }
    b->feed->walk_files++;
    b->feed->walk_digest += hash;
    if (!mine)
        return 0;
    if (!(it = new_item(b, path, rel)))
        return 1;
    if (failure)
        fail_item(it, JF_ERR_IO, "%s", failure);
    else
        check_output(b, it);
    b->feed->ready = it;
    return 0;
}

/* An input that cannot be read is one failed item, named in the summary. */
static int found_unreadable(jf_batch *b, const char *path, const char *rel, const char *reason)
{
    char msg[2 * PATH_MAX + 512];
    snprintf(msg, sizeof msg, "%s: cannot read: %s", path, reason);
    return found(b, path, rel[0] ? rel : path, msg);
}

/* Files found in folders: with --suffix, earlier outputs ("x_dn.jpg") are
 * passed over, so a second run does not filter its own results again.
 * What is not a file is counted and named (-v) while counting only. */
static int on_walk(void *user, jf_walk_event ev, const char *path, const char *rel,
                   const char *reason)
{
    jf_batch *b = (jf_batch *)user;
    const char *suffix = b->opt.suffix;
    const char *base, *dot;
    size_t stem, n;
    switch (ev) {
    case JF_WALK_OTHER:
        if (!b->listing) {
            b->ignored++;
            if (reason)
                logf_(b, 1, "pass %s (%s; not an image's name)", path, reason);
        }
        return 0;
    case JF_WALK_PASSED:
        if (!b->listing) {
            b->passed++;
            logf_(b, 1, "pass %s (%s)", path, reason);
        }
        return 0;
    case JF_WALK_FAILED:
        return found_unreadable(b, path, rel, reason);
    case JF_WALK_IMAGE:
        break;
    }
    base = strrchr(rel, '/');
    base = base ? base + 1 : rel;
    dot = strrchr(base, '.');
    stem = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    n = suffix ? strlen(suffix) : 0;
    if (n && stem >= n && strncmp(base + stem - n, suffix, n) == 0) {
        if (!b->listing) {
            b->earlier_outputs++;
            logf_(b, 1, "pass %s (named as an output of --suffix %s)", path, suffix);
        }
        return 0;
    }
    return found(b, path, rel, NULL);
}

/* Is `inner` the folder `outer` or inside it?  Both resolved paths. */
static int path_within(const char *inner, const char *outer)
{
    size_t n = strlen(outer);
    if (strcmp(outer, "/") == 0)
        return 1;
    return strncmp(inner, outer, n) == 0 && (inner[n] == '\0' || inner[n] == '/');
}

/* The absolute, resolved form of a folder that may not exist yet: the real
 * path of its nearest existing ancestor plus the rest, so that the output
 * can be checked against the inputs before anything is created. */
static int resolve_future(const char *path, char *out)
{
    char buf[PATH_MAX], rest[PATH_MAX] = "";
    char *slash;
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return 0;
    while (strlen(buf) > 1 && buf[strlen(buf) - 1] == '/')
        buf[strlen(buf) - 1] = '\0';
    for (;;) {
        char real[PATH_MAX];
        if (realpath(buf[0] ? buf : ".", real)) {
            return snprintf(out, PATH_MAX, "%s%s%s", real, rest[0] && strcmp(real, "/") ? "/" : "",
                            rest) < PATH_MAX;
        }
        slash = strrchr(buf, '/');
        {
            char tmp[PATH_MAX];
            const char *last = slash ? slash + 1 : buf;
            if (snprintf(tmp, sizeof tmp, "%s%s%s", last, rest[0] ? "/" : "", rest) >= (int)sizeof tmp)
                return 0;
            memcpy(rest, tmp, sizeof rest);
        }
        if (!slash)
            buf[0] = '\0';
        else if (slash == buf)
            buf[1] = '\0';
        else
            *slash = '\0';
        if (!buf[0] && !rest[0])
            return 0;
        if (strcmp(buf, "/") == 0 && realpath("/", out))
            return snprintf(out, PATH_MAX, "/%s", rest) < PATH_MAX;
    }
}

/* A named input that is not a folder: a regular file, or a refusal (FIFOs
 * and devices are never opened, so never waited on). */
static jf_status collect_file(jf_batch *b, const char *in)
{
    struct stat sb;
    const char *name = strrchr(in, '/') ? strrchr(in, '/') + 1 : in;
    char msg[PATH_MAX + 128];
    if (stat(in, &sb) != 0)
        return found_unreadable(b, in, in, strerror(errno)) ? JF_ERR_NOMEM : JF_OK;
    if (!S_ISREG(sb.st_mode))
        snprintf(msg, sizeof msg, "%s: not a regular file (%s); refused", in,
                 S_ISFIFO(sb.st_mode) ? "a FIFO" : S_ISSOCK(sb.st_mode) ? "a socket" : "a device");
    return found(b, in, name, S_ISREG(sb.st_mode) ? NULL : msg) ? JF_ERR_NOMEM : JF_OK;
}

/* A named input that is a folder: its name to walk ("in/" walks as "in":
 * names print as in/x.png, not in//x.png); 0 when it is not one. */
static int input_folder(const char *in, char *folder)
{
    struct stat sb;
    size_t n = strlen(in);
    if (stat(in, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return 0;
    while (n > 1 && in[n - 1] == '/')
        n--;
    snprintf(folder, PATH_MAX, "%.*s", (int)n, in);
    return 1;
}

/* A named input, counted: a folder walked, or a file. */
static jf_status collect_input(jf_batch *b, const char *in)
{
    char folder[PATH_MAX], real[PATH_MAX];
    if (!input_folder(in, folder))
        return collect_file(b, in);
    if (realpath(in, real) && path_within(b->out_real, real) && !b->opt.suffix)
        return jf_fail(JF_ERR_ARG, "output folder %s is inside input folder %s; choose "
                       "another -o, or name outputs apart with --suffix", b->opt.output, in);
    return jf_walk(folder, b->out_real, b->opt.max_depth, on_walk, b) ? JF_ERR_NOMEM : JF_OK;
}

/* One input to one output file: no walk, no folder made, no names made up. */
static jf_status collect_single(jf_batch *b)
{
    const jf_batch_options *o = &b->opt;
    const char *in = o->inputs[0];
    const int from_stdin = strcmp(in, "-") == 0;
    const char *rel = from_stdin ? "stdin" : strrchr(in, '/') ? strrchr(in, '/') + 1 : in;
    const int count = o->shard.count;
    struct stat isb, osb;
    jf_batch_item *it;
    if (o->input_count != 1)
        return jf_fail(JF_ERR_ARG, "-o %s names one file, but %d inputs are given; give a "
                       "folder to -o", o->output, o->input_count);
    if (!from_stdin && stat(in, &isb) == 0 && S_ISDIR(isb.st_mode))
        return jf_fail(JF_ERR_ARG, "-o %s names a file, but %s is a folder; give a folder to -o",
                       o->output, in);
    b->walk_files = 1;
    b->walk_digest = jf_shard_hash(rel, strlen(rel));
    if (count > 1) {
        if (!(b->shard_files = (int *)calloc((size_t)count, sizeof *b->shard_files)))
            return JF_ERR_NOMEM;
        b->shard_files[jf_shard_of(rel, count)] = 1;
        if (jf_shard_of(rel, count) != o->shard.index)
            return JF_OK; /* another process's file */
    }
    if (!(it = new_item(b, from_stdin ? JF_STDIN_NAME : in, rel)))
        return JF_ERR_NOMEM;
    it->from_stdin = from_stdin;
    free(it->output);
    if (!(it->output = strdup(o->output))) {
        free_item(it);
        return JF_ERR_NOMEM;
    }
    if (!from_stdin && stat(in, &isb) != 0)
        fail_item(it, JF_ERR_IO, "%s: cannot read: %s", in, strerror(errno));
    else if (!from_stdin && !S_ISREG(isb.st_mode))
        fail_item(it, JF_ERR_IO, "%s: not a regular file (%s); refused", in,
                  S_ISFIFO(isb.st_mode) ? "a FIFO" : S_ISSOCK(isb.st_mode) ? "a socket" : "a device");
    /* never the input itself, whatever path names it */
    else if (!from_stdin && strcmp(o->output, "-") != 0 && stat(o->output, &osb) == 0 &&
             isb.st_dev == osb.st_dev && isb.st_ino == osb.st_ino)
        fail_item(it, JF_ERR_IO, "%s: refusing to overwrite the input", in);
    if (it->status == JF_OK && o->count_jpegs && !from_stdin)
        b->jpeg_files += count_jpeg(in, &b->jpeg_bytes);
    b->single = it;
    b->count = 1;
    return JF_OK;
}

jf_status jf_batch_collect(jf_batch *b)
{
    const jf_batch_options *o = &b->opt;
    const int count = o->shard.count; /* 0 or 1: no shards */
    jf_status st;
    int i;
    if (!o->output)
        return jf_fail(JF_ERR_ARG, "no output; add -o FILE (one input) or -o OUTDIR");
    if (o->input_count == 0)
        return jf_fail(JF_ERR_ARG, "no inputs; give files or folders");
    b->listing = 0;
    b->collect_time = (long long)time(NULL);
    if (o->single) {
        if ((st = collect_single(b)) == JF_ERR_NOMEM)
            return jf_fail(st, "out of memory while listing inputs");
        return st;
    }
    if (o->suffix && (strchr(o->suffix, '/') || !*o->suffix))
        return jf_fail(JF_ERR_ARG, "--suffix must be a non-empty name part without '/'");
    /* where the output will be, before creating anything: an output inside
     * an input is refused without a folder made */
    if (!resolve_future(o->output, b->out_real))
        return jf_fail(JF_ERR_ARG, "%s: cannot resolve the output folder", o->output);
    for (i = 0; i < o->input_count; i++) {
        struct stat sb;
        char real[PATH_MAX];
        if (!o->suffix && stat(o->inputs[i], &sb) == 0 && S_ISDIR(sb.st_mode) &&
            realpath(o->inputs[i], real) && path_within(b->out_real, real))
            return jf_fail(JF_ERR_ARG, "output folder %s is inside input folder %s; choose "
                           "another -o, or name outputs apart with --suffix", o->output,
                           o->inputs[i]);
    }
    if ((st = jf_mkdirs(o->output)) != JF_OK)
        return st;
    if (!realpath(o->output, b->out_real) || access(b->out_real, W_OK | X_OK) != 0)
        return jf_fail(JF_ERR_IO, "%s: output folder is not writable: %s", o->output,
                       strerror(errno));
    if (count > 1 && !(b->shard_files = (int *)calloc((size_t)count, sizeof *b->shard_files)))
        return jf_fail(JF_ERR_NOMEM, "out of memory while listing inputs");
    for (i = 0; i < o->input_count; i++)
        if ((st = collect_input(b, o->inputs[i])) != JF_OK)
            return st == JF_ERR_NOMEM ? jf_fail(st, "out of memory while listing inputs") : st;
    free(b->cleaned);
    b->cleaned = NULL;
    if (b->walk_files == 0)
        return jf_fail(JF_ERR_IO, "no JPEG or PNG files found in the inputs");
    if (b->stale_removed)
        logf_(b, 0, "jetfilter: removed %d temporary file%s that an interrupted run left behind",
              b->stale_removed, b->stale_removed == 1 ? "" : "s");
    return JF_OK;
}

/* ---- running ----------------------------------------------------------------- */

/* How the jobs use several devices.  The list's first device makes the
 * batch's first context, and every job starts on it.  Each other device
 * is started by a thread of its own, which keeps a context on it to the
 * batch's end: at once when it is warm (its JPEG engine already runs in
 * this process, as in serve), or else once the first device is measured
 * to be the bound (its files' GPU time adds up to the wall time of a
 * window: jobs wait on it).  Starting a device costs its context and its
 * JPEG engine, most of a second each; a batch the codecs bound gains
 * nothing from a second device, and paid for it (slower on two than on
 * one).  A job whose device is up moves to it between files. */
#define DEVICE_WINDOW_MS 250.0
/* ... and only while the batch has this much left at its pace: a device
 * that joined a batch's last second made it slower */
#define DEVICE_PAYS_MS 2000.0

typedef struct start_state {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int batch;           /* 0 wait, 1 go, -1 stop: the first context and the walk */
    jf_batch *b;
    const int *devices;  /* the list, and per entry: */
    int ndev;
    int *up;             /* 0 not up (yet), 1 up, -1 failed to start */
    pthread_t *opener;   /* its starting thread, when opened[] */
    int *opened;
    jf_context **keeper; /* the context that keeps it up */
    cpu_set_t *near;     /* the CPUs near it (NULL: jobs not placed) */
    int cold;            /* devices waiting for the measure (not opened) */
    double since, device_ms; /* the measure's window: its start, and GPU time in it */
} start_state;

typedef struct opener {
    start_state *start;
    int entry;
} opener;

typedef struct worker {
    jf_batch *b;
    start_state *start;
    int home;        /* the entry of the device list it belongs to */
    int on;          /* the entry its context is on */
    pthread_t tid;
    jf_context *ctx; /* made by the worker, or handed over (the first) */
    int started;
} worker;

static int wait_batch(start_state *s)
{
    int state;
    pthread_mutex_lock(&s->lock);
    while (s->batch == 0)
        pthread_cond_wait(&s->cond, &s->lock);
    state = s->batch;
    pthread_mutex_unlock(&s->lock);
    return state > 0;
}

static void set_batch(start_state *s, int state)
{
    pthread_mutex_lock(&s->lock);
    s->batch = state;
    pthread_cond_broadcast(&s->cond);
    pthread_mutex_unlock(&s->lock);
}

static int device_up(start_state *s, int entry)
{
    int up;
    pthread_mutex_lock(&s->lock);
    up = s->up[entry];
    pthread_mutex_unlock(&s->lock);
    return up;
}

/* A context on the list's entry, made by `b` on this thread after it is
 * placed near that device (the context's CPU threads inherit the place). */
static jf_status open_on(jf_batch *b, start_state *s, int entry, jf_context **out)
{
    jf_context_options opt = b->opt.context;
    opt.device = s->devices[entry];
    if (s->near)
        pthread_setaffinity_np(pthread_self(), sizeof *s->near, &s->near[entry]);
    return b->make_context(&opt, out);
}

static void *open_device(void *arg)
{
    opener *o = (opener *)arg;
    start_state *s = o->start;
    jf_context *ctx = NULL;
    char why[512];
    jf_status st = open_on(s->b, s, o->entry, &ctx);
    snprintf(why, sizeof why, "%s", st == JF_OK ? "" : jf_last_error());
    pthread_mutex_lock(&s->lock);
    s->keeper[o->entry] = ctx;
    s->up[o->entry] = st == JF_OK ? 1 : -1;
    pthread_mutex_unlock(&s->lock);
    if (st != JF_OK && wait_batch(s))
        logf_(s->b, 0, "jetfilter: device %d did not start (%s); its jobs run on device %d",
              s->devices[o->entry], why, s->devices[0]);
    free(o);
    return NULL;
}

/* Start the entry's device on a thread of its own (s->lock held). */
static void open_device_on_thread(start_state *s, int entry)
{
    opener *o = (opener *)malloc(sizeof *o);
    if (o) {
        o->start = s;
        o->entry = entry;
        if (pthread_create(&s->opener[entry], NULL, open_device, o) == 0) {
            s->opened[entry] = 1;
            return;
        }
        free(o);
    }
    s->up[entry] = -1; /* its jobs stay on the first device */
}

/* The GPU time of a file's stages (CUDA events; what the CPU did has no
 * device bandwidth). */
static double file_device_ms(const jf_batch_item *it)
{
    double ms = 0.0;
    size_t i;
    for (i = 0; i < it->stats_count; i++)
        if (it->stats[i].peak_gbps > 0.0)
            ms += it->stats[i].ms;
    return ms;
}

/* A file done on the first device: the measure that starts the others,
 * when what is left of the batch at its pace outlasts their start.  Only
 * while some device waits for it (one device: a lock, nothing else). */
static void measure_device(start_state *s, const jf_batch_item *it)
{
    const jf_batch *b = s->b;
    const double pays_ms = b->device_pays_ms > 0.0 ? b->device_pays_ms : DEVICE_PAYS_MS;
    double now, left_ms;
    int i, done;
    pthread_mutex_lock(&s->lock);
    if (s->cold) {
        now = jf_now_ms();
        s->device_ms += file_device_ms(it);
        if (now - s->since >= DEVICE_WINDOW_MS) {
            if (s->device_ms >= now - s->since) { /* the device has work all the time */
                /* s->lock, then g_lock: nothing takes them the other way */
                pthread_mutex_lock(&g_lock);
                done = b->done + 1; /* this file too */
                pthread_mutex_unlock(&g_lock);
                left_ms = (double)(b->count - done) * (now - b->started_ms) / done;
                for (i = 1; i < s->ndev && left_ms >= pays_ms; i++)
                    if (!s->opened[i] && s->up[i] == 0)
                        open_device_on_thread(s, i);
                s->cold = 0;
            }
            s->since = now;
            s->device_ms = 0.0;
        }
    }
    pthread_mutex_unlock(&s->lock);
}

/* A job working on the first device while its own is not up: moved, or
 * kept there for good when its device did not start or no context comes. */
static void move_home(worker *w)
{
    start_state *s = w->start;
    jf_context *ctx;
    int up = device_up(s, w->home);
    if (up == 0)
        return;
    if (up > 0 && open_on(w->b, s, w->home, &ctx) == JF_OK) {
        jf_context_destroy(w->ctx);
        w->ctx = ctx;
        w->on = w->home;
        return;
    }
    w->home = w->on;
    if (s->near) /* back near the device it stays on */
        pthread_setaffinity_np(pthread_self(), sizeof *s->near, &s->near[w->on]);
}

int jf_batch_place_jobs(const unsigned char *near, int devices, const unsigned char *allowed,
                        int cpus)
{
    int d, c, covered = 1, differ = 0;
    for (c = 0; c < cpus; c++) {
        int any = 0;
        for (d = 0; d < devices; d++) {
            any |= near[(size_t)d * cpus + c] && allowed[c];
            differ |= !near[(size_t)d * cpus + c] != !allowed[c];
        }
        covered &= any || !allowed[c];
    }
    for (d = 0; d < devices; d++) { /* each device near some CPU the process may use */
        int some = 0;
        for (c = 0; c < cpus; c++)
            some |= near[(size_t)d * cpus + c] && allowed[c];
        if (!some)
            return 0;
    }
    return devices > 1 && covered && differ;
}

/* The CPUs near each device of the list, when placing the jobs there pays:
 * NULL otherwise (one device, a CPU build, a machine whose devices are all
 * near every CPU, or devices that leave some CPUs far from all of them). */
static cpu_set_t *near_cpus(const int *devices, int ndev)
{
    unsigned char allowed[CPU_SETSIZE], *near;
    cpu_set_t mask, *sets = NULL;
    int d, c, ok = 1;
    if (ndev < 2 || !jf_built_with_cuda() ||
        pthread_getaffinity_np(pthread_self(), sizeof mask, &mask) != 0 ||
        !(near = (unsigned char *)calloc((size_t)ndev, CPU_SETSIZE)))
        return NULL;
    for (c = 0; c < CPU_SETSIZE; c++)
        allowed[c] = CPU_ISSET(c, &mask) != 0;
    for (d = 0; d < ndev && ok; d++) {
        jf_device_info info;
        char path[96], list[4096];
        FILE *f = NULL;
        size_t n = 0;
        ok = jf_device_query(devices[d], &info) == JF_OK && info.pci_bus_id[0];
        if (ok) {
            snprintf(path, sizeof path, "/sys/bus/pci/devices/%s/local_cpulist", info.pci_bus_id);
            ok = (f = fopen(path, "r")) != NULL;
        }
        if (ok) {
            n = fread(list, 1, sizeof list - 1, f);
            fclose(f);
            list[n] = '\0';
            ok = jf_cpu_list_parse(list, near + (size_t)d * CPU_SETSIZE, CPU_SETSIZE) > 0;
        }
    }
    if (ok && jf_batch_place_jobs(near, ndev, allowed, CPU_SETSIZE) &&
        (sets = (cpu_set_t *)calloc((size_t)ndev, sizeof *sets)) != NULL)
        for (d = 0; d < ndev; d++)
            for (c = 0; c < CPU_SETSIZE; c++)
                if (near[(size_t)d * CPU_SETSIZE + c] && allowed[c])
                    CPU_SET(c, &sets[d]);
    free(near);
    return sets;
}

int jf_batch_job_threads(int threads, int jobs)
{
    const int total = threads ? threads : jf_cpu_count();
    if (jobs < 1)
        jobs = 1;
    return total / jobs > 0 ? total / jobs : 1;
}

uint64_t jf_batch_default_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || size <= 0)
        return (uint64_t)1 << 31;
    return (uint64_t)pages * (uint64_t)size / 2;
}

/* Read the file and work out, from its structure alone, what decoding and
 * working on it will take; refuse a file that alone is over the budget.  A
 * file whose structure cannot be read is left to the decoder, which says
 * why it refuses it. */
static jf_status measure(jf_batch *b, jf_batch_item *it)
{
    unsigned char *bytes = NULL;
    size_t n = 0;
    jf_probe p;
    jf_status st;
    const size_t limit = (size_t)jf_get_limits().max_file_bytes;
    if ((st = it->from_stdin ? jf_read_fd(0, it->input, limit, &bytes, &n)
                             : jf_read_file(it->input, limit, &bytes, &n)) != JF_OK)
        return st;
    it->bytes = bytes;
    it->nbytes = n;
    if (jf_picture_probe(bytes, n, &p) != JF_OK) {
        it->memory = n;
        return JF_OK;
    }
    it->memory = b->opt.estimate ? b->opt.estimate(b->user, &p, n)
                                 : (uint64_t)n + 2 * p.decode_bytes;
    if (it->memory > b->opt.max_memory)
        return jf_fail(JF_ERR_LIMIT, "%s: %dx%d needs about %llu MB to process, over the memory "
                       "budget of %llu MB (--max-memory)", it->input, p.width, p.height,
                       (unsigned long long)(it->memory >> 20),
                       (unsigned long long)(b->opt.max_memory >> 20));
    return JF_OK;
}

/* Wait until the jobs in flight leave room in the budget for this file. */
static void reserve(jf_batch *b, jf_batch_item *it)
{
    pthread_mutex_lock(&g_lock);
    while (b->in_flight > 0 && b->memory_in_use + it->memory > b->opt.max_memory)
        pthread_cond_wait(&g_memory_freed, &g_lock);
    b->memory_in_use += it->memory;
    b->in_flight++;
    if (b->memory_in_use > b->memory_peak)
        b->memory_peak = b->memory_in_use;
    pthread_mutex_unlock(&g_lock);
}

static void release(jf_batch *b, jf_batch_item *it)
{
    pthread_mutex_lock(&g_lock);
    b->memory_in_use -= it->memory;
    b->in_flight--;
    pthread_cond_broadcast(&g_memory_freed);
    pthread_mutex_unlock(&g_lock);
    free((void *)it->bytes);
    it->bytes = NULL;
}

static void process(jf_batch *b, jf_batch_item *it, jf_context *ctx)
{
    double t0 = jf_now_ms();
    size_t n, i;
    struct stat sb;
    if (it->status != JF_OK)
        return; /* failed while listing */
    /* only a finished output is skipped: whole, and not older than its input
     * (a file at the name that is neither was not written by a finished run) */
    if (b->opt.skip_existing && strcmp(it->output, "-") != 0 && !it->from_stdin &&
        stat(it->output, &sb) == 0) {
        struct stat in;
        char why[160] = "";
        if (stat(it->input, &in) == 0 && (sb.st_mtime < in.st_mtime ||
            (sb.st_mtime == in.st_mtime && sb.st_mtim.tv_nsec < in.st_mtim.tv_nsec)))
            snprintf(why, sizeof why, "older than its input");
        else if (jf_file_whole_image(it->output, why, sizeof why)) {
            it->skipped = 1;
            return;
        }
        logf_(b, 1, "redo %s: %s exists but is not a finished output (%s)", it->input, it->output,
              why);
    }
    jf_stats_clear(ctx);
    jf_error_clear();
    it->status = measure(b, it);
    it->ms_read = jf_now_ms() - t0;
    if (it->status != JF_OK) {
        keep_error(it);
        free((void *)it->bytes);
        it->bytes = NULL;
        return;
    }
    reserve(b, it);
    it->ms_wait = jf_now_ms() - t0 - it->ms_read;
    it->status = b->work(b, it, ctx);
    release(b, it);
    it->ms_total = jf_now_ms() - t0;
    if (it->status != JF_OK)
        keep_error(it);
    n = jf_stats_count(ctx);
    if (n && (it->stats = (jf_stat *)malloc(n * sizeof *it->stats)) != NULL) {
        for (i = 0; i < n; i++)
            it->stats[i] = *jf_stats_at(ctx, i);
        it->stats_count = n;
    }
}

/* Counted, reported (on_done) and freed.  With g_lock. */
static void finish_item(jf_batch *b, jf_batch_item *it)
{
    b->done++;
    if (it->skipped)
        b->skipped++;
    else if (it->status != JF_OK)
        b->failed++;
    else
        b->mpix_done += (double)it->width * it->height / 1e6;
    if (b->on_done)
        b->on_done(b, it);
    free_item(it);
}

static jf_batch_item *next_item(jf_batch *b);

static void *work_loop(void *arg)
{
    worker *w = (worker *)arg;
    jf_batch *b = w->b;
    start_state *s = w->start;
    if (!w->ctx) { /* on its own device if that is up, else on the first */
        w->on = device_up(s, w->home) > 0 ? w->home : 0;
        if (open_on(b, s, w->on, &w->ctx) != JF_OK)
            return NULL; /* the others take this worker's share */
    }
    for (;;) {
        jf_batch_item *it = next_item(b);
        if (!it)
            break;
        if (w->on != w->home)
            move_home(w);
        if (it->status == JF_OK && b->opt.cancel && *b->opt.cancel) {
            fail_item(it, JF_ERR_ARG, "%s: not processed: the batch was cancelled", it->input);
        } else {
            it->device = b->backend == JF_BACKEND_CUDA ? s->devices[w->on] : -1;
            process(b, it, w->ctx);
            if (w->on == 0 && it->status == JF_OK)
                measure_device(s, it);
        }
        pthread_mutex_lock(&g_lock);
        finish_item(b, it);
        pthread_mutex_unlock(&g_lock);
    }
    jf_context_destroy(w->ctx);
    w->ctx = NULL;
    return NULL;
}

/* The next file for a job, walking as far as it takes; NULL at the end. */
static jf_batch_item *next_item(jf_batch *b)
{
    jf_batch_feed *f = b->feed;
    jf_batch_item *it;
    char folder[PATH_MAX];
    pthread_mutex_lock(&f->lock);
    while (!f->ready && !f->closed) {
        if (f->walker) {
            jf_walk_event ev;
            const char *path, *rel, *reason;
            int rc = jf_walker_next(f->walker, &ev, &path, &rel, &reason);
            if (rc == 1)
                rc = on_walk(b, ev, path, rel, reason) ? -1 : 1;
            if (rc <= 0) {
                jf_walker_close(f->walker);
                f->walker = NULL;
                f->out_of_memory = rc < 0;
                f->closed = rc < 0;
            }
        } else if (b->opt.single) {
            f->ready = b->single;
            b->single = NULL;
            f->closed = 1;
        } else if (f->input == b->opt.input_count) {
            f->closed = 1;
        } else {
            const char *in = b->opt.inputs[f->input++];
            if (!input_folder(in, folder)) {
                f->out_of_memory = collect_file(b, in) == JF_ERR_NOMEM;
                f->closed = f->out_of_memory;
            } else if (!(f->walker = jf_walker_open(folder, b->out_real, b->opt.max_depth))) {
                f->out_of_memory = f->closed = 1;
            }
        }
    }
    it = f->ready;
    f->ready = NULL;
    pthread_mutex_unlock(&f->lock);
    return it;
}

static jf_status start_walk(jf_batch *b)
{
    jf_batch_feed *f = (jf_batch_feed *)calloc(1, sizeof *f);
    if (!f)
        return jf_fail(JF_ERR_NOMEM, "out of memory");
    pthread_mutex_init(&f->lock, NULL);
    b->feed = f;
    b->listing = 1;
    return JF_OK;
}

/* After the jobs: what no job could take, and whether the walk agreed
 * with the count. */
static void end_walk(jf_batch *b)
{
    jf_batch_feed *f = b->feed;
    char why[512];
    jf_batch_item *it;
    snprintf(why, sizeof why, "%s", jf_last_error());
    while ((it = next_item(b)) != NULL) {
        if (it->status == JF_OK)
            fail_item(it, JF_ERR_NO_DEVICE, "%s: not processed: no job could start (%s)",
                      it->input, why);
        pthread_mutex_lock(&g_lock);
        finish_item(b, it);
        pthread_mutex_unlock(&g_lock);
    }
    if (f->out_of_memory)
        logf_(b, 0, "jetfilter: out of memory while listing the inputs: files after %d not "
              "processed", b->done);
    else if (!b->opt.single && (f->walk_files != b->walk_files || f->walk_digest != b->walk_digest))
        logf_(b, 0, "jetfilter: the inputs changed during the run: %d files when counted, %d "
              "when processed (the report's shard record has the count)", b->walk_files,
              f->walk_files);
}

jf_status jf_batch_run(jf_batch *b, jf_batch_work_fn work)
{
    jf_context_options *co = &b->opt.context;
    int jobs = b->opt.jobs < 1 ? 1 : b->opt.jobs, i;
    jf_context *first = NULL;
    worker *workers;
    start_state start;
    cpu_set_t caller;
    int caller_known;
    jf_status st;

    const int *devices = b->opt.devices && b->opt.device_count > 0 ? b->opt.devices : &co->device;
    const int ndev = b->opt.devices && b->opt.device_count > 0 ? b->opt.device_count : 1;
    if (ndev > jobs)
        jobs = ndev; /* every device gets a job */
    if (jobs > b->count)
        jobs = b->count;
    b->work = work;
    if (jobs == 0) { /* an empty shard: nothing to do, and no device needed */
        b->started_ms = jf_now_ms();
        return JF_OK;
    }
    if (!b->opt.max_memory)
        b->opt.max_memory = jf_batch_default_memory();
    co->threads = jf_batch_job_threads(b->opt.threads, jobs);
    co->device = devices[0];
    if (!b->make_context)
        b->make_context = jf_context_create;
    memset(&start, 0, sizeof start);
    start.b = b;
    start.devices = devices;
    start.ndev = ndev;
    workers = (worker *)calloc((size_t)jobs, sizeof *workers);
    start.up = (int *)calloc((size_t)ndev, sizeof *start.up);
    start.opened = (int *)calloc((size_t)ndev, sizeof *start.opened);
    start.opener = (pthread_t *)calloc((size_t)ndev, sizeof *start.opener);
    start.keeper = (jf_context **)calloc((size_t)ndev, sizeof *start.keeper);
    if (!workers || !start.up || !start.opened || !start.opener || !start.keeper) {
        free(workers);
        free(start.up);
        free(start.opened);
        free(start.opener);
        free(start.keeper);
        return jf_fail(JF_ERR_NOMEM, "out of memory");
    }
    start.up[0] = 1; /* made below, or the batch does not run */
    if (co->backend != JF_BACKEND_CPU)
        start.near = near_cpus(devices, ndev);
    caller_known = start.near && pthread_getaffinity_np(pthread_self(), sizeof caller, &caller) == 0;
    pthread_mutex_init(&start.lock, NULL);
    pthread_cond_init(&start.cond, NULL);
    for (i = 0; i < jobs; i++) {
        workers[i].b = b;
        workers[i].start = &start;
        workers[i].home = workers[i].on = i % ndev; /* as many jobs on each device */
    }
    /* warm devices start with the first (so do all where no stats measure
     * the first): their start is paid already */
    pthread_mutex_lock(&start.lock);
    for (i = 1; i < ndev && i < jobs; i++) {
        if (!co->stats || (b->device_warm ? b->device_warm : jf_nvjpeg_running)(devices[i]))
            open_device_on_thread(&start, i);
        else
            start.cold++;
    }
    pthread_mutex_unlock(&start.lock);
    /* the first context reports a missing device once and clearly, and then
     * serves as the first worker's: `jobs` contexts in all */
    if ((st = open_on(b, &start, 0, &first)) == JF_OK) {
        b->backend = jf_context_backend(first);
        snprintf(b->backend_note, sizeof b->backend_note, "%s", jf_context_note(first));
        /* a CPU-only build knows it has no GPU, and one file in, one file out is
         * quiet as convert is: both say it only with -v (the report keeps it) */
        if (b->backend_note[0])
            logf_(b, !jf_built_with_cuda() || b->opt.single, "jetfilter: %s", b->backend_note);
        if (start.near)
            logf_(b, 1, "jetfilter: each device's jobs run on the CPUs near it");
        st = start_walk(b);
    }
    if (st == JF_OK) {
        if (b->on_start)
            b->on_start(b);
        b->started_ms = start.since = jf_now_ms();
        workers[0].ctx = first;
        set_batch(&start, 1);
        for (i = 1; i < jobs; i++)
            workers[i].started = pthread_create(&workers[i].tid, NULL, work_loop, &workers[i]) == 0;
        work_loop(&workers[0]); /* the calling thread is the first worker */
    } else { /* the detail says why */
        set_batch(&start, -1);
        jf_context_destroy(first);
    }
    for (i = 1; i < jobs; i++)
        if (workers[i].started)
            pthread_join(workers[i].tid, NULL);
    for (i = 1; i < ndev; i++) {
        if (start.opened[i])
            pthread_join(start.opener[i], NULL);
        jf_context_destroy(start.keeper[i]);
    }
    if (caller_known)
        pthread_setaffinity_np(pthread_self(), sizeof caller, &caller);
    free(workers);
    free(start.up);
    free(start.opened);
    free(start.opener);
    free(start.keeper);
    free(start.near);
    pthread_cond_destroy(&start.cond);
    pthread_mutex_destroy(&start.lock);
    if (st == JF_OK)
        end_walk(b);
    return st;
}

void jf_batch_free(jf_batch *b)
{
    if (b->feed) {
        jf_walker_close(b->feed->walker);
        free_item(b->feed->ready);
        pthread_mutex_destroy(&b->feed->lock);
        free(b->feed->outputs);
        free(b->feed);
        b->feed = NULL;
    }
    free_item(b->single);
    b->single = NULL;
    free(b->cleaned);
    b->cleaned = NULL;
    free(b->shard_files);
    b->shard_files = NULL;
    b->count = 0;
}
