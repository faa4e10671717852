/* The command line's sink for messages (jobs/messages.h): standard error,
 * names with control bytes escaped, and a progress line rewritten in place
 * on a terminal; and what an interrupt says of how far a batch got. */
#define _POSIX_C_SOURCE 200809L
#include "cli/cli.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int g_progress_shown = 0;

/* How far a batch is, for the interrupt's line (cli_interrupt_line). */
static volatile sig_atomic_t g_done = -1, g_total;
/* set by the interrupt: the jobs' failures as the process ends are not news */
static volatile sig_atomic_t g_ending;

static void progress_clear(void)
{
    if (g_progress_shown) {
        fputs("\r\033[K", stderr);
        g_progress_shown = 0;
    }
}

static void say(void *user, int is_error, const char *msg)
{
    (void)user;
    (void)is_error;
    if (g_ending)
        return;
    progress_clear();
    job_put_escaped(stderr, msg);
    fputc('\n', stderr);
    fflush(stderr);
}

/* One line, rewritten in place: files done/total, throughput, ETA, name. */
static void progress(void *user, const jf_job_progress *p, int single)
{
    (void)user;
    if (!single)
        cli_interrupt_progress(p->done, p->total);
    if (!p->path) { /* before the first file, after the last */
        progress_clear();
        return;
    }
    if (job_quiet || g_ending || !isatty(STDERR_FILENO))
        return;
    {
        const double rate = p->seconds > 0 ? p->mpix / p->seconds : 0.0;
        const double eta = p->done > 0 ? p->seconds / p->done * (p->total - p->done) : 0.0;
        const char *name = p->path;
        const size_t len = strlen(name);
        if (len > 40)
            name += len - 40;
        fprintf(stderr, "\r\033[K[%*d/%d] %6.1f MPix/s  ETA %d:%02d  ", (int)log10(p->total) + 1,
                p->done, p->total, rate, (int)eta / 60, (int)eta % 60);
        job_put_escaped(stderr, name);
        fflush(stderr);
        g_progress_shown = 1;
    }
}

void cli_use_terminal(void)
{
    const job_sink sink = {say, progress, NULL};
    job_sink_set(&sink);
}

void cli_interrupt_progress(int done, int total)
{
    g_total = total;
    g_done = done;
}

/* Appends v in decimal (what a signal handler may do: no stdio). */
static size_t put_count(char *buf, size_t at, long v)
{
    char digits[24];
    size_t n = 0;
    do
        digits[n++] = (char)('0' + v % 10);
    while ((v /= 10) > 0 && n < sizeof digits);
    while (n > 0)
        buf[at++] = digits[--n];
    return at;
}

static size_t put_text(char *buf, size_t at, const char *text)
{
    while (*text)
        buf[at++] = *text++;
    return at;
}

size_t cli_interrupt_line(char line[256])
{
    size_t n;
    g_ending = 1;
    if (g_done < 0 || job_quiet)
        return 0;
    n = put_text(line, 0, "\njetfilter: interrupted: ");
    n = put_count(line, n, g_done);
    n = put_text(line, n, " of ");
    n = put_count(line, n, g_total);
    return put_text(line, n, " files done; the same command with --skip-existing goes on from there\n");
}
