/*
 * A small JSON writer.  Strings are written as UTF-8; a byte that is not
 * part of valid UTF-8 (file names on Linux are bytes) becomes the escape
 * \udcXX, the "surrogateescape" convention of Python, so the name stays
 * valid JSON and the bytes can be recovered:
 *     name.encode("utf-8", "surrogateescape")
 * File names also get "<key>_b64", the raw bytes in base64, when they are
 * not valid UTF-8.
 */
#include "jobs/json.h"
#include "jetfilter.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void json_grow(json_buf *j, size_t more)
{
    size_t cap;
    char *grown;
    if (j->fail || j->len + more + 1 <= j->cap)
        return;
    cap = j->cap ? j->cap : 4096;
    while (cap < j->len + more + 1)
        cap *= 2;
    if (!(grown = (char *)realloc(j->data, cap))) {
        j->fail = 1;
        return;
    }
    j->data = grown;
    j->cap = cap;
}

static void json_bytes(json_buf *j, const char *text, size_t n)
{
    json_grow(j, n);
    if (j->fail)
        return;
    memcpy(j->data + j->len, text, n);
    j->len += n;
    j->data[j->len] = '\0';
}

void json_raw(json_buf *j, const char *text) { json_bytes(j, text, strlen(text)); }

/* Length of the valid UTF-8 sequence at s, or 0 (overlongs, surrogates and
 * values past U+10FFFF are not valid). */
static size_t utf8_len(const unsigned char *s)
{
    unsigned c = s[0];
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        return (s[1] & 0xC0) == 0x80 ? 2 : 0;
    if (c >= 0xE0 && c <= 0xEF) {
        if ((s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80)
            return 0;
        if ((c == 0xE0 && s[1] < 0xA0) || (c == 0xED && s[1] >= 0xA0))
            return 0;
        return 3;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        if ((s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80 || (s[3] & 0xC0) != 0x80)
            return 0;
        if ((c == 0xF0 && s[1] < 0x90) || (c == 0xF4 && s[1] >= 0x90))
            return 0;
        return 4;
    }
    return 0;
}

int json_utf8_valid(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t n;
    while (*p) {
        if (!(n = utf8_len(p)))
            return 0;
        p += n;
    }
    return 1;
}

static void json_quoted(json_buf *j, const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    char esc[16];
    json_raw(j, "\"");
    while (*p) {
        size_t n = utf8_len(p);
        if (n == 0) {
            snprintf(esc, sizeof esc, "\\udc%02x", *p);
            json_raw(j, esc);
            p++;
        } else if (*p == '"' || *p == '\\') {
            esc[0] = '\\';
            esc[1] = (char)*p;
            esc[2] = 0;
            json_raw(j, esc);
            p++;
        } else if (*p < 0x20 || *p == 0x7F) {
            snprintf(esc, sizeof esc, "\\u%04x", *p);
            json_raw(j, esc);
            p++;
        } else {
            json_bytes(j, (const char *)p, n);
            p += n;
        }
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

static void base64(json_buf *j, const unsigned char *s, size_t n)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t i;
    char q[5];
    json_raw(j, "\"");
    for (i = 0; i < n; i += 3) {
        unsigned v = (unsigned)s[i] << 16 | (i + 1 < n ? (unsigned)s[i + 1] << 8 : 0) |
                     (i + 2 < n ? s[i + 2] : 0);
        q[0] = tab[v >> 18 & 63];
        q[1] = tab[v >> 12 & 63];
        q[2] = i + 1 < n ? tab[v >> 6 & 63] : '=';
        q[3] = i + 2 < n ? tab[v & 63] : '=';
        q[4] = 0;
        json_raw(j, q);
    }
    json_raw(j, "\"");
}

void json_path(json_buf *j, const char *key, const char *path)
{
    char k[96];
    json_str(j, key, path);
    if (!path || json_utf8_valid(path))
        return;
    snprintf(k, sizeof k, "%s_b64", key);
    json_key(j, k);
    base64(j, (const unsigned char *)path, strlen(path));
}

void json_num(json_buf *j, const char *key, double v)
{
    char buf[64];
    json_key(j, key);
    if (!isfinite(v))
        json_raw(j, "null");
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

void json_report_open(json_buf *j, const char *command)
{
    json_open(j, NULL, '{');
    json_str(j, "jetfilter", JF_VERSION_STRING);
    json_str(j, "command", command);
}

void json_db(json_buf *j, const char *key, double v)
{
    char flag[96];
    json_num(j, key, v);
    if (isinf(v) && v > 0 && key) {
        snprintf(flag, sizeof flag, "%s_infinite", key);
        json_bool(j, flag, 1);
    }
}

void json_bool(json_buf *j, const char *key, int v)
{
    json_key(j, key);
    json_raw(j, v ? "true" : "false");
}
