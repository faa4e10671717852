/*
 * The files a command will write, checked together before any work starts
 * (cli.h, job_outputs_check): no output may be one of the inputs, whatever
 * path reaches it (links, "..", another name of the same file); two outputs
 * may not be one file; the folder that will hold each must exist and be
 * writable; and a report, table or profile that already exists is replaced
 * only when jetfilter wrote it, unless --force says otherwise.  Images and
 * streams written atomically may replace an older output of the same name
 * (that is what a re-run is for), never an input.
 */
#define _DEFAULT_SOURCE
#include "jobs/jobs.h"
#include "io/io.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

/* The resolved form of a path that may not exist yet: its folder resolved,
 * its name kept. */
static int resolve_file(const char *path, char *out)
{
    char dir[PATH_MAX], real[PATH_MAX];
    const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
    if (realpath(path, out))
        return 1;
    if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else if (slash)
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    else
        snprintf(dir, sizeof dir, ".");
    if (!realpath(dir, real))
        return 0;
    return snprintf(out, PATH_MAX, "%s/%s", strcmp(real, "/") ? real : "", name) < PATH_MAX;
}

static int within(const char *inner, const char *outer)
{
    const size_t n = strlen(outer);
    return strcmp(outer, "/") == 0 ||
           (strncmp(inner, outer, n) == 0 && (inner[n] == '/' || inner[n] == '\0'));
}

/* Did jetfilter write this file?  Its reports open with the "jetfilter"
 * key, its tables with their header, its profiles with their first line. */
static int ours(const char *path, job_out_kind kind)
{
    char head[64];
    ssize_t n;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return 0;
    n = read(fd, head, sizeof head - 1);
    close(fd);
    if (n == 0) /* an empty report or table holds nothing to lose; an empty file
                   named as an image output is not one jetfilter wrote */
        return kind != JOB_OUT_IMAGE;
    if (n < 0)
        return 0;
    head[n] = '\0';
    switch (kind) {
    case JOB_OUT_REPORT: return strncmp(head, "{\"jetfilter\":", 13) == 0;
    case JOB_OUT_TABLE: return strncmp(head, JOB_CSV_FIRST_FIELDS, strlen(JOB_CSV_FIRST_FIELDS)) == 0;
    case JOB_OUT_PROFILE: return strncmp(head, "jetfilter-profile ", 18) == 0;
    case JOB_OUT_IMAGE: return jf_file_format(path, NULL) != JF_FORMAT_UNKNOWN; /* an image is replaced, as convert does */
    default: return 1;
    }
}

/* An input that a command reads: the file itself, or every image a walk of
 * the folder would find. */
static int is_input(const char *real_out, const struct stat *osb, const char *in)
{
    struct stat isb;
    char real_in[PATH_MAX];
    if (stat(in, &isb) != 0)
        return 0;
    if (!S_ISDIR(isb.st_mode))
        return osb && osb->st_dev == isb.st_dev && osb->st_ino == isb.st_ino;
    if (!realpath(in, real_in) || !within(real_out, real_in))
        return 0;
    /* inside an input folder: an input if the walk would take it as an image */
    return osb && S_ISREG(osb->st_mode) &&
           (jf_has_image_extension(real_out) || jf_file_format(real_out, NULL) != JF_FORMAT_UNKNOWN);
}

static int refuse(const job_outputs *o, const char *fmt, const char *a, const char *b,
                  const char *c)
{
    char msg[8192];
    snprintf(msg, sizeof msg, fmt, a, b, c);
    job_error("jetfilter %s: %s", o->cmd, msg);
    return JF_EXIT_USAGE;
}

int job_outputs_check(const job_outputs *o)
{
    char real[JOB_MAX_OUTPUTS][PATH_MAX];
    int i, j, stdout_uses = 0;
    for (i = 0; i < o->count; i++) {
        const job_output *out = &o->out[i];
        struct stat sb;
        int exists;
        if (!out->path)
            continue;
        if (!out->path[0])
            return refuse(o, "%s: an empty file name", out->option, "", "");
        if (strcmp(out->path, "-") == 0) {
            if (stdout_uses++)
                return refuse(o, "%s -: standard output is already taken by another output",
                              out->option, "", "");
            real[i][0] = '\0';
            continue;
        }
        if (!resolve_file(out->path, real[i]))
            return refuse(o, "%s %s: its folder is missing (%s)", out->option, out->path,
                          strerror(errno));
        exists = stat(out->path, &sb) == 0;
        for (j = 0; j < o->input_count; j++)
            if (o->inputs[j] && strcmp(o->inputs[j], "-") != 0 &&
                is_input(real[i], exists ? &sb : NULL, o->inputs[j]))
                return refuse(o, "%s %s would write over the input %s; choose another name",
                              out->option, out->path, o->inputs[j]);
        for (j = 0; j < i; j++)
            if (real[j][0] && strcmp(real[i], real[j]) == 0)
                return refuse(o, "%s %s and %s are one file; give each its own",
                              out->option, out->path, o->out[j].option);
        if (exists) {
            if (S_ISDIR(sb.st_mode))
                return refuse(o, "%s %s is a folder; name a file", out->option, out->path, "");
            if (S_ISFIFO(sb.st_mode) || S_ISCHR(sb.st_mode))
                continue; /* a pipe or a terminal: written as a stream, nothing replaced */
            if (!S_ISREG(sb.st_mode))
                return refuse(o, "%s %s is not a regular file; refused", out->option, out->path, "");
            if (access(out->path, W_OK) != 0)
                return refuse(o, "%s %s: not writable (%s)", out->option, out->path, strerror(errno));
            if (out->kind != JOB_OUT_IMAGE && jf_file_format(out->path, NULL) != JF_FORMAT_UNKNOWN)
                return refuse(o, "%s %s is an image, not a %s; it would be replaced (was it meant "
                              "as an input?)", out->option, out->path,
                              out->kind == JOB_OUT_TABLE ? "table" : out->kind == JOB_OUT_STREAM
                                                                         ? "stream" : "report");
            if (!o->force && !ours(out->path, out->kind))
                return refuse(o, out->kind == JOB_OUT_IMAGE
                                     ? "%s %s exists and is not an image; name another, or add "
                                       "--force to replace it"
                                     : "%s %s exists and is not a file jetfilter wrote; name "
                                       "another, or add --force to replace it",
                              out->option, out->path, "");
        } else {
            char dir[PATH_MAX];
            const char *slash = strrchr(real[i], '/');
            snprintf(dir, sizeof dir, "%.*s", slash && slash != real[i] ? (int)(slash - real[i]) : 1,
                     slash && slash != real[i] ? real[i] : "/");
            if (access(dir, W_OK | X_OK) != 0)
                return refuse(o, "%s %s: folder %s is not writable", out->option, out->path, dir);
        }
    }
    return 0;
}

int job_inputs_of(const job_settings *s, const char **out, int max)
{
    const char *extra[4];
    int i, n = 0;
    extra[0] = s->reference;
    extra[1] = s->input;
    extra[2] = job_param(s, "kernel");
    extra[3] = s->photo;
    for (i = 0; i < s->input_count && n < max; i++)
        out[n++] = s->inputs[i];
    for (i = 0; i < 4 && n < max; i++)
        if (extra[i])
            out[n++] = extra[i];
    return n;
}
