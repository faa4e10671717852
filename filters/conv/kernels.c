/* Weight matrices: presets and text files. */
#define _POSIX_C_SOURCE 200809L
#include "filters/filters.h"
#include "pipeline/errors.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Parse numbers from one line into vals; returns the count or -1 on junk. */
static int parse_line(char *line, double *vals, int max, char **bad)
{
    int n = 0;
    char *p = line, *end;
    char *hash = strchr(line, '#');
    if (hash)
        *hash = '\0';
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == ',' || *p == '\r' || *p == '\n')
            p++;
        if (!*p)
            return n;
        errno = 0;
        vals[n < max ? n : max - 1] = strtod(p, &end);
        if (end == p || errno == ERANGE || !isfinite(vals[n < max ? n : max - 1])) {
            *bad = p;
            return -1;
        }
        n++;
        p = end;
    }
}

jf_status jf_kernel_load(const char *path, jf_kernel *out)
{
    FILE *f = NULL;
    char line[8192];
    double vals[JF_CONV_MAX_KSIZE + 1];
    float *w = NULL;
    int k = 0, rows = 0, lineno = 0, n, i;
    jf_status st = JF_OK;
    char *bad = NULL;

    if (!out || !path)
        return jf_fail(JF_ERR_ARG, "jf_kernel_load: NULL argument");
    out->ksize = 0;
    out->weights = NULL;
    f = fopen(path, "r");
    if (!f)
        return jf_fail(JF_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (!strchr(line, '\n') && !feof(f)) {
            st = jf_fail(JF_ERR_ARG, "%s:%d: line too long", path, lineno);
            goto done;
        }
        n = parse_line(line, vals, JF_CONV_MAX_KSIZE + 1, &bad);
        if (n < 0) {
            bad[strcspn(bad, " \t,\r\n")] = '\0';
            st = jf_fail(JF_ERR_ARG, "%s:%d: '%s' is not a number", path, lineno, bad);
            goto done;
        }
        if (n == 0)
            continue;
        if (k == 0) {
            k = n;
            if (k % 2 == 0 || k > JF_CONV_MAX_KSIZE) {
                st = jf_fail(JF_ERR_ARG, "%s:%d: %d numbers in a row; rows need an odd count "
                             "from 1 to %d", path, lineno, n, JF_CONV_MAX_KSIZE);
                goto done;
            }
            w = (float *)malloc(sizeof(float) * (size_t)k * (size_t)k);
            if (!w) {
                st = jf_fail(JF_ERR_NOMEM, "%s: out of memory", path);
                goto done;
            }
        } else if (n != k) {
            st = jf_fail(JF_ERR_ARG, "%s:%d: %d numbers, but the first row had %d", path,
                         lineno, n, k);
            goto done;
        }
        if (rows == k) {
            st = jf_fail(JF_ERR_ARG, "%s:%d: more than %d rows for a %dx%d kernel", path,
                         lineno, k, k, k);
            goto done;
        }
        for (i = 0; i < k; i++)
            w[rows * k + i] = (float)vals[i];
        rows++;
    }
    if (ferror(f)) {
        st = jf_fail(JF_ERR_IO, "%s: read error", path);
        goto done;
    }
    if (k == 0) {
        st = jf_fail(JF_ERR_ARG, "%s: no weights found", path);
        goto done;
    }
    if (rows != k) {
        st = jf_fail(JF_ERR_ARG, "%s: %d rows, but a %dx%d kernel needs %d", path, rows, k, k, k);
        goto done;
    }
    out->ksize = k;
    out->weights = w;
    w = NULL;
done:
    free(w);
    if (f)
        fclose(f);
    return st;
}
