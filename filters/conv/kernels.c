/* Weight matrices: presets and text files. */
#define _POSIX_C_SOURCE 200809L
#include "filters/filters.h"
#include "core/errors.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static jf_status kernel_alloc(jf_kernel *out, int k)
{
    out->weights = (float *)calloc((size_t)k * (size_t)k, sizeof(float));
    if (!out->weights)
        return jf_fail(JF_ERR_NOMEM, "jf_kernel: out of memory");
    out->ksize = k;
    return JF_OK;
}

void jf_kernel_free(jf_kernel *kernel)
{
    if (!kernel)
        return;
    free(kernel->weights);
    kernel->weights = NULL;
    kernel->ksize = 0;
}

jf_status jf_kernel_make(jf_kernel_preset preset, int k, double sigma, jf_kernel *out)
{
    jf_status st;
    int i, j, r;
    if (!out)
        return jf_fail(JF_ERR_ARG, "jf_kernel_make: out is NULL");
    out->ksize = 0;
    out->weights = NULL;
    if (preset == JF_KERNEL_GAUSS && k == 0) {
        if (!(sigma > 0.0) || sigma > 10.0)
            return jf_fail(JF_ERR_ARG, "gauss: sigma %g must be in (0, 10] when no size is given",
                           sigma);
        k = 2 * (int)ceil(3.0 * sigma) + 1;
    }
    if (preset == JF_KERNEL_LAPLACE && k == 0)
        k = 3;
    if ((st = jf_check_ksize("jf_kernel_make", k, JF_CONV_MAX_KSIZE)) != JF_OK)
        return st;
    r = k / 2;
    switch (preset) {
    case JF_KERNEL_BOX:
        if ((st = kernel_alloc(out, k)) != JF_OK)
            return st;
        for (i = 0; i < k * k; i++)
            out->weights[i] = 1.0f / (float)(k * k);
        return JF_OK;
    case JF_KERNEL_GAUSS: {
        double g[JF_CONV_MAX_KSIZE], sum = 0.0;
        if (sigma <= 0.0)
            sigma = 0.3 * ((k - 1) * 0.5 - 1.0) + 0.8;
        for (i = 0; i < k; i++) {
            g[i] = exp(-0.5 * (double)((i - r) * (i - r)) / (sigma * sigma));
            sum += g[i];
        }
        if ((st = kernel_alloc(out, k)) != JF_OK)
            return st;
        for (j = 0; j < k; j++)
            for (i = 0; i < k; i++)
                out->weights[j * k + i] = (float)(g[j] * g[i] / (sum * sum));
        return JF_OK;
    }
    case JF_KERNEL_SHARPEN:
        if ((st = kernel_alloc(out, k)) != JF_OK)
            return st;
        for (i = 0; i < k * k; i++)
            out->weights[i] = -1.0f / (float)(k * k);
        out->weights[r * k + r] += 2.0f;
        return JF_OK;
    case JF_KERNEL_LAPLACE:
        if (k != 3)
            return jf_fail(JF_ERR_ARG, "laplace: only k = 3 is defined (got %d)", k);
        if ((st = kernel_alloc(out, 3)) != JF_OK)
            return st;
        out->weights[1] = out->weights[3] = out->weights[5] = out->weights[7] = 1.0f;
        out->weights[4] = -4.0f;
        return JF_OK;
    default:
        return jf_fail(JF_ERR_ARG, "jf_kernel_make: unknown preset %d", (int)preset);
    }
}

/* Weights larger than this would let a k = 63 sum overflow a float. */
#define JF_WEIGHT_MAX 1e30

/* One number at p (already past separators): its value, or an error naming
 * the line.  Tiny values (subnormals, 1e-320) are fine; 1e39 is not a float. */
static jf_status parse_number(const char *p, const char **end, double *v, const char *name,
                              int lineno)
{
    char token[64];
    size_t n = strcspn(p, " \t,\r\n#");
    char *stop;
    snprintf(token, sizeof token, "%.*s", (int)(n < 40 ? n : 40), p);
    errno = 0;
    *v = strtod(p, &stop);
    if (stop == p || (size_t)(stop - p) != n)
        return jf_fail(JF_ERR_ARG, "%s:%d: '%s' is not a number", name, lineno, token);
    if (!isfinite(*v) && errno != ERANGE) /* "nan", "inf" */
        return jf_fail(JF_ERR_ARG, "%s:%d: '%s' is not a finite number", name, lineno, token);
    if (!(fabs(*v) <= JF_WEIGHT_MAX))
        return jf_fail(JF_ERR_ARG, "%s:%d: %s is too large for a weight (at most 1e30 in "
                       "magnitude)", name, lineno, token);
    *end = stop;
    return JF_OK;
}

/* The numbers of one line (comment stripped) into vals; *n of them. */
static jf_status parse_row(const char *line, size_t len, const char *name, int lineno,
                           double *vals, int *n)
{
    char buf[16384];
    const char *p = buf;
    jf_status st;
    *n = 0;
    if (len >= sizeof buf)
        return jf_fail(JF_ERR_ARG, "%s:%d: line of %zu bytes is too long (at most %zu)", name,
                       lineno, len, sizeof buf - 1);
    memcpy(buf, line, len);
    buf[len] = '\0';
    buf[strcspn(buf, "#")] = '\0';
    for (;;) {
        p += strspn(p, " \t,\r");
        if (!*p)
            return JF_OK;
        if (*n == JF_CONV_MAX_KSIZE)
            return jf_fail(JF_ERR_ARG, "%s:%d: more than %d numbers in a row", name, lineno,
                           JF_CONV_MAX_KSIZE);
        if ((st = parse_number(p, &p, &vals[*n], name, lineno)) != JF_OK)
            return st;
        (*n)++;
    }
}

/* The first row fixes k; every row after it must have k numbers. */
static jf_status add_row(jf_kernel *kern, int *rows, const double *vals, int n, const char *name,
                         int lineno)
{
    int i, k = kern->ksize;
    if (k == 0) {
        if (n % 2 == 0)
            return jf_fail(JF_ERR_ARG, "%s:%d: %d numbers in a row; rows need an odd count "
                           "from 1 to %d", name, lineno, n, JF_CONV_MAX_KSIZE);
        if (!(kern->weights = (float *)malloc(sizeof(float) * (size_t)n * (size_t)n)))
            return jf_fail(JF_ERR_NOMEM, "%s: out of memory", name);
        kern->ksize = k = n;
    } else if (n != k) {
        return jf_fail(JF_ERR_ARG, "%s:%d: %d numbers, but the first row had %d", name, lineno,
                       n, k);
    }
    if (*rows == k)
        return jf_fail(JF_ERR_ARG, "%s:%d: more than %d rows for a %dx%d kernel", name, lineno,
                       k, k, k);
    for (i = 0; i < k; i++)
        kern->weights[*rows * k + i] = (float)vals[i];
    (*rows)++;
    return JF_OK;
}

jf_status jf_kernel_parse(const char *text, size_t size, const char *name, jf_kernel *out)
{
    double vals[JF_CONV_MAX_KSIZE];
    jf_kernel kern = {0, NULL};
    int rows = 0, lineno = 0, n;
    size_t at = 0;
    jf_status st = JF_OK;

    if (!out || (!text && size))
        return jf_fail(JF_ERR_ARG, "jf_kernel_parse: NULL argument");
    out->ksize = 0;
    out->weights = NULL;
    if (!name)
        name = "<memory>";
    if (text && memchr(text, '\0', size))
        return jf_fail(JF_ERR_ARG, "%s: holds a NUL byte at offset %zu; not a text file", name,
                       (size_t)((const char *)memchr(text, '\0', size) - text));
    while (at < size && st == JF_OK) {
        const char *line = text + at, *nl = (const char *)memchr(line, '\n', size - at);
        const size_t len = nl ? (size_t)(nl - line) : size - at;
        at += len + (nl ? 1 : 0);
        lineno++;
        if ((st = parse_row(line, len, name, lineno, vals, &n)) == JF_OK && n > 0)
            st = add_row(&kern, &rows, vals, n, name, lineno);
    }
    if (st == JF_OK && kern.ksize == 0)
        st = jf_fail(JF_ERR_ARG, "%s: no weights found", name);
    else if (st == JF_OK && rows != kern.ksize)
        st = jf_fail(JF_ERR_ARG, "%s: %d rows, but a %dx%d kernel needs %d", name, rows,
                     kern.ksize, kern.ksize, kern.ksize);
    if (st != JF_OK) {
        jf_kernel_free(&kern);
        return st;
    }
    *out = kern;
    return JF_OK;
}

/* Kernel files are small: 63 rows of 63 numbers.  Anything over this is not
 * one (and is not read into memory). */
#define JF_KERNEL_FILE_MAX ((size_t)4 << 20)

jf_status jf_kernel_load(const char *path, jf_kernel *out)
{
    struct stat sb;
    char *text = NULL;
    size_t got = 0;
    jf_status st;
    int fd;

    if (!out || !path)
        return jf_fail(JF_ERR_ARG, "jf_kernel_load: NULL argument");
    out->ksize = 0;
    out->weights = NULL;
    /* non-blocking open: a FIFO or a device is refused, never waited on */
    fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return jf_fail(JF_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        return jf_fail(JF_ERR_IO, "%s: not a regular file", path);
    }
    if ((size_t)sb.st_size > JF_KERNEL_FILE_MAX) {
        close(fd);
        return jf_fail(JF_ERR_ARG, "%s: %lld bytes is too large for a kernel file", path,
                       (long long)sb.st_size);
    }
    if (!(text = (char *)malloc((size_t)sb.st_size + 1))) {
        close(fd);
        return jf_fail(JF_ERR_NOMEM, "%s: out of memory", path);
    }
    while (got < (size_t)sb.st_size) {
        ssize_t r = read(fd, text + got, (size_t)sb.st_size - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    st = got == (size_t)sb.st_size ? jf_kernel_parse(text, got, path, out)
                                   : jf_fail(JF_ERR_IO, "%s: read error", path);
    free(text);
    return st;
}
