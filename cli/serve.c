/* jetfilter serve: command after command in one process.  A request is a
 * line of JSON on standard input (a command's arguments, or an object with
 * them and the files its output goes to); each gets one line of JSON on
 * standard output.  What a long-lived process saves: CUDA's context and the
 * GPU's JPEG engine and encoders start once, not once a batch (about 1 s of
 * every fresh process on an H100, more than 400 1080p files take once they
 * run: benchmarks/RESULTS.md, "A process kept for batch after batch"). */
#define _POSIX_C_SOURCE 200809L
#include "cli/cli.h"
#include "core/util.h"
#include "io/io.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#define SERVE_MAX_ARGS 4096

/* The descriptors the protocol keeps, and where commands print by default. */
typedef struct serve_io {
    FILE *requests, *answers;
    int log_fd; /* serve's own standard error */
} serve_io;

typedef struct request {
    char *argv[SERVE_MAX_ARGS + 2];
    int argc;
    const char *out_path, *err_path; /* NULL: serve's standard error */
} request;

/* The request in `root`, or the reason it is not one. */
static const char *parse_request(json_t *root, request *r)
{
    json_t *args = root, *v;
    size_t i;
    memset(r, 0, sizeof *r);
    if (json_is_object(root)) {
        json_t *o = json_object_get(root, "stdout"), *e = json_object_get(root, "stderr");
        const char *key;
        json_object_foreach(root, key, v)
            if (strcmp(key, "args") && strcmp(key, "stdout") && strcmp(key, "stderr"))
                return "a request has \"args\", \"stdout\" and \"stderr\", nothing else";
        if ((o && !json_is_string(o)) || (e && !json_is_string(e)))
            return "\"stdout\" and \"stderr\" name files";
        r->out_path = o ? json_string_value(o) : NULL;
        r->err_path = e ? json_string_value(e) : NULL;
        args = json_object_get(root, "args");
    }
    if (!json_is_array(args) || json_array_size(args) == 0)
        return "a request is a JSON array of a command's arguments, or {\"args\": [...]}";
    if (json_array_size(args) > SERVE_MAX_ARGS)
        return "too many arguments";
    r->argv[r->argc++] = (char *)"jetfilter";
    json_array_foreach(args, i, v) {
        if (!json_is_string(v) || strlen(json_string_value(v)) != json_string_length(v))
            return "arguments are strings without NUL characters";
        r->argv[r->argc++] = (char *)json_string_value(v);
    }
    if (strcmp(r->argv[1], "serve") == 0)
        return "serve runs other commands, not itself";
    return NULL;
}

/* A file the command's output is added to (never truncated: it may be the
 * user's); -1 with the reason in `why`. */
static int open_log(const char *path, char *why, size_t size)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
    if (fd < 0)
        snprintf(why, size, "cannot open '%s' for the command's output: %s", path, strerror(errno));
    return fd;
}

/* Run one request with its output where it asked; the exit status, or -1
 * with the reason in `why` when it could not start. */
static int run_request(serve_io *io, request *r, char *why, size_t size)
{
    int out_fd = io->log_fd, err_fd = io->log_fd, rc;
    if (r->out_path && (out_fd = open_log(r->out_path, why, size)) < 0)
        return -1;
    if (r->err_path && (err_fd = open_log(r->err_path, why, size)) < 0) {
        if (out_fd != io->log_fd)
            close(out_fd);
        return -1;
    }
    fflush(stdout);
    fflush(stderr);
    dup2(out_fd, STDOUT_FILENO);
    dup2(err_fd, STDERR_FILENO);
    rc = cli_dispatch(r->argc, r->argv);
    fflush(stdout);
    fflush(stderr);
    clearerr(stdout);
    clearerr(stderr);
    dup2(io->log_fd, STDOUT_FILENO);
    dup2(io->log_fd, STDERR_FILENO);
    if (out_fd != io->log_fd)
        close(out_fd);
    if (err_fd != io->log_fd)
        close(err_fd);
    return rc;
}

/* One answer line; 0 when the reader has gone. */
static int answer(serve_io *io, int rc, double seconds, const char *error)
{
    json_t *a = json_object();
    int ok;
    json_object_set_new(a, "exit", json_integer(rc));
    json_object_set_new(a, "seconds", json_real(seconds));
    if (error)
        json_object_set_new(a, "error", json_string(error));
    ok = json_dumpf(a, io->answers, JSON_COMPACT | JSON_REAL_PRECISION(6)) == 0 && fputc('\n', io->answers) != EOF &&
         fflush(io->answers) == 0;
    json_decref(a);
    return ok;
}

/* The protocol keeps standard input and output; commands see an empty
 * input and print to serve's standard error (or the request's files). */
static int serve_open(serve_io *io)
{
    int in = dup(STDIN_FILENO), out = dup(STDOUT_FILENO), null_fd;
    memset(io, 0, sizeof *io);
    io->log_fd = dup(STDERR_FILENO);
    null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (in < 0 || out < 0 || io->log_fd < 0 || null_fd < 0 ||
        !(io->requests = fdopen(in, "r")) || !(io->answers = fdopen(out, "w")))
        return 0;
    dup2(null_fd, STDIN_FILENO);
    close(null_fd);
    dup2(io->log_fd, STDOUT_FILENO);
    return 1;
}

int cli_serve(cli_settings *s)
{
    serve_io io;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    (void)s;
    if (!serve_open(&io)) {
        fprintf(stderr, "jetfilter serve: %s\n", strerror(errno));
        return JF_EXIT_FAILED;
    }
    jf_nvjpeg_keep(1);
    /* the first GPU request would start CUDA and the JPEG engine; start them
     * while the client gets its first request ready */
    if (jf_built_with_cuda() && jf_device_count() > 0)
        jf_codec_probe(JF_CODEC_AUTO, 0, NULL, 0);
    while ((n = getline(&line, &cap, io.requests)) > 0) {
        json_error_t jerr;
        json_t *root;
        request r;
        char why[1200];
        const char *bad;
        double t0 = jf_now_ms();
        int rc;
        if (strspn(line, " \t\r\n") == (size_t)n)
            continue; /* blank lines are not requests */
        if (!(root = json_loadb(line, (size_t)n, JSON_REJECT_DUPLICATES, &jerr))) {
            snprintf(why, sizeof why, "not JSON: %s", jerr.text);
            if (!answer(&io, JF_EXIT_USAGE, 0.0, why))
                break;
            continue;
        }
        if ((bad = parse_request(root, &r)) != NULL) {
            rc = JF_EXIT_USAGE;
        } else if ((rc = run_request(&io, &r, why, sizeof why)) < 0) {
            rc = JF_EXIT_USAGE;
            bad = why;
        }
        json_decref(root);
        if (!answer(&io, rc, (jf_now_ms() - t0) / 1000.0, bad))
            break;
    }
    free(line);
    jf_nvjpeg_keep(0);
    fclose(io.requests);
    fclose(io.answers);
    close(io.log_fd);
    return JF_EXIT_OK;
}
