/* A command's messages, to the sink its caller set (jobs/messages.h). */
#include "jobs/messages.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int job_quiet = 0;

static job_sink g_sink;

/* The first error of the command being run. */
static char g_first_error[1024];

void job_put_escaped(FILE *f, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c < 0x20 || c == 0x7F)
            fprintf(f, "\\x%02x", c);
        else
            fputc(c, f);
    }
}

/* Without a sink: standard error. */
static void to_stderr(const char *msg)
{
    job_put_escaped(stderr, msg);
    fputc('\n', stderr);
    fflush(stderr);
}

job_sink job_sink_set(const job_sink *sink)
{
    job_sink old = g_sink;
    if (sink)
        g_sink = *sink;
    else
        memset(&g_sink, 0, sizeof g_sink);
    return old;
}

/* A thread checking settings keeps its first error here instead. */
static __thread char *t_capture;
static __thread size_t t_capture_size;

void job_capture(char *buf, size_t size)
{
    t_capture = buf;
    t_capture_size = size;
    if (buf && size)
        buf[0] = '\0';
}

static void say(int is_error, const char *msg)
{
    if (t_capture) {
        if (is_error && !t_capture[0])
            snprintf(t_capture, t_capture_size, "%s", msg);
        return;
    }
    if (g_sink.message)
        g_sink.message(g_sink.user, is_error, msg);
    else /* none set: the process's standard error */
        to_stderr(msg);
}

void job_error(const char *fmt, ...)
{
    char msg[12288];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (!g_first_error[0] && !t_capture) { /* the reason, cut to the answer's size */
        size_t n = strlen(msg) < sizeof g_first_error ? strlen(msg) : sizeof g_first_error - 1;
        memcpy(g_first_error, msg, n);
        g_first_error[n] = '\0';
    }
    say(1, msg);
}

const char *job_error_first(void) { return g_first_error; }

static jf_status g_first_status = JF_OK;

void job_error_reset(void)
{
    g_first_error[0] = '\0';
    g_first_status = JF_OK;
}

void job_stopped(jf_status status)
{
    if (g_first_status == JF_OK)
        g_first_status = status;
}

jf_status job_error_status(void) { return g_first_status != JF_OK ? g_first_status : JF_ERR_IO; }

void job_log(const char *fmt, ...)
{
    char msg[12288]; /* two whole paths and a reason */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    say(0, msg);
}

void job_progress(const jf_job_progress *p, int single)
{
    if (g_sink.progress)
        g_sink.progress(g_sink.user, p, single);
}
