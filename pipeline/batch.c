/*
 * The batch: which files, where their outputs go, and a pool of jobs that
 * works through them.  Each job has its own jf_context (its own CPU threads
 * or CUDA stream), so files are independent and a failure stays with its file.
 */
#define _DEFAULT_SOURCE
#include "pipeline/batch.h"
#include "core/errors.h"
#include "core/util.h"
#include "io/io.h"

#include <errno.h>
#include <pthread.h>
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
    if (dot && o->extension && jf_has_image_extension(rel) &&
        (strcasecmp(o->extension, ".png") == 0) == (strcasecmp(dot, ".png") == 0))
        ext = dot;
    n = strlen(o->output) + 1 + stem_len + (o->suffix ? strlen(o->suffix) : 0) + strlen(ext) + 1;
    out = (char *)malloc(n);
    if (out)
        snprintf(out, n, "%s/%.*s%s%s", o->output, (int)stem_len, rel, o->suffix ? o->suffix : "",
                 ext);
    return out;
}

static int add_item(jf_batch *b, const char *path, const char *rel)
{
    jf_batch_item *it;
    if (b->count == b->cap) {
        int cap = b->cap ? b->cap * 2 : 64;
        jf_batch_item *grown = (jf_batch_item *)realloc(b->items, (size_t)cap * sizeof *grown);
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
    if (!it->input || !it->rel || !it->output) {
        free(it->input);
        free(it->rel);
        free(it->output);
        return 1;
    }
    b->count++;
    return 0;
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

/* An input that cannot be read is one failed item, named in the summary. */
static int add_failed(jf_batch *b, const char *path, const char *rel, const char *reason)
{
    if (add_item(b, path, rel[0] ? rel : path))
        return 1;
    fail_item(&b->items[b->count - 1], JF_ERR_IO, "%s: cannot read: %s", path, reason);
    return 0;
}

/* Files found in folders: with --suffix, earlier outputs ("x_dn.jpg") are
 * passed over, so a second run does not filter its own results again. */
static int on_walk(void *user, jf_walk_event ev, const char *path, const char *rel,
                   const char *reason)
{
    jf_batch *b = (jf_batch *)user;
    const char *suffix = b->opt.suffix;
    const char *base, *dot;
    size_t stem, n;
    switch (ev) {
    case JF_WALK_OTHER:
        b->ignored++;
        if (reason)
            logf_(b, 1, "pass %s (%s; not an image's name)", path, reason);
        return 0;
    case JF_WALK_PASSED:
        b->passed++;
        logf_(b, 1, "pass %s (%s)", path, reason);
        return 0;
    case JF_WALK_FAILED:
        return add_failed(b, path, rel, reason);
    case JF_WALK_IMAGE:
        break;
    }
    base = strrchr(rel, '/');
    base = base ? base + 1 : rel;
    dot = strrchr(base, '.');
    stem = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    n = suffix ? strlen(suffix) : 0;
    if (n && stem >= n && strncmp(base + stem - n, suffix, n) == 0) {
        b->earlier_outputs++;
        logf_(b, 1, "pass %s (named as an output of --suffix %s)", path, suffix);
        return 0;
    }
    return add_item(b, path, rel);
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

static int cmp_output(const void *a, const void *b)
{
    const jf_batch_item *x = *(const jf_batch_item *const *)a;
    const jf_batch_item *y = *(const jf_batch_item *const *)b;
    return strcmp(x->output, y->output);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Temporaries that killed runs left in the folders this run writes. */
static void clean_output_folders(jf_batch *b, long long started)
{
    char **dirs = (char **)malloc(sizeof *dirs * (size_t)b->count);
    int i, n = 0;
    if (!dirs)
        return;
    for (i = 0; i < b->count; i++) {
        const char *slash = strrchr(b->items[i].output, '/');
        size_t len = slash ? (size_t)(slash - b->items[i].output) : 0;
        if (len && (n == 0 || strncmp(dirs[n - 1], b->items[i].output, len) != 0 ||
                    dirs[n - 1][len] != '\0') &&
            (dirs[n] = strndup(b->items[i].output, len)) != NULL)
            n++;
    }
    qsort(dirs, (size_t)n, sizeof *dirs, cmp_str);
    for (i = 0; i < n; i++)
        if (i == 0 || strcmp(dirs[i], dirs[i - 1]) != 0)
            b->stale_removed += jf_remove_stale_temporaries(dirs[i], started);
    for (i = 0; i < n; i++)
        free(dirs[i]);
    free(dirs);
    if (b->stale_removed)
        logf_(b, 0, "jetfilter: removed %d temporary file%s that an interrupted run left behind",
              b->stale_removed, b->stale_removed == 1 ? "" : "s");
}

/* One output per name, and never an input overwritten. */
static jf_status check_outputs(jf_batch *b)
{
    jf_batch_item **order = (jf_batch_item **)malloc(sizeof *order * (size_t)b->count);
    int i;
    if (!order)
        return jf_fail(JF_ERR_NOMEM, "out of memory while listing inputs");
    for (i = 0; i < b->count; i++)
        order[i] = &b->items[i];
    qsort(order, (size_t)b->count, sizeof *order, cmp_output);
    for (i = 1; i < b->count; i++)
        if (strcmp(order[i]->output, order[i - 1]->output) == 0 && order[i]->status == JF_OK)
            fail_item(order[i], JF_ERR_IO, "%s: output %s is also written for another input",
                      order[i]->input, order[i]->output);
    free(order);
    for (i = 0; i < b->count; i++) {
        jf_batch_item *it = &b->items[i];
        char in_real[PATH_MAX], out_path[PATH_MAX];
        int n;
        if (it->status != JF_OK || !realpath(it->input, in_real))
            continue;
        n = snprintf(out_path, sizeof out_path, "%s/%s", b->out_real,
                     it->output + strlen(b->opt.output) + 1);
        if (n < 0 || (size_t)n >= sizeof out_path)
            continue;
        if (strcmp(in_real, out_path) == 0)
            fail_item(it, JF_ERR_IO, "%s: refusing to overwrite the input (choose another -o or "
                      "--suffix)", it->input);
    }
    return JF_OK;
}

static void free_item(jf_batch_item *it)
{
    free(it->message);
    free(it->input);
    free(it->rel);
    free(it->output);
    free(it->stats);
}

/* Count the whole walk (for the merge of shard reports), then keep only
 * this shard's files, in walk order. */
static jf_status apply_shard(jf_batch *b)
{
    const int count = b->opt.shard.count > 1 ? b->opt.shard.count : 1;
    int i, kept = 0;
    b->walk_files = b->count;
    b->walk_digest = 0;
    for (i = 0; i < b->count; i++)
        b->walk_digest += jf_shard_hash(b->items[i].rel, strlen(b->items[i].rel));
    if (count == 1)
        return JF_OK;
    if (!(b->shard_files = (int *)calloc((size_t)count, sizeof *b->shard_files)))
        return jf_fail(JF_ERR_NOMEM, "out of memory while listing inputs");
    for (i = 0; i < b->count; i++) {
        int shard = jf_shard_of(b->items[i].rel, count);
        b->shard_files[shard]++;
        if (shard == b->opt.shard.index)
            b->items[kept++] = b->items[i];
        else
            free_item(&b->items[i]);
    }
    b->count = kept;
    return JF_OK;
}

/* A named input that is not a folder: a regular file, or a refusal (FIFOs
 * and devices are never opened, so never waited on). */
static jf_status collect_file(jf_batch *b, const char *in)
{
    struct stat sb;
    const char *name = strrchr(in, '/') ? strrchr(in, '/') + 1 : in;
    if (stat(in, &sb) != 0)
        return add_failed(b, in, in, strerror(errno)) ? JF_ERR_NOMEM : JF_OK;
    if (add_item(b, in, name))
        return JF_ERR_NOMEM;
    if (!S_ISREG(sb.st_mode))
        fail_item(&b->items[b->count - 1], JF_ERR_IO, "%s: not a regular file (%s); refused", in,
                  S_ISFIFO(sb.st_mode) ? "a FIFO" : S_ISSOCK(sb.st_mode) ? "a socket" : "a device");
    return JF_OK;
}

/* A named input: a folder to walk, or a file. */
static jf_status collect_input(jf_batch *b, const char *in)
{
    struct stat sb;
    if (stat(in, &sb) != 0)
        return add_failed(b, in, in, strerror(errno)) ? JF_ERR_NOMEM : JF_OK;
    if (S_ISDIR(sb.st_mode)) {
        char real[PATH_MAX];
        if (realpath(in, real) && path_within(b->out_real, real) && !b->opt.suffix)
            return jf_fail(JF_ERR_ARG, "output folder %s is inside input folder %s; choose "
                           "another -o, or name outputs apart with --suffix", b->opt.output, in);
        {   /* "in/" walks as "in": names print as in/x.png, not in//x.png */
            char folder[PATH_MAX];
            size_t n = strlen(in);
            while (n > 1 && in[n - 1] == '/')
                n--;
            snprintf(folder, sizeof folder, "%.*s", (int)n, in);
            return jf_walk(folder, b->out_real, b->opt.max_depth, on_walk, b) ? JF_ERR_NOMEM : JF_OK;
        }
    }
    return collect_file(b, in);
}

/* One input to one output file: no walk, no folder made, no names made up. */
static jf_status collect_single(jf_batch *b)
{
    const jf_batch_options *o = &b->opt;
    const char *in = o->inputs[0];
    const int from_stdin = strcmp(in, "-") == 0;
    struct stat isb, osb;
    jf_batch_item *it;
    if (o->input_count != 1)
        return jf_fail(JF_ERR_ARG, "-o %s names one file, but %d inputs are given; give a "
                       "folder to -o", o->output, o->input_count);
    if (!from_stdin && stat(in, &isb) == 0 && S_ISDIR(isb.st_mode))
        return jf_fail(JF_ERR_ARG, "-o %s names a file, but %s is a folder; give a folder to -o",
                       o->output, in);
    if (from_stdin) {
        if (add_item(b, JF_STDIN_NAME, "stdin"))
            return JF_ERR_NOMEM;
    } else if ((collect_file(b, in)) != JF_OK) {
        return JF_ERR_NOMEM;
    }
    it = &b->items[b->count - 1];
    it->from_stdin = from_stdin;
    free(it->output);
    if (!(it->output = strdup(o->output)))
        return JF_ERR_NOMEM;
    /* never the input itself, whatever path names it */
    if (!from_stdin && it->status == JF_OK && strcmp(o->output, "-") != 0 &&
        stat(in, &isb) == 0 && stat(o->output, &osb) == 0 && isb.st_dev == osb.st_dev &&
        isb.st_ino == osb.st_ino)
        fail_item(it, JF_ERR_IO, "%s: refusing to overwrite the input", in);
    return apply_shard(b);
}

jf_status jf_batch_collect(jf_batch *b)
{
    const jf_batch_options *o = &b->opt;
    const long long started = (long long)time(NULL);
    jf_status st;
    int i;
    if (!o->output)
        return jf_fail(JF_ERR_ARG, "no output; add -o FILE (one input) or -o OUTDIR");
    if (o->input_count == 0)
        return jf_fail(JF_ERR_ARG, "no inputs; give files or folders");
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
    for (i = 0; i < o->input_count; i++)
        if ((st = collect_input(b, o->inputs[i])) != JF_OK)
            return st == JF_ERR_NOMEM ? jf_fail(st, "out of memory while listing inputs") : st;
    if (b->count == 0)
        return jf_fail(JF_ERR_IO, "no JPEG or PNG files found in the inputs");
    if ((st = apply_shard(b)) != JF_OK || (st = check_outputs(b)) != JF_OK)
        return st;
    clean_output_folders(b, started);
    return JF_OK;
}

/* ---- running ----------------------------------------------------------------- */

typedef struct worker {
    jf_batch *b;
    int device;      /* its CUDA device */
    pthread_t tid;
    jf_context *ctx; /* made by the worker, or handed over (the first) */
    int started;
} worker;

int jf_batch_job_threads(int threads, int jobs)
{
    const int total = threads ? threads : jf_cpu_count();
    if (jobs < 1)
        jobs = 1;
    return total / jobs > 0 ? total / jobs : 1;
}

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_memory_freed = PTHREAD_COND_INITIALIZER;

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
}

static void *work_loop(void *arg)
{
    worker *w = (worker *)arg;
    jf_batch *b = w->b;
    jf_context_options opt = b->opt.context;
    opt.device = w->device;
    if (!w->ctx && b->make_context(&opt, &w->ctx) != JF_OK)
        w->ctx = NULL; /* the others take this worker's share */
    for (;;) {
        jf_batch_item *it;
        pthread_mutex_lock(&g_lock);
        if (b->next >= b->count || !w->ctx || (b->opt.cancel && *b->opt.cancel)) {
            pthread_mutex_unlock(&g_lock);
            break;
        }
        it = &b->items[b->next++];
        pthread_mutex_unlock(&g_lock);
        it->device = b->backend == JF_BACKEND_CUDA ? w->device : -1;
        process(b, it, w->ctx);
        pthread_mutex_lock(&g_lock);
        finish_item(b, it);
        pthread_mutex_unlock(&g_lock);
    }
    jf_context_destroy(w->ctx);
    w->ctx = NULL;
    return NULL;
}

void jf_batch_jpeg_inputs(const jf_batch *b, int *files, double *bytes)
{
    int i;
    *files = 0;
    *bytes = 0.0;
    for (i = 0; i < b->count; i++) {
        const jf_batch_item *it = &b->items[i];
        unsigned char head[8];
        struct stat st;
        size_t n;
        FILE *f;
        if (it->status != JF_OK || it->from_stdin || stat(it->input, &st) != 0 ||
            !S_ISREG(st.st_mode) || !(f = fopen(it->input, "rb")))
            continue;
        n = fread(head, 1, sizeof head, f);
        fclose(f);
        if (jf_sniff_format(head, n) == JF_FORMAT_JPEG) {
            (*files)++;
            *bytes += (double)st.st_size;
        }
    }
}

jf_status jf_batch_run(jf_batch *b, jf_batch_work_fn work)
{
    jf_context_options *co = &b->opt.context;
    int jobs = b->opt.jobs < 1 ? 1 : b->opt.jobs, i;
    char why[512];
    jf_context *first = NULL;
    worker *workers;

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
    /* the first context reports a missing device once and clearly, and then
     * serves as the first worker's: `jobs` contexts in all */
    jf_status st;
    if ((st = b->make_context(co, &first)) != JF_OK)
        return st; /* the detail says why */
    b->backend = jf_context_backend(first);
    snprintf(b->backend_note, sizeof b->backend_note, "%s", jf_context_note(first));
    /* a CPU-only build knows it has no GPU, and one file in, one file out is
     * quiet as convert is: both say it only with -v (the report keeps it) */
    if (b->backend_note[0])
        logf_(b, !jf_built_with_cuda() || b->opt.single, "jetfilter: %s", b->backend_note);
    b->started_ms = jf_now_ms();
    if (!(workers = (worker *)calloc((size_t)jobs, sizeof *workers))) {
        jf_context_destroy(first);
        return jf_fail(JF_ERR_NOMEM, "out of memory");
    }
    for (i = 0; i < jobs; i++) {
        workers[i].b = b;
        workers[i].device = devices[i % ndev]; /* round robin: jobs spread evenly */
    }
    workers[0].ctx = first;
    for (i = 1; i < jobs; i++)
        workers[i].started = pthread_create(&workers[i].tid, NULL, work_loop, &workers[i]) == 0;
    work_loop(&workers[0]); /* the calling thread is the first worker */
    for (i = 1; i < jobs; i++)
        if (workers[i].started)
            pthread_join(workers[i].tid, NULL);
    free(workers);
    /* items nobody could take: every context failed after the first */
    snprintf(why, sizeof why, "%s", jf_last_error());
    for (; b->next < b->count; b->next++) {
        jf_batch_item *it = &b->items[b->next];
        if (it->status == JF_OK && b->opt.cancel && *b->opt.cancel)
            fail_item(it, JF_ERR_ARG, "%s: not processed: the batch was cancelled", it->input);
        else if (it->status == JF_OK)
            fail_item(it, JF_ERR_NO_DEVICE, "%s: not processed: no job could start (%s)",
                      it->input, why);
        finish_item(b, it);
    }
    return JF_OK;
}

void jf_batch_free(jf_batch *b)
{
    int i;
    for (i = 0; i < b->count; i++)
        free_item(&b->items[i]);
    free(b->items);
    b->items = NULL;
    free(b->shard_files);
    b->shard_files = NULL;
    b->count = b->cap = 0;
}
