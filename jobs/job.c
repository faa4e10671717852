/* Batches as library calls (jetfilter/jobs.h): a job holds a command's
 * settings, set by name through the option table, and runs the command
 * here, its messages and progress to the caller's callbacks, its report and
 * each file's result kept for the caller. */
#define _POSIX_C_SOURCE 200809L
#include "jobs/jobs.h"
#include "core/errors.h"
#include "io/io.h"
#include "pipeline/batch.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct jf_job {
    int command;               /* CMD_DENOISE, CMD_NOISE or CMD_REPORT */
    const char *name;          /* "denoise", "noise", "report" */
    job_settings s;
    int input_cap;
    char **owned;              /* every text the settings point at */
    int owned_count, owned_cap;
    jf_job_progress_fn on_progress;
    void *progress_user;
    jf_job_message_fn on_message;
    void *message_user;
    volatile int cancel;       /* jf_job_cancel: no file starts after it */
    /* the last run */
    char *report;
    jf_job_file *files;        /* their texts are the job's (freed with them) */
    int file_count, file_cap, failed;
};

/* One job at a time: the jobs share the process's limits, message sink and
 * codec settings, and use every core or the GPU between them. */
static pthread_mutex_t g_run_lock = PTHREAD_MUTEX_INITIALIZER;
/* A callback of a running job that starts another would wait forever. */
static __thread int t_in_callback;

static const struct {
    const char *name;
    int command;
} COMMANDS[] = {{"denoise", CMD_DENOISE}, {"noise", CMD_NOISE}, {"report", CMD_REPORT}};

static char *keep_text(jf_job *job, const char *text)
{
    char *copy;
    if (job->owned_count == job->owned_cap) {
        int cap = job->owned_cap ? job->owned_cap * 2 : 16;
        char **grown = (char **)realloc(job->owned, (size_t)cap * sizeof *grown);
        if (!grown)
            return NULL;
        job->owned = grown;
        job->owned_cap = cap;
    }
    if (!(copy = strdup(text)))
        return NULL;
    job->owned[job->owned_count++] = copy;
    return copy;
}

/* The first message of a refusal becomes the call's error. */
static jf_status refused(jf_status st, const char *why)
{
    return jf_fail(st, "%s", why[0] ? why : "the job was refused");
}

jf_status jf_job_create(const char *command, jf_job **out)
{
    jf_job *job;
    size_t i;
    char why[1024];
    int ok;
    if (!out)
        return jf_fail(JF_ERR_ARG, "jf_job_create: out is NULL");
    *out = NULL;
    for (i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
        if (command && strcmp(command, COMMANDS[i].name) == 0)
            break;
    if (i == sizeof COMMANDS / sizeof COMMANDS[0])
        return jf_fail(JF_ERR_ARG, "jf_job_create: no batch command '%s' (denoise, noise, report)",
                       command ? command : "(null)");
    if (!(job = (jf_job *)calloc(1, sizeof *job)))
        return jf_fail(JF_ERR_NOMEM, "jf_job_create: out of memory");
    job->command = COMMANDS[i].command;
    job->name = COMMANDS[i].name;
    job->input_cap = 16;
    job_capture(why, sizeof why); /* settings are checked without the sink */
    ok = job_settings_init(job->command, job->name, &job->s, job->input_cap) == 0 &&
         job_settings_finish(job->command, job->name, &job->s) == 0;
    job_capture(NULL, 0);
    if (!ok) {
        jf_status st = refused(JF_ERR_ARG, why);
        jf_job_destroy(job);
        return st;
    }
    *out = job;
    return JF_OK;
}

jf_status jf_job_set(jf_job *job, const char *name, const char *value)
{
    const job_option *o;
    const char *kept = NULL;
    job_settings before;
    char why[1024];
    int rc;
    if (!job || !name)
        return jf_fail(JF_ERR_ARG, "jf_job_set: %s is NULL", job ? "name" : "job");
    o = job_option_long(job->command, name, strlen(name));
    if (!o || o->alias_of)
        return jf_fail(JF_ERR_ARG, "jetfilter %s: unknown option '--%s'", job->name, name);
    if (o->type == OPT_FLAG) {
        int on;
        if (!value || strcmp(value, "1") == 0 || strcmp(value, "true") == 0)
            on = 1;
        else if (strcmp(value, "0") == 0 || strcmp(value, "false") == 0)
            on = 0;
        else
            return jf_fail(JF_ERR_ARG, "jetfilter %s: --%s is a flag: 1 or true, 0 or false, "
                           "not '%s'", job->name, name, value);
        *(int *)((char *)&job->s + o->offset) = on;
        return JF_OK;
    }
    if (value && !(kept = keep_text(job, value)))
        return jf_fail(JF_ERR_NOMEM, "jf_job_set: out of memory");
    before = job->s;
    job_capture(why, sizeof why);
    rc = job_option_set(job->name, &job->s, o, kept);
    if (rc == 0 && o->offset == offsetof(job_settings, device_text))
        rc = job_settings_finish(job->command, job->name, &job->s);
    job_capture(NULL, 0);
    if (rc)
        job->s = before; /* a refused value leaves the setting as it was */
    return rc ? refused(JF_ERR_ARG, why) : JF_OK;
}

jf_status jf_job_add_input(jf_job *job, const char *path)
{
    const char *kept;
    if (!job || !path)
        return jf_fail(JF_ERR_ARG, "jf_job_add_input: %s is NULL", job ? "path" : "job");
    if (!path[0])
        return jf_fail(JF_ERR_ARG, "jf_job_add_input: an empty path");
    if (job->s.input_count == job->input_cap) {
        int cap = job->input_cap * 2;
        const char **grown = (const char **)realloc((void *)job->s.inputs,
                                                    (size_t)(cap + 1) * sizeof *grown);
        if (!grown)
            return jf_fail(JF_ERR_NOMEM, "jf_job_add_input: out of memory");
        job->s.inputs = grown;
        job->input_cap = cap;
    }
    if (!(kept = keep_text(job, path)))
        return jf_fail(JF_ERR_NOMEM, "jf_job_add_input: out of memory");
    job->s.inputs[job->s.input_count++] = kept;
    job->s.inputs[job->s.input_count] = NULL;
    return JF_OK;
}

void jf_job_on_progress(jf_job *job, jf_job_progress_fn fn, void *user)
{
    if (job) {
        job->on_progress = fn;
        job->progress_user = user;
    }
}

void jf_job_cancel(jf_job *job)
{
    if (job)
        __atomic_store_n(&job->cancel, 1, __ATOMIC_SEQ_CST);
}

const volatile int *job_cancel_flag(jf_job *job) { return &job->cancel; }

void jf_job_on_message(jf_job *job, jf_job_message_fn fn, void *user)
{
    if (job) {
        job->on_message = fn;
        job->message_user = user;
    }
}

static void forget_run(jf_job *job)
{
    int i;
    free(job->report);
    job->report = NULL;
    for (i = 0; i < job->file_count; i++) {
        free((void *)job->files[i].input);
        free((void *)job->files[i].path);
        free((void *)job->files[i].output);
        free((void *)job->files[i].error);
    }
    free(job->files);
    job->files = NULL;
    job->file_count = job->file_cap = job->failed = 0;
}

void job_keep_report(jf_job *job, char *text)
{
    free(job->report);
    job->report = text;
}

static const char *copy_text(const char *text) { return text ? strdup(text) : NULL; }

/* Out of memory, a file is left out: the counts and the report still tell. */
void job_keep_file(jf_job *job, const jf_batch_item *it)
{
    jf_job_file *f;
    job->failed += it->status != JF_OK;
    if (job->file_count == job->file_cap) {
        int cap = job->file_cap ? job->file_cap * 2 : 64;
        jf_job_file *grown = (jf_job_file *)realloc(job->files, (size_t)cap * sizeof *grown);
        if (!grown)
            return;
        job->files = grown;
        job->file_cap = cap;
    }
    f = &job->files[job->file_count++];
    memset(f, 0, sizeof *f);
    f->input = copy_text(it->input);
    f->path = copy_text(it->rel);
    f->output = it->status == JF_OK ? copy_text(it->output) : NULL;
    f->status = it->status;
    f->error = it->status != JF_OK
                   ? copy_text(it->message ? it->message : jf_status_str(it->status))
                   : NULL;
    f->skipped = it->skipped;
}

/* The sink of a job: the caller's callbacks, marked as callbacks. */
static void sink_message(void *user, int is_error, const char *text)
{
    jf_job *job = (jf_job *)user;
    if (!job->on_message)
        return;
    t_in_callback = 1;
    job->on_message(job->message_user, is_error, text);
    t_in_callback = 0;
}

static void sink_progress(void *user, const jf_job_progress *p, int single)
{
    jf_job *job = (jf_job *)user;
    (void)single;
    if (!job->on_progress)
        return;
    t_in_callback = 1;
    job->on_progress(job->progress_user, p);
    t_in_callback = 0;
}

jf_status jf_job_run(jf_job *job)
{
    const job_sink sink = {sink_message, sink_progress, job};
    job_sink old;
    const jf_limits limits = jf_get_limits();
    const int sync = jf_sync_writes(), check = jf_gpu_jpeg_check(), quiet = job_quiet;
    job_settings s;
    char why[1024];
    jf_status stopped;
    int rc;
    if (!job)
        return jf_fail(JF_ERR_ARG, "jf_job_run: job is NULL");
    if (t_in_callback)
        return jf_fail(JF_ERR_ARG, "jf_job_run: called from a callback of a running job "
                                   "(it would wait for itself)");
    pthread_mutex_lock(&g_run_lock);
    forget_run(job);
    job_error_reset();
    old = job_sink_set(&sink);
    job_quiet = job->s.quiet;
    s = job->s; /* a run may fill in what it decides (the format of -o FILE) */
    if ((rc = job_settings_finish(job->command, job->name, &s)) == 0) {
        if (job->command == CMD_REPORT) { /* reads reports: no images, no limits */
            rc = job_report_merge(&s, job);
        } else if ((rc = job_apply_limits(&s, job->name)) == 0) {
            job_use_profiles();
            rc = job->command == CMD_NOISE ? job_noise(&s, job) : job_denoise(&s, job);
        }
    }
    jf_set_limits(&limits);
    jf_set_sync_writes(sync);
    jf_set_gpu_jpeg_check(check);
    job_quiet = quiet;
    job_sink_set(&old);
    __atomic_store_n(&job->cancel, 0, __ATOMIC_SEQ_CST); /* for the next run */
    snprintf(why, sizeof why, "%s", job_error_first());
    stopped = rc == JF_EXIT_USAGE ? JF_ERR_ARG : job_error_status();
    pthread_mutex_unlock(&g_run_lock);
    if (job->report || rc == JF_EXIT_OK)
        return JF_OK; /* the batch ran; the files say what failed */
    return refused(stopped, why);
}

int jf_job_file_count(const jf_job *job) { return job ? job->file_count : 0; }

int jf_job_failed_count(const jf_job *job) { return job ? job->failed : 0; }

jf_status jf_job_file_get(const jf_job *job, int index, jf_job_file *out)
{
    if (!job || !out)
        return jf_fail(JF_ERR_ARG, "jf_job_file_get: %s is NULL", job ? "out" : "job");
    if (index < 0 || index >= job->file_count)
        return jf_fail(JF_ERR_ARG, "jf_job_file_get: no file %d (the run had %d)", index,
                       job->file_count);
    *out = job->files[index];
    return JF_OK;
}

const char *jf_job_report(const jf_job *job) { return job ? job->report : NULL; }

void jf_job_destroy(jf_job *job)
{
    int i;
    if (!job)
        return;
    forget_run(job);
    for (i = 0; i < job->owned_count; i++)
        free(job->owned[i]);
    free(job->owned);
    free((void *)job->s.inputs);
    free(job);
}

/* ---- what the command line and a job share ------------------------------------ */

int job_apply_limits(const job_settings *s, const char *cmd)
{
    jf_limits l = jf_limits_defaults();
    l.max_pixels = (uint64_t)(s->max_mpix * 1e6);
    if (s->max_metadata_mb > 0) {
        l.max_metadata_bytes = (uint64_t)(s->max_metadata_mb * 1048576.0);
        l.max_chunk_bytes = l.max_metadata_bytes / 2 ? l.max_metadata_bytes / 2 : 1;
    }
    if (s->max_scans > 0)
        l.max_scans = s->max_scans;
    if (s->max_markers > 0)
        l.max_markers = s->max_markers;
    if (s->max_pages > 0)
        l.max_pages = s->max_pages;
    if (jf_set_limits(&l) != JF_OK) {
        job_error("jetfilter %s: %s", cmd, jf_last_error());
        return JF_EXIT_USAGE;
    }
    jf_set_sync_writes(!s->no_sync);
    jf_set_gpu_jpeg_check(!s->trust_input);
    return 0;
}

