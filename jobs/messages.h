/* A command's messages: errors, notes and how far a batch is, to one sink.
 * The command line's sink prints them on standard error (with a progress
 * line on a terminal); a library caller's sink is its callbacks; without
 * one set they go to standard error.  The sink is the process's: one job
 * runs at a time (jobs/job.c holds the lock). */
#ifndef JF_JOBS_MESSAGES_H
#define JF_JOBS_MESSAGES_H

#include "jetfilter.h"

#include <stdio.h>

typedef struct job_sink {
    /* one message, whole, without a newline (file names raw: any byte but
     * '/' and NUL) */
    void (*message)(void *user, int is_error, const char *text);
    /* after each file of a batch, and once before the first (path NULL);
     * `single`: one file in, one file out */
    void (*progress)(void *user, const jf_job_progress *p, int single);
    void *user;
} job_sink;

/* The sink from now on (NULL, or no message callback: standard error);
 * the one it replaces, to be set back. */
job_sink job_sink_set(const job_sink *sink);

/* An error: to the sink, and the first of a command kept (serve's answers
 * and jf_job_run's error carry it); job_error_reset() forgets it. */
void job_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
const char *job_error_first(void);
void job_error_reset(void);
/* Why a command stopped before its files (the first said), for
 * jf_job_run's status; JF_ERR_IO when none was said. */
void job_stopped(jf_status status);
jf_status job_error_status(void);

/* A note or a line of a report, to the sink. */
void job_log(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* --quiet: errors only. */
extern int job_quiet;

/* From now on this thread's messages go nowhere but its first error into
 * buf (NULL: to the sink again): settings checked while a job of another
 * thread holds the sink. */
void job_capture(char *buf, size_t size);

/* Messages carry file names, which may hold any byte but '/' and NUL: a
 * newline or an escape sequence in a name is printed as \xNN, never raw. */
void job_put_escaped(FILE *f, const char *s);

/* How far the batch is, to the sink's progress. */
void job_progress(const jf_job_progress *p, int single);

#endif
