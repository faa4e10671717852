/*
 * Reading a --json report one piece at a time (report_read.h): the file
 * passes through a window that holds one value of the top-level object, or
 * one element of its "files" array, so memory stays bounded whatever the
 * number of files (a report of a million files is 700 MB).  Each piece is
 * parsed by Jansson.
 *
 * The reports escape the bytes of a file name that are not UTF-8 as
 * \udc80..\udcff (json.c), which JSON's grammar allows but Jansson refuses
 * (lone surrogates); they are handed to it as \ue080..\ue0ff, private-use
 * characters, and the name's bytes are in its "_b64" companion field.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli/report_read.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK (1u << 20)
static size_t g_chunk = CHUNK; /* the window grows by this (report_read_set_chunk) */

void report_read_set_chunk(size_t bytes) { g_chunk = bytes >= 16 && bytes <= CHUNK ? bytes : CHUNK; }
#define MAX_VALUE ((size_t)64 << 20) /* one value of a report: a file's record, settings */

typedef struct scan {
    FILE *f;
    char *buf;
    size_t pos, len, cap; /* unread bytes: buf[pos, len) */
    int eof;
    char *why;
    size_t why_n;
} scan;

static int bad(scan *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->why, s->why_n, fmt, ap);
    va_end(ap);
    return -1;
}

/* At least `need` unread bytes, unless the file ends first (then 0). */
static int have(scan *s, size_t need)
{
    while (s->len - s->pos < need && !s->eof) {
        size_t got;
        if (s->pos > 0) { /* slide the window: what was read is gone */
            memmove(s->buf, s->buf + s->pos, s->len - s->pos);
            s->len -= s->pos;
            s->pos = 0;
        }
        if (s->cap - s->len < g_chunk) {
            size_t cap = s->cap ? 2 * s->cap : 2 * g_chunk;
            char *grown;
            if (cap > MAX_VALUE + 2 * CHUNK)
                return bad(s, "a value longer than %zu MB", MAX_VALUE >> 20), 0;
            if (!(grown = (char *)realloc(s->buf, cap)))
                return bad(s, "out of memory"), 0;
            s->buf = grown;
            s->cap = cap;
        }
        got = fread(s->buf + s->len, 1, s->cap - s->len, s->f);
        s->len += got;
        if (got == 0)
            s->eof = 1;
    }
    return s->len - s->pos >= need;
}

/* JSON's white space (not strchr's: it would match the NUL byte too) */
static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* The next byte that is not white space, not consumed; -1 at the end. */
static int next(scan *s)
{
    for (;;) {
        if (!have(s, 1))
            return -1;
        if (!is_space(s->buf[s->pos]))
            return (unsigned char)s->buf[s->pos];
        s->pos++;
    }
}

static int expect(scan *s, char c)
{
    if (next(s) != (unsigned char)c)
        return bad(s, "'%c' expected near byte %ld", c, ftell(s->f) - (long)(s->len - s->pos));
    s->pos++;
    return 0;
}

/* The length of the JSON value at the window's start (a string, object,
 * array, number or literal), reading as much of the file as it needs; 0
 * when it does not end. */
static size_t value_len(scan *s)
{
    size_t i = 0, depth = 0;
    int in_string = 0, escaped = 0;
    if (next(s) < 0)
        return 0;
    for (;; i++) {
        char c;
        if (!have(s, i + 1))
            return 0;
        c = s->buf[s->pos + i];
        if (in_string) {
            if (escaped)
                escaped = 0;
            else if (c == '\\')
                escaped = 1;
            else if (c == '"') {
                in_string = 0;
                if (depth == 0)
                    return i + 1;
            }
        } else if (c == '"') {
            in_string = 1;
        } else if (c == '{' || c == '[') {
            depth++;
        } else if (c == '}' || c == ']') {
            if (depth == 0) /* the end of a literal at the enclosing bracket */
                return i;
            if (--depth == 0)
                return i + 1;
        } else if (depth == 0 && (c == ',' || is_space(c))) {
            return i;
        }
    }
}

/* Parse n bytes of the window with Jansson, \udcXX read as \ue0XX. */
static json_t *parse(scan *s, size_t n)
{
    char *p = s->buf + s->pos, *end = p + n, *at;
    json_error_t err;
    json_t *v;
    for (at = p; (at = memchr(at, '\\', (size_t)(end - at))) != NULL && at + 5 < end; at += 2) {
        /* a lone low surrogate: not the second half of a pair \ud8xx-\udbxx\udcxx */
        const int paired = at - p >= 6 && at[-6] == '\\' && at[-5] == 'u' &&
                           (at[-4] == 'd' || at[-4] == 'D') && strchr("89abAB", at[-3]);
        if (at[1] == 'u' && (at[2] == 'd' || at[2] == 'D') && (at[3] == 'c' || at[3] == 'C') &&
            !paired)
            at[2] = 'e', at[3] = '0';
    }
    v = json_loadb(p, n, JSON_DECODE_ANY | JSON_DISABLE_EOF_CHECK | JSON_REJECT_DUPLICATES, &err);
    if (!v)
        bad(s, "%s", err.text);
    return v;
}

int report_read(const char *path, const report_callbacks *cb, void *user, char *why, size_t why_n)
{
    FILE *f = fopen(path, "rb");
    int rc;
    if (!f) {
        snprintf(why, why_n, "cannot open: %s", strerror(errno));
        return -1;
    }
    rc = report_read_stream(f, cb, user, why, why_n);
    fclose(f);
    return rc;
}

int report_read_stream(FILE *f, const report_callbacks *cb, void *user, char *why, size_t why_n)
{
    scan s;
    int rc = -1, c;
    memset(&s, 0, sizeof s);
    s.f = f;
    s.why = why;
    s.why_n = why_n;
    why[0] = '\0';
    if (expect(&s, '{') != 0)
        goto done;
    if (next(&s) == '}') {
        rc = 0;
        goto done;
    }
    for (;;) {
        size_t n;
        json_t *key;
        const char *k;
        if ((n = value_len(&s)) == 0 || s.buf[s.pos] != '"') {
            if (!why[0])
                bad(&s, "a member's name expected");
            goto done;
        }
        if (!(key = parse(&s, n)))
            goto done;
        s.pos += n;
        k = json_string_value(key);
        if (expect(&s, ':') != 0) {
            json_decref(key);
            goto done;
        }
        if (strcmp(k, "files") == 0 && cb->on_file) { /* element by element */
            json_decref(key);
            if (expect(&s, '[') != 0)
                goto done;
            if (next(&s) == ']') {
                s.pos++;
            } else {
                for (;;) {
                    json_t *item = NULL;
                    if ((n = value_len(&s)) == 0) {
                        if (!why[0])
                            bad(&s, "a record cut short");
                        goto done;
                    }
                    if (cb->parse_files && !(item = parse(&s, n)))
                        goto done;
                    c = cb->on_file(user, s.buf + s.pos, n, item);
                    json_decref(item);
                    if (c != 0) {
                        if (!why[0])
                            bad(&s, "a file's record refused");
                        goto done;
                    }
                    s.pos += n;
                    if ((c = next(&s)) == ',') {
                        s.pos++;
                        continue;
                    }
                    if (c != ']') {
                        bad(&s, "',' or ']' expected in the files");
                        goto done;
                    }
                    s.pos++;
                    break;
                }
            }
        } else {
            json_t *value;
            if ((n = value_len(&s)) == 0 || !(value = parse(&s, n))) {
                if (!why[0])
                    bad(&s, "the value of \"%s\" is cut short", k);
                json_decref(key);
                goto done;
            }
            s.pos += n;
            if (cb->on_member) { /* it takes the value */
                c = cb->on_member(user, k, value);
            } else {
                json_decref(value);
                c = 0;
            }
            json_decref(key);
            if (c != 0)
                goto done;
        }
        if ((c = next(&s)) == ',') {
            s.pos++;
            continue;
        }
        if (c != '}') {
            bad(&s, "',' or '}' expected");
            goto done;
        }
        s.pos++;
        break;
    }
    if (next(&s) >= 0) {
        bad(&s, "bytes after the report's end");
        goto done;
    }
    rc = ferror(s.f) ? bad(&s, "read error") : 0;
done:
    free(s.buf);
    return rc;
}
