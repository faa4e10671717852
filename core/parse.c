/* The one parser of numbers and sizes from text (core/parse.h). */
#include "core/parse.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int jf_parse_ll(const char *text, long long *out)
{
    char *end = NULL;
    long long v;
    if (!text || !text[0] || isspace((unsigned char)text[0]))
        return -1;
    errno = 0;
    v = strtoll(text, &end, 10);
    if (end == text || *end || errno)
        return -1;
    *out = v;
    return 0;
}

int jf_parse_real(const char *text, double *out)
{
    char *end = NULL;
    double v;
    if (!text || !text[0] || isspace((unsigned char)text[0]))
        return -1;
    errno = 0;
    v = strtod(text, &end);
    if (end == text || *end || errno || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

int jf_parse_wxh(const char *text, int max_side, int *width, int *height)
{
    char part[24];
    const char *x;
    long long w, h;
    if (!text || !(x = strchr(text, 'x')) || (size_t)(x - text) >= sizeof part)
        return -1;
    memcpy(part, text, (size_t)(x - text));
    part[x - text] = '\0';
    /* digits only: no signs or spaces inside a size */
    if (!isdigit((unsigned char)part[0]) || !isdigit((unsigned char)x[1]) ||
        jf_parse_ll(part, &w) || jf_parse_ll(x + 1, &h) || w < 1 || h < 1 || w > max_side ||
        h > max_side)
        return -1;
    *width = (int)w;
    *height = (int)h;
    return 0;
}
