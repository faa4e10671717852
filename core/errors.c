/* Status names and the per-thread error detail. */
#define _POSIX_C_SOURCE 200809L
#include "core/errors.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define JF_ERROR_MAX 512

static _Thread_local char g_detail[JF_ERROR_MAX];
static _Thread_local char g_warning[JF_ERROR_MAX];

const char *jf_status_str(jf_status status)
{
    switch (status) {
    case JF_OK: return "ok";
    case JF_ERR_ARG: return "invalid argument";
    case JF_ERR_IO: return "I/O error";
    case JF_ERR_DECODE: return "decode error";
    case JF_ERR_ENCODE: return "encode error";
    case JF_ERR_UNSUPPORTED: return "unsupported";
    case JF_ERR_LIMIT: return "over limit";
    case JF_ERR_NOMEM: return "out of memory";
    case JF_ERR_CUDA: return "CUDA error";
    case JF_ERR_NO_DEVICE: return "no CUDA device";
    case JF_ERR_INTERNAL: return "internal error";
    }
    return "unknown status";
}

const char *jf_last_error(void) { return g_detail; }

const char *jf_version(void) { return JF_VERSION_STRING; }

jf_status jf_fail(jf_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_detail, sizeof g_detail, fmt, ap);
    va_end(ap);
    return status;
}

void jf_error_prefix(const char *prefix)
{
    size_t p, d;
    if (!prefix || !*prefix)
        return;
    p = strlen(prefix);
    if (p > JF_ERROR_MAX / 2)
        p = JF_ERROR_MAX / 2;
    d = strlen(g_detail);
    if (d > JF_ERROR_MAX - p - 3)
        d = JF_ERROR_MAX - p - 3;
    memmove(g_detail + p + 2, g_detail, d);
    g_detail[p + 2 + d] = '\0';
    memcpy(g_detail, prefix, p);
    g_detail[p] = ':';
    g_detail[p + 1] = ' ';
}

void jf_error_clear(void) { g_detail[0] = '\0'; }

const char *jf_last_warning(void) { return g_warning; }

void jf_warning_clear(void) { g_warning[0] = '\0'; }

void jf_warn(const char *fmt, ...)
{
    char add[JF_ERROR_MAX];
    size_t used = strlen(g_warning), n;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(add, sizeof add, fmt, ap);
    va_end(ap);
    if (used && strstr(g_warning, add))
        return; /* said once per picture */
    if (used + 2 >= sizeof g_warning)
        return;
    if (used) {
        memcpy(g_warning + used, "; ", 2);
        used += 2;
    }
    /* truncated at the end of the buffer: warnings are one line */
    n = strnlen(add, sizeof g_warning - used - 1);
    memcpy(g_warning + used, add, n);
    g_warning[used + n] = '\0';
}
