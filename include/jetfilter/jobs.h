/**
 * @file jetfilter/jobs.h
 * Batches of files in this process: what `jetfilter denoise` and
 * `jetfilter noise` do (the input trees mirrored into an output folder,
 * damaged files named and passed over, jobs at once, shards, the memory
 * budget, skip-existing, the codec choice, the report), as library calls.
 *
 *     jf_job *job;
 *     jf_job_create("denoise", &job);
 *     jf_job_add_input(job, "photos/");
 *     jf_job_set(job, "output", "clean/");
 *     jf_job_set(job, "filter", "nlmeans");
 *     jf_job_set(job, "jobs", "4");
 *     if (jf_job_run(job) == JF_OK)        // the batch ran; files may have failed
 *         puts(jf_job_report(job));        // the --json report
 *     jf_job_destroy(job);
 *
 * Options are the command's, by their long names as `jetfilter COMMAND
 * --help` lists them ("ksize", "skip-existing", "max-memory", ...), their
 * values as text, held to the same ranges and choices; the operation's
 * parameters come from the operation table.  One job runs at a time in a
 * process (the jobs use every core, or the GPU, between them); a second
 * jf_job_run waits for the first.  Since 1.9.
 */
#ifndef JETFILTER_JOBS_H
#define JETFILTER_JOBS_H

#include "jetfilter/base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct jf_job jf_job;

/** How far a batch is: passed after every file (and once, path NULL,
 *  when the files are known and none is done). */
typedef struct jf_job_progress {
    int done;         /**< files finished: ok, failed or skipped */
    int total;        /**< files of this batch (this shard's) */
    int failed;
    int skipped;
    double mpix;      /**< megapixels filtered so far */
    double seconds;   /**< since the files started */
    const char *path; /**< the file just finished, relative to its input; NULL at the start */
} jf_job_progress;

/** Called from the batch's worker threads, one call at a time; it must not
 *  run another job (that call is refused). */
typedef void (*jf_job_progress_fn)(void *user, const jf_job_progress *progress);
/** What the command line prints: errors (is_error 1), notes and, with
 *  "verbose", a line per file.  Without a callback nothing is printed. */
typedef void (*jf_job_message_fn)(void *user, int is_error, const char *text);

/** One file's result, valid until the next jf_job_run or jf_job_destroy. */
typedef struct jf_job_file {
    const char *input;  /**< the path as given or found */
    const char *path;   /**< relative to its input folder (or the file name) */
    const char *output; /**< written here; NULL when it failed */
    jf_status status;   /**< JF_OK, or why it failed */
    const char *error;  /**< the whole message; NULL when it did not fail */
    int skipped;        /**< left as it was (skip-existing) */
} jf_job_file;

/** A job of `command`: "denoise" or "noise"; or "report" (since 1.11),
 *  `jetfilter report merge`: its inputs are the --json reports of a run's
 *  shards, "output" the file of the merged report; its run refuses
 *  reports of different runs and files that are no report (JF_ERR_IO,
 *  naming them), and its jf_job_report is the merged report but its
 *  "files".  Errors: JF_ERR_ARG (another command), JF_ERR_NOMEM. */
JF_API jf_status jf_job_create(const char *command, jf_job **out);
/** Set option `name` (a long name without the dashes) to `value`; a flag
 *  takes NULL, "1" or "true" to set it and "0" or "false" to clear it.
 *  Errors: JF_ERR_ARG naming the option and what it takes (an unknown
 *  name: "unknown option '--NAME'"). */
JF_API jf_status jf_job_set(jf_job *job, const char *name, const char *value);
/** Add a file or folder to the inputs ("-": standard input). */
JF_API jf_status jf_job_add_input(jf_job *job, const char *path);
JF_API void jf_job_on_progress(jf_job *job, jf_job_progress_fn fn, void *user);
JF_API void jf_job_on_message(jf_job *job, jf_job_message_fn fn, void *user);
/** Run the batch.  JF_OK when it ran to its end, whether or not files
 *  failed (jf_job_file_get says which, and why); else nothing was done,
 *  and jf_last_error() says why: JF_ERR_ARG for settings that do not fit
 *  (no output, an output inside an input, an option another filter has),
 *  JF_ERR_NO_DEVICE, JF_ERR_IO, ... */
JF_API jf_status jf_job_run(jf_job *job);
/** Stop the run in progress (or the next, when none runs), from any
 *  thread or a callback: the files in hand finish, no other starts, and
 *  those left fail as "not processed: the batch was cancelled"; the run
 *  then returns JF_OK with its report, as a batch with failures does. */
JF_API void jf_job_cancel(jf_job *job);
/** Files of the last run, in the order they finished (the walk's order
 *  with one job), and the failed ones among them.  The job keeps a record
 *  per file; the batch itself does not (a run's memory does not otherwise
 *  grow with its files). */
JF_API int jf_job_file_count(const jf_job *job);
JF_API int jf_job_failed_count(const jf_job *job);
JF_API jf_status jf_job_file_get(const jf_job *job, int index, jf_job_file *out);
/** The last run's report, as `--json` writes it (docs/report.schema.json);
 *  NULL before a run or when it stopped before the files. */
JF_API const char *jf_job_report(const jf_job *job);
JF_API void jf_job_destroy(jf_job *job);

#ifdef __cplusplus
}
#endif

#endif /* JETFILTER_JOBS_H */
