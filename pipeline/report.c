/* Logging, the progress line and a small JSON writer. */
#define _POSIX_C_SOURCE 200809L
#include "pipeline/batch.h"
#include "pipeline/context.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cli_quiet = 0;
static int g_progress_shown = 0;

int is_terminal_stderr(void) { return isatty(STDERR_FILENO); }

void progress_clear(void)
{
    if (g_progress_shown) {
        fputs("\r\033[K", stderr);
        g_progress_shown = 0;
    }
}

void cli_log(const char *fmt, ...)
{
    va_list ap;
    progress_clear();
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
}

/* One line, rewritten in place: files done/total, throughput, ETA, name. */
void progress_update(batch *b, const batch_item *it)
{
    double elapsed = (jf_now_ms() - b->started_ms) / 1000.0;
    double rate = elapsed > 0 ? b->mpix_done / elapsed : 0.0;
    int left = b->count - b->done;
    double eta = b->done > 0 ? elapsed / b->done * left : 0.0;
    const char *name = it->rel;
    size_t len = strlen(name);
    if (cli_quiet || !is_terminal_stderr())
        return;
    if (len > 40)
        name += len - 40;
    fprintf(stderr, "\r\033[K[%*d/%d] %6.1f MPix/s  ETA %d:%02d  %s", (int)log10(b->count) + 1,
            b->done, b->count, rate, (int)eta / 60, (int)eta % 60, name);
    fflush(stderr);
    g_progress_shown = 1;
}

static void json_grow(json_buf *j, size_t more)
{
    if (j->fail || j->len + more + 1 <= j->cap)
        return;
    {
        size_t cap = j->cap ? j->cap : 4096;
        char *grown;
        while (cap < j->len + more + 1)
            cap *= 2;
        grown = (char *)realloc(j->data, cap);
        if (!grown) {
            j->fail = 1;
            return;
        }
        j->data = grown;
        j->cap = cap;
    }
}

void json_raw(json_buf *j, const char *text)
{
    size_t n = strlen(text);
    json_grow(j, n);
    if (j->fail)
        return;
    memcpy(j->data + j->len, text, n + 1);
    j->len += n;
}

static void json_quoted(json_buf *j, const char *s)
{
    char esc[8];
    json_raw(j, "\"");
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            esc[0] = '\\'; esc[1] = (char)c; esc[2] = 0;
        } else if (c < 0x20) {
            snprintf(esc, sizeof esc, "\\u%04x", c);
        } else {
            esc[0] = (char)c; esc[1] = 0;
        }
        json_raw(j, esc);
    }
    json_raw(j, "\"");
}

void json_key(json_buf *j, const char *key)
{
    if (j->need_comma)
        json_raw(j, ",");
    j->need_comma = 1;
    if (key) {
        json_quoted(j, key);
        json_raw(j, ":");
    }
}

void json_str(json_buf *j, const char *key, const char *value)
{
    json_key(j, key);
    if (value)
        json_quoted(j, value);
    else
        json_raw(j, "null");
}

void json_num(json_buf *j, const char *key, double v)
{
    char buf[64];
    json_key(j, key);
    if (isnan(v))
        json_raw(j, "null");
    else if (isinf(v))
        json_raw(j, v > 0 ? "\"inf\"" : "\"-inf\""); /* JSON has no infinity */
    else {
        snprintf(buf, sizeof buf, "%.10g", v);
        json_raw(j, buf);
    }
}

void json_int(json_buf *j, const char *key, long long v)
{
    char buf[32];
    json_key(j, key);
    snprintf(buf, sizeof buf, "%lld", v);
    json_raw(j, buf);
}

void json_open(json_buf *j, const char *key, char bracket)
{
    char s[2] = {bracket, 0};
    json_key(j, key);
    json_raw(j, s);
    j->need_comma = 0;
}

void json_close(json_buf *j, char bracket)
{
    char s[2] = {bracket, 0};
    json_raw(j, s);
    j->need_comma = 1;
}
