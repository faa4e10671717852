/* jetfilter serve: command after command in one process.  A request is a
 * line of JSON on standard input (a command's arguments, or an object with
 * them and the files its output goes to); each gets one line of JSON on
 * standard output.  What a long-lived process saves: CUDA's context and the
 * GPU's JPEG engine and encoders start once, not once a batch
 * (benchmarks/RESULTS.md, "A process kept for batch after batch"). */
#define _POSIX_C_SOURCE 200809L
#include "cli/cli.h"
#include "cli/serve.h"
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

/* The descriptors the protocol keeps, and where commands print by default. */
typedef struct serve_io {
    FILE *requests, *answers;
    int log_fd; /* serve's own standard error */
} serve_io;

/* {"b64": "..."}: an argument's bytes (a file name that is not UTF-8);
 * NULL when the text is not base64. */
static char *base64_arg(const char *text, size_t n)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *out;
    size_t i, o = 0;
    unsigned acc = 0;
    int bits = 0, pad = 0;
    if (n % 4 || !(out = (char *)malloc(n / 4 * 3 + 1)))
        return NULL;
    for (i = 0; i < n; i++) {
        const char *p = text[i] ? strchr(tab, text[i]) : NULL;
        if (text[i] == '=' && i >= n - 2) {
            pad++;
            continue;
        }
        if (!p || pad) {
            free(out);
            return NULL;
        }
        acc = (acc << 6) | (unsigned)(p - tab);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[o++] = (char)(acc >> bits & 0xFF);
        }
    }
    out[o] = '\0';
    if (strlen(out) != o || o == 0) { /* a NUL inside, or nothing */
        free(out);
        return NULL;
    }
    return out;
}

void cli_serve_request_free(cli_serve_request *r)
{
    int i;
    for (i = 0; i < r->owned_count; i++)
        free(r->owned[i]);
    r->owned_count = 0;
}

/* The request in `root`, or the reason it is not one.  Strings in r
 * point into root, or into r->owned. */
const char *cli_serve_parse(json_t *root, cli_serve_request *r)
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
        if ((o && strlen(json_string_value(o)) != json_string_length(o)) ||
            (e && strlen(json_string_value(e)) != json_string_length(e)))
            return "\"stdout\" and \"stderr\" are file names without NUL characters";
        r->out_path = o ? json_string_value(o) : NULL;
        r->err_path = e ? json_string_value(e) : NULL;
        args = json_object_get(root, "args");
    }
    if (!json_is_array(args) || json_array_size(args) == 0)
        return "a request is a JSON array of a command's arguments, or {\"args\": [...]}";
    if (json_array_size(args) > CLI_SERVE_MAX_ARGS)
        return "too many arguments";
    r->argv[r->argc++] = (char *)"jetfilter";
    json_array_foreach(args, i, v) {
        json_t *b = json_is_object(v) && json_object_size(v) == 1 ? json_object_get(v, "b64") : NULL;
        if (b && json_is_string(b)) {
            char *bytes = base64_arg(json_string_value(b), json_string_length(b));
            if (!bytes) {
                cli_serve_request_free(r);
                return "{\"b64\": ...} holds an argument's bytes in base64, without NUL";
            }
            r->owned[r->owned_count++] = bytes;
            r->argv[r->argc++] = bytes;
            continue;
        }
        if (!json_is_string(v) || strlen(json_string_value(v)) != json_string_length(v)) {
            cli_serve_request_free(r);
            return "arguments are strings without NUL characters (or {\"b64\": bytes in base64})";
        }
        r->argv[r->argc++] = (char *)json_string_value(v);
    }
    if (strcmp(r->argv[1], "serve") == 0) {
        cli_serve_request_free(r);
        return "serve runs other commands, not itself";
    }
    return NULL;
}

/* ---- running a request ------------------------------------------------------ */

/* A file the command's output is added to (never truncated: it may be the
 * user's); -1 with the reason in `why`. */
static int open_log(const char *path, char *why, size_t size)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOCTTY, 0666);
    if (fd < 0)
        snprintf(why, size, "cannot open '%s' for the command's output: %s", path, strerror(errno));
    return fd;
}

/* The request's files are outputs like any other: never one of the
 * command's inputs, never an image, never a folder (job_outputs_check).
 * 0, or JF_EXIT_USAGE with the reason printed (and kept as the first error). */
static int check_logs(cli_serve_request *r)
{
    job_settings s;
    const char *inputs[JOB_MAX_INPUTS_LISTED];
    const cli_command *c = NULL;
    int i, n, rc;
    if (!r->out_path && !r->err_path)
        return 0;
    for (i = 0; i < cli_command_count; i++)
        if (strcmp(cli_commands[i].name, r->argv[1]) == 0)
            c = &cli_commands[i];
    if (!c)
        return 0; /* the command's own message follows */
    if ((rc = cli_parse(c->bit, c->name, r->argc - 2, r->argv + 2, &s)) != 0) {
        free(s.inputs);
        return rc;
    }
    n = job_inputs_of(&s, inputs, JOB_MAX_INPUTS_LISTED);
    {
        job_outputs o = {"serve", inputs, n,
                         {{"\"stdout\"", r->out_path, JOB_OUT_LOG}, {"\"stderr\"", r->err_path, JOB_OUT_LOG}},
                         2, 0};
        rc = job_outputs_check(&o);
    }
    free(s.inputs);
    return rc;
}

/* Run one request with its output where it asked; the exit status, or -1
 * with the reason in `why` when it could not start.  A failure's reason is
 * the command's first error (job_error_first). */
static int run_request(serve_io *io, cli_serve_request *r, char *why, size_t size)
{
    int out_fd = io->log_fd, err_fd = io->log_fd, rc;
    job_error_reset();
    if ((rc = check_logs(r)) != 0)
        return rc;
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
    if (error && *error)
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

/* The next line of at most `max` bytes into *line (grown as needed): its
 * length; -1 at the end; -2 for a longer one, read to its end and dropped. */
static long read_line(FILE *in, char **line, size_t *cap, size_t max)
{
    size_t n = 0;
    int c, over = 0;
    while ((c = getc(in)) != EOF) {
        if (c == '\n')
            break;
        if (over || n >= max) {
            over = 1;
            continue;
        }
        if (n + 2 > *cap) {
            size_t want = *cap ? *cap * 2 : 4096;
            char *p;
            if (want > max + 2)
                want = max + 2;
            if (!(p = (char *)realloc(*line, want))) {
                over = 1;
                continue;
            }
            *line = p;
            *cap = want;
        }
        (*line)[n++] = (char)c;
    }
    if (c == EOF && n == 0 && !over)
        return -1;
    if (over)
        return -2;
    (*line)[n] = '\0';
    return (long)n;
}

int cli_serve(job_settings *s)
{
    serve_io io;
    char *line = NULL;
    size_t cap = 0, max = (size_t)(s->max_request_mb * 1048576.0);
    long n;
    if (!serve_open(&io)) {
        job_error("jetfilter serve: %s", strerror(errno));
        return JF_EXIT_FAILED;
    }
    jf_codec_keep(1);
    /* the first GPU request would start CUDA and the JPEG engine; start them
     * while the client gets its first request ready, on every device (a
     * batch brings in at once only the devices already started) */
    if (jf_built_with_cuda()) {
        int d, devices = jf_device_count();
        for (d = 0; d < devices; d++)
            jf_codec_probe(JF_CODEC_AUTO, d, NULL, 0);
    }
    while ((n = read_line(io.requests, &line, &cap, max)) != -1) {
        json_error_t jerr;
        json_t *root;
        cli_serve_request r;
        char why[1200];
        const char *bad;
        double t0 = jf_now_ms();
        int rc;
        if (n == -2) {
            snprintf(why, sizeof why, "a request line over %g MB (--max-request); skipped",
                     s->max_request_mb);
            if (!answer(&io, JF_EXIT_USAGE, 0.0, why))
                break;
            continue;
        }
        if (strspn(line, " \t\r") == (size_t)n)
            continue; /* blank lines are not requests */
        if (!(root = json_loadb(line, (size_t)n, JSON_REJECT_DUPLICATES, &jerr))) {
            snprintf(why, sizeof why, "not JSON: %s", jerr.text);
            if (!answer(&io, JF_EXIT_USAGE, 0.0, why))
                break;
            continue;
        }
        if ((bad = cli_serve_parse(root, &r)) != NULL) {
            rc = JF_EXIT_USAGE;
        } else {
            if ((rc = run_request(&io, &r, why, sizeof why)) < 0) {
                rc = JF_EXIT_USAGE;
                bad = why;
            } else if (rc != JF_EXIT_OK) {
                bad = job_error_first()[0] ? job_error_first() : "the command failed and said nothing";
            }
            cli_serve_request_free(&r);
        }
        if (!answer(&io, rc, (jf_now_ms() - t0) / 1000.0, bad)) {
            json_decref(root);
            break;
        }
        json_decref(root);
    }
    free(line);
    jf_codec_keep(0);
    fclose(io.requests);
    fclose(io.answers);
    close(io.log_fd);
    return JF_EXIT_OK;
}
