/*
 * Reading a --json report one piece at a time (report_read.h): the file
 * passes through a window that holds one value of the top-level object, or
 * one element of its "files" array, so memory stays bounded whatever the
 * number of files (a report of a million files is 700 MB).  The top-level
 * values are parsed by Jansson; a file's record, the bulk of a report, is
 * checked and read in place (read_record), with no document built.
 *
 * The reports escape the bytes of a file name that are not UTF-8 as
 * \udc80..\udcff (json.c), which JSON's grammar allows but Jansson refuses
 * (lone surrogates); they are handed to it as \ue080..\ue0ff, private-use
 * characters, and the name's bytes are in its "_b64" companion field.
 */
#define _POSIX_C_SOURCE 200809L
#include "jobs/report_read.h"

#include <errno.h>
#include <math.h>
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
/* Bytes that can end a run inside a value: quotes, brackets and escapes
 * (the rest, letters, digits and most punctuation, is stepped over at once). */
static unsigned char g_stop[256];

static void init_stop(void)
{
    g_stop['"'] = g_stop['\\'] = g_stop['{'] = g_stop['['] = g_stop['}'] = g_stop[']'] = 1;
}

static size_t value_len(scan *s)
{
    size_t i = 0, depth = 0;
    int in_string = 0, escaped = 0;
    if (next(s) < 0)
        return 0;
    if (!g_stop['"'])
        init_stop();
    for (;;) {
        const char *b, *e, *q;
        if (!have(s, i + 1))
            return 0;
        b = s->buf + s->pos;
        e = s->buf + s->len;
        for (q = b + i; q < e; q++) {
            char c = *q;
            if (in_string) {
                if (escaped) {
                    escaped = 0;
                } else if (c == '\\') {
                    escaped = 1;
                } else if (c == '"') {
                    in_string = 0;
                    if (depth == 0)
                        return (size_t)(q - b) + 1;
                } else { /* the plain run of a string, at once */
                    const char *stop = q + 1;
                    while (stop < e && *stop != '"' && *stop != '\\')
                        stop++;
                    q = stop - 1;
                }
            } else if (c == '"') {
                in_string = 1;
            } else if (c == '{' || c == '[') {
                depth++;
            } else if (c == '}' || c == ']') {
                if (depth == 0) /* the end of a literal at the enclosing bracket */
                    return (size_t)(q - b);
                if (--depth == 0)
                    return (size_t)(q - b) + 1;
            } else if (depth == 0) {
                if (c == ',' || is_space(c))
                    return (size_t)(q - b);
            } else { /* inside brackets: on to the next quote or bracket */
                const char *stop = q + 1;
                while (stop < e && !g_stop[(unsigned char)*stop])
                    stop++;
                q = stop - 1;
            }
        }
        i = (size_t)(e - b);
    }
}

static int hex4(const char *p, unsigned *v)
{
    int i;
    *v = 0;
    for (i = 0; i < 4; i++) {
        char c = p[i];
        *v <<= 4;
        if (c >= '0' && c <= '9')
            *v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            *v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            *v |= (unsigned)(c - 'A' + 10);
        else
            return 0;
    }
    return 1;
}

/* Parse n bytes of the window with Jansson, \udcXX read as \ue0XX. */
static json_t *parse(scan *s, size_t n)
{
    char *p = s->buf + s->pos;
    json_error_t err;
    json_t *v;
    size_t i;
    for (i = 0; i + 1 < n; i++) {
        unsigned cp, lo;
        if (p[i] != '\\')
            continue;
        if (p[i + 1] != 'u' || i + 6 > n || !hex4(p + i + 2, &cp)) {
            i++; /* another escape, \\ among them */
            continue;
        }
        if (cp >= 0xD800 && cp <= 0xDBFF && i + 12 <= n && p[i + 6] == '\\' && p[i + 7] == 'u' &&
            hex4(p + i + 8, &lo) && lo >= 0xDC00 && lo <= 0xDFFF)
            i += 6; /* a pair */
        else if (cp >= 0xDC00 && cp <= 0xDCFF) /* a lone low surrogate */
            p[i + 2] = 'e', p[i + 3] = '0';
        i += 5;
    }
    v = json_loadb(p, n, JSON_DECODE_ANY | JSON_DISABLE_EOF_CHECK | JSON_REJECT_DUPLICATES, &err);
    if (!v)
        bad(s, "%s", err.text);
    return v;
}

/* ---- a file's record, read in place ------------------------------------------
 * A record is checked to be one JSON object as Jansson would (strings of
 * valid UTF-8 without NUL, numbers a double or a 64-bit integer holds,
 * nesting under 64 levels) and the members the merge needs are decoded into
 * a scratch buffer; the rest is only stepped over.  A member the merge
 * reads may not be given twice. */
typedef struct rec {
    const char *p, *end;
    char *out;          /* decoded strings, one after another */
    size_t used, cap;
    const char *why;
} rec;

static int rec_fail(rec *r, const char *why)
{
    if (!r->why)
        r->why = why;
    return -1;
}

static void rec_ws(rec *r)
{
    while (r->p < r->end && is_space(*r->p))
        r->p++;
}


/* The valid UTF-8 sequence at p (at most n bytes): its length, or 0. */
static size_t utf8_seq(const unsigned char *p, size_t n)
{
    unsigned c = p[0];
    size_t len, i;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        len = 2;
    else if (c >= 0xE0 && c <= 0xEF)
        len = 3;
    else if (c >= 0xF0 && c <= 0xF4)
        len = 4;
    else
        return 0;
    if (n < len)
        return 0;
    for (i = 1; i < len; i++)
        if ((p[i] & 0xC0) != 0x80)
            return 0;
    if ((c == 0xE0 && p[1] < 0xA0) || (c == 0xED && p[1] >= 0xA0) ||
        (c == 0xF0 && p[1] < 0x90) || (c == 0xF4 && p[1] >= 0x90))
        return 0;
    return len;
}

static void put_utf8(char *o, size_t *k, unsigned cp)
{
    if (cp < 0x80) {
        o[(*k)++] = (char)cp;
    } else if (cp < 0x800) {
        o[(*k)++] = (char)(0xC0 | (cp >> 6));
        o[(*k)++] = (char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        o[(*k)++] = (char)(0xE0 | (cp >> 12));
        o[(*k)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[(*k)++] = (char)(0x80 | (cp & 0x3F));
    } else {
        o[(*k)++] = (char)(0xF0 | (cp >> 18));
        o[(*k)++] = (char)(0x80 | ((cp >> 12) & 0x3F));
        o[(*k)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[(*k)++] = (char)(0x80 | (cp & 0x3F));
    }
}

/* A string at r->p; decoded into the scratch buffer when `out` is given
 * (a lone \udcXX, a byte of a name that is not UTF-8, as U+E0XX). */
static int rec_string(rec *r, const char **out)
{
    char *o = out ? r->out + r->used : NULL;
    size_t k = 0;
    if (r->p >= r->end || *r->p != '"')
        return rec_fail(r, "a string expected");
    r->p++;
    for (;;) {
        unsigned char c;
        if (r->p >= r->end)
            return rec_fail(r, "a string cut short");
        c = (unsigned char)*r->p;
        if (c == '"') {
            r->p++;
            break;
        }
        if (c < 0x20)
            return rec_fail(r, "a control character in a string");
        if (c == '\\') {
            unsigned cp, lo;
            if (r->end - r->p < 2)
                return rec_fail(r, "a string cut short");
            c = (unsigned char)r->p[1];
            if (c != 'u') {
                const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t", *at;
                if (!(at = strchr(from, c)) || !c)
                    return rec_fail(r, "an unknown escape in a string");
                if (o)
                    o[k++] = to[at - from];
                r->p += 2;
                continue;
            }
            if (r->end - r->p < 6 || !hex4(r->p + 2, &cp))
                return rec_fail(r, "a \\u escape cut short");
            r->p += 6;
            if (cp >= 0xD800 && cp <= 0xDBFF) { /* the first of a pair */
                if (r->end - r->p < 6 || r->p[0] != '\\' || r->p[1] != 'u' ||
                    !hex4(r->p + 2, &lo) || lo < 0xDC00 || lo > 0xDFFF)
                    return rec_fail(r, "a lone surrogate in a string");
                r->p += 6;
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            } else if (cp >= 0xDC00 && cp <= 0xDCFF) {
                cp = 0xE000 | (cp & 0xFF);
            } else if (cp >= 0xDD00 && cp <= 0xDFFF) {
                return rec_fail(r, "a lone surrogate in a string");
            } else if (cp == 0) {
                return rec_fail(r, "a NUL character in a string");
            }
            if (o)
                put_utf8(o, &k, cp);
            continue;
        }
        if (c < 0x80) { /* a plain run, at once */
            const char *q = r->p + 1;
            while (q < r->end && (unsigned char)*q >= 0x20 && (unsigned char)*q < 0x80 &&
                   *q != '"' && *q != '\\')
                q++;
            if (o) {
                memcpy(o + k, r->p, (size_t)(q - r->p));
                k += (size_t)(q - r->p);
            }
            r->p = q;
            continue;
        }
        {
            size_t len = utf8_seq((const unsigned char *)r->p, (size_t)(r->end - r->p));
            if (!len)
                return rec_fail(r, "a string that is not UTF-8");
            if (o) {
                memcpy(o + k, r->p, len);
                k += len;
            }
            r->p += len;
        }
    }
    if (o) {
        o[k] = '\0';
        *out = o;
        r->used += k + 1;
    }
    return 0;
}

/* A number at r->p, as JSON writes one; its value when `value` is given
 * (an exponent is read in any case: it may be out of range). */
static int rec_number(rec *r, double *value, int *integral)
{
    int exponent = 0;
    double v;
    const char *start = r->p, *q = r->p;
    char text[64];
    int digits = 0;
    *integral = 1;
    if (q < r->end && *q == '-')
        q++;
    if (q < r->end && *q == '0') {
        q++;
        digits = 1;
    } else {
        for (; q < r->end && *q >= '0' && *q <= '9'; q++)
            digits++;
    }
    if (!digits)
        return rec_fail(r, "a value expected");
    if (q < r->end && *q == '.') {
        *integral = 0;
        for (q++, digits = 0; q < r->end && *q >= '0' && *q <= '9'; q++)
            digits++;
        if (!digits)
            return rec_fail(r, "a number cut short");
    }
    if (q < r->end && (*q == 'e' || *q == 'E')) {
        *integral = 0;
        exponent = 1;
        q++;
        if (q < r->end && (*q == '+' || *q == '-'))
            q++;
        for (digits = 0; q < r->end && *q >= '0' && *q <= '9'; q++)
            digits++;
        if (!digits)
            return rec_fail(r, "a number cut short");
    }
    if ((size_t)(q - start) >= sizeof text || (*integral && q - start > 18))
        return rec_fail(r, "a number too long");
    r->p = q;
    if (!value && !exponent)
        return 0; /* under 64 digits without an exponent: in range */
    memcpy(text, start, (size_t)(q - start));
    text[q - start] = '\0';
    v = strtod(text, NULL);
    if (!isfinite(v))
        return rec_fail(r, "a number out of range");
    if (value)
        *value = v;
    return 0;
}

static int rec_literal(rec *r, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(r->end - r->p) < n || memcmp(r->p, word, n) != 0)
        return rec_fail(r, "a value expected");
    r->p += n;
    return 0;
}

/* Any value, checked and stepped over. */
static int rec_skip(rec *r, int depth)
{
    int integral;
    char close;
    rec_ws(r);
    if (r->p >= r->end)
        return rec_fail(r, "a value expected");
    switch (*r->p) {
    case '"':
        return rec_string(r, NULL);
    case 't':
        return rec_literal(r, "true");
    case 'f':
        return rec_literal(r, "false");
    case 'n':
        return rec_literal(r, "null");
    case '{':
    case '[':
        break;
    default:
        return rec_number(r, NULL, &integral);
    }
    if (depth >= 64)
        return rec_fail(r, "nested too deeply");
    close = *r->p == '{' ? '}' : ']';
    r->p++;
    rec_ws(r);
    if (r->p < r->end && *r->p == close) {
        r->p++;
        return 0;
    }
    for (;;) {
        if (close == '}') {
            rec_ws(r);
            if (rec_string(r, NULL) != 0)
                return -1;
            rec_ws(r);
            if (r->p >= r->end || *r->p != ':')
                return rec_fail(r, "':' expected");
            r->p++;
        }
        if (rec_skip(r, depth + 1) != 0)
            return -1;
        rec_ws(r);
        if (r->p < r->end && *r->p == ',') {
            r->p++;
            continue;
        }
        if (r->p < r->end && *r->p == close) {
            r->p++;
            return 0;
        }
        return rec_fail(r, "',' or a closing bracket expected");
    }
}

enum { F_PATH, F_B64, F_STATUS, F_ERROR, F_WIDTH, F_HEIGHT, F_PSNR_IN, F_PSNR_OUT, F_PIN_INF,
       F_POUT_INF, F_SSIM_IN, F_SSIM_OUT, F_COUNT };
static const char *const REC_KEYS[F_COUNT] = {
    "path", "path_b64", "status", "error", "width", "height", "psnr_in_db", "psnr_out_db",
    "psnr_in_db_infinite", "psnr_out_db_infinite", "ssim_in", "ssim_out"};

/* One member the merge reads. */
static int rec_field(rec *r, int f, report_record *out, int *psnr_state, int *inf)
{
    double v;
    int integral;
    const char *text = NULL;
    const char **dest = f == F_PATH ? &out->path : f == F_B64 ? &out->path_b64
                      : f == F_STATUS ? &out->status : f == F_ERROR ? &out->error : NULL;
    if (dest) { /* a string, or null */
        if (r->p < r->end && *r->p == 'n')
            return rec_literal(r, "null");
        if (rec_string(r, &text) != 0)
            return -1;
        *dest = text;
        return 0;
    }
    if (f == F_PIN_INF || f == F_POUT_INF) {
        int *flag = &inf[f - F_PIN_INF];
        if (r->p < r->end && *r->p == 't')
            return *flag = 1, rec_literal(r, "true");
        return rec_skip(r, 1);
    }
    if (f == F_PSNR_IN || f == F_PSNR_OUT) {
        int *state = &psnr_state[f - F_PSNR_IN];
        double *value = f == F_PSNR_IN ? &out->psnr_in : &out->psnr_out;
        if (r->p < r->end && *r->p == '"') { /* "inf", before 1.7 */
            if (rec_string(r, &text) != 0)
                return -1;
            *state = strcmp(text, "inf") == 0 ? 2 : 0;
            return 0;
        }
        if (r->p < r->end && (*r->p == '-' || (*r->p >= '0' && *r->p <= '9'))) {
            if (rec_number(r, value, &integral) != 0)
                return -1;
            *state = 1;
            return 0;
        }
        *state = 3; /* null: infinite when its flag says so */
        return rec_skip(r, 1);
    }
    if (r->p >= r->end || !(*r->p == '-' || (*r->p >= '0' && *r->p <= '9')))
        return rec_skip(r, 1);
    if (rec_number(r, &v, &integral) != 0)
        return -1;
    switch (f) {
    case F_WIDTH:
        out->have_width = integral && v >= 0 && v <= 2e9;
        out->width = (long long)v;
        break;
    case F_HEIGHT:
        out->have_height = integral && v >= 0 && v <= 2e9;
        out->height = (long long)v;
        break;
    case F_SSIM_IN:
        out->have_ssim_in = 1;
        out->ssim_in = v;
        break;
    default:
        out->have_ssim_out = 1;
        out->ssim_out = v;
        break;
    }
    return 0;
}

/* The record text[0, n): 0 with `out` filled, or -1 with the reason. */
static int read_record(const char *text, size_t n, char **scratch, size_t *scratch_cap,
                       report_record *out, const char **why)
{
    rec r;
    int seen[F_COUNT] = {0}, psnr_state[2] = {0, 0}, inf[2] = {0, 0};
    memset(out, 0, sizeof *out);
    memset(&r, 0, sizeof r);
    if (*scratch_cap < n + 16) {
        char *grown = (char *)realloc(*scratch, n + 16);
        if (!grown)
            return *why = "out of memory", -1;
        *scratch = grown;
        *scratch_cap = n + 16;
    }
    r.p = text;
    r.end = text + n;
    r.out = *scratch;
    rec_ws(&r);
    if (r.p >= r.end || *r.p != '{')
        return *why = "a file's record is not an object", -1;
    r.p++;
    rec_ws(&r);
    if (r.p < r.end && *r.p == '}') {
        r.p++;
    } else {
        for (;;) {
            const char *key, *raw;
            size_t mark = r.used, len;
            int f;
            rec_ws(&r);
            raw = r.p + 1;
            if (rec_string(&r, NULL) != 0)
                break;
            len = (size_t)(r.p - 1 - raw);
            if (memchr(raw, '\\', len)) { /* escaped: compared decoded */
                r.p = raw - 1;
                if (rec_string(&r, &key) != 0)
                    break;
                len = strlen(key);
                raw = key;
            }
            for (f = 0; f < F_COUNT && !(strlen(REC_KEYS[f]) == len &&
                                         memcmp(raw, REC_KEYS[f], len) == 0); f++)
                ;
            r.used = mark; /* the key is not kept */
            rec_ws(&r);
            if (r.p >= r.end || *r.p != ':') {
                rec_fail(&r, "':' expected");
                break;
            }
            r.p++;
            rec_ws(&r);
            if (f < F_COUNT && seen[f]++) {
                rec_fail(&r, "a member given twice");
                break;
            }
            if ((f < F_COUNT ? rec_field(&r, f, out, psnr_state, inf) : rec_skip(&r, 1)) != 0)
                break;
            rec_ws(&r);
            if (r.p < r.end && *r.p == ',') {
                r.p++;
                continue;
            }
            if (r.p < r.end && *r.p == '}') {
                r.p++;
                break;
            }
            rec_fail(&r, "',' or '}' expected");
            break;
        }
        if (r.why)
            return *why = r.why, -1;
    }
    rec_ws(&r);
    if (r.p != r.end)
        return *why = "bytes after a file's record", -1;
    /* a PSNR of null is infinite when its flag says so */
    out->have_psnr_in = psnr_state[0] == 1 || psnr_state[0] == 2 || (psnr_state[0] == 3 && inf[0]);
    out->have_psnr_out = psnr_state[1] == 1 || psnr_state[1] == 2 || (psnr_state[1] == 3 && inf[1]);
    if (psnr_state[0] >= 2)
        out->psnr_in = INFINITY;
    if (psnr_state[1] >= 2)
        out->psnr_out = INFINITY;
    return 0;
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
    char *scratch = NULL;
    size_t scratch_cap = 0;
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
                    report_record record;
                    const char *fault = NULL;
                    if ((n = value_len(&s)) == 0) {
                        if (!why[0])
                            bad(&s, "a record cut short");
                        goto done;
                    }
                    if (cb->parse_files &&
                        read_record(s.buf + s.pos, n, &scratch, &scratch_cap, &record, &fault)) {
                        bad(&s, "%s", fault);
                        goto done;
                    }
                    c = cb->on_file(user, s.buf + s.pos, n, cb->parse_files ? &record : NULL);
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
    free(scratch);
    return rc;
}
