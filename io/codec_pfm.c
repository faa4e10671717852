/*
 * PFM (the Portable Float Map of the Netpbm family, as HDR and depth tools
 * write it): float32 samples, grey ("Pf") or RGB ("PF").
 *
 * The header is three text tokens after the magic (width, height, a scale
 * whose sign is the byte order: negative little-endian, positive big) each
 * followed by white space, the last by exactly one byte; then the rows,
 * bottom row first, with no padding.  Read: either byte order, turned the
 * usual way up; the scale's size is not applied (the samples are the
 * values, as OpenCV and NumPy readers take them).  Write: little-endian,
 * scale -1.  PFM has no alpha and no metadata.
 */
#include "io/io.h"
#include "core/errors.h"
#include "core/image.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_space(unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* One header token at `*at`: leading white space skipped, the token's
 * bytes copied into `tok` (NUL-terminated); *at left on the byte after it. */
static int token(const unsigned char *b, size_t size, size_t *at, char *tok, size_t n)
{
    size_t i = 0;
    while (*at < size && is_space(b[*at]))
        (*at)++;
    while (*at < size && !is_space(b[*at])) {
        if (i + 1 >= n || b[*at] < 0x21 || b[*at] > 0x7E) /* text only: no NUL inside */
            return 0;
        tok[i++] = (char)b[(*at)++];
    }
    tok[i] = '\0';
    return i > 0 && *at < size;
}

static int whole_number(const char *s, uint32_t *out)
{
    uint64_t v = 0;
    if (!*s)
        return 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || v > 0xFFFFFFFFu / 10)
            return 0;
        v = v * 10 + (uint64_t)(*s - '0');
    }
    if (v == 0 || v > 0x7FFFFFFFu)
        return 0;
    *out = (uint32_t)v;
    return 1;
}

int jf_pfm_header(const unsigned char *b, size_t avail, uint64_t file_size, jf_pfm_scan *s,
                  char *why, size_t n)
{
    char tok[64], *end;
    size_t at = 2;
    uint64_t need;
    double scale;
    memset(s, 0, sizeof *s);
    if (avail < 3 || b[0] != 'P' || (b[1] != 'F' && b[1] != 'f') || !is_space(b[2]))
        return snprintf(why, n, "not a PFM file"), 0;
    s->channels = b[1] == 'F' ? 3 : 1;
    if (!token(b, avail, &at, tok, sizeof tok) || !whole_number(tok, &s->width) ||
        !token(b, avail, &at, tok, sizeof tok) || !whole_number(tok, &s->height))
        return snprintf(why, n, "PFM header: no width and height (two whole numbers from 1 "
                        "after \"P%c\")", b[1]), 0;
    if (!token(b, avail, &at, tok, sizeof tok))
        return snprintf(why, n, "PFM header: no scale after the size"), 0;
    scale = strtod(tok, &end);
    if (*end || scale == 0 || !isfinite(scale))
        return snprintf(why, n, "PFM header: scale '%s' is not a non-zero number (its sign gives "
                        "the byte order)", tok), 0;
    s->little_endian = scale < 0;
    s->data_offset = at + 1; /* the one white-space byte that ends the header */
    if ((uint64_t)s->width * s->height > ((uint64_t)1 << 40)) /* the size below cannot wrap */
        return snprintf(why, n, "PFM header: %ux%u pixels is more than any file holds", s->width,
                        s->height), 0;
    need = (uint64_t)s->width * s->height * (uint64_t)s->channels * 4u;
    if (need > file_size - s->data_offset)
        return snprintf(why, n, "PFM file cut short: %ux%u %s needs %llu bytes of samples, it has "
                        "%llu", s->width, s->height, s->channels == 3 ? "RGB" : "grey",
                        (unsigned long long)need, (unsigned long long)(file_size - s->data_offset)), 0;
    return 1;
}

jf_status jf_pfm_prescan(const unsigned char *b, size_t size, jf_pfm_scan *s)
{
    const jf_limits lim = jf_get_limits();
    char why[256];
    if (!jf_pfm_header(b, size, size, s, why, sizeof why))
        return jf_fail(JF_ERR_DECODE, "%s", why);
    if ((uint64_t)s->width * s->height > lim.max_pixels)
        return jf_fail(JF_ERR_LIMIT, "PFM image is %ux%u, over the limit of %llu pixels", s->width,
                       s->height, (unsigned long long)lim.max_pixels);
    return JF_OK;
}

static uint32_t swap32(uint32_t v)
{
    return (v >> 24) | ((v >> 8) & 0xFF00u) | ((v << 8) & 0xFF0000u) | (v << 24);
}

jf_status jf_pfm_decode(jf_context *frame_ctx, const unsigned char *bytes, size_t size,
                        jf_picture *pic)
{
    jf_pfm_scan s;
    size_t row, y, i;
    int swap;
    jf_status st;
    if ((st = jf_pfm_prescan(bytes, size, &s)) != JF_OK)
        return st;
    if ((st = jf_picture_alloc_color(frame_ctx, pic, (int)s.width, (int)s.height, s.channels,
                                     JF_SAMPLE_F32)) != JF_OK)
        return st;
    if (size - s.data_offset > (uint64_t)s.width * s.height * (uint64_t)s.channels * 4u)
        jf_warn("bytes after the PFM's samples left out");
    row = (size_t)s.width * (size_t)s.channels * 4u;
    swap = s.little_endian != jf_host_is_little_endian();
    for (y = 0; y < s.height; y++) { /* the file's first row is the bottom one */
        uint32_t *d = (uint32_t *)(void *)(pic->color.data + (s.height - 1 - y) * pic->color.stride);
        memcpy(d, bytes + s.data_offset + y * row, row);
        if (swap)
            for (i = 0; i < row / 4; i++)
                d[i] = swap32(d[i]);
    }
    pic->format = JF_FORMAT_PFM;
    return JF_OK;
}

jf_status jf_pfm_encode(const jf_picture *pic, unsigned char **out, size_t *out_size)
{
    const jf_image *img = &pic->color;
    char head[64];
    const size_t row = (size_t)img->width * (size_t)img->channels * 4u;
    size_t n, y, i;
    unsigned char *buf;
    if (pic->alpha.data)
        jf_warn("alpha left out (PFM has none)");
    n = (size_t)snprintf(head, sizeof head, "P%c\n%d %d\n-1.0\n", img->channels == 3 ? 'F' : 'f',
                         img->width, img->height);
    if (!(buf = (unsigned char *)malloc(n + row * (size_t)img->height)))
        return jf_fail(JF_ERR_NOMEM, "out of memory for a %dx%d PFM", img->width, img->height);
    memcpy(buf, head, n);
    for (y = 0; y < (size_t)img->height; y++) {
        unsigned char *d = buf + n + y * row;
        memcpy(d, img->data + ((size_t)img->height - 1 - y) * img->stride, row);
        if (!jf_host_is_little_endian())
            for (i = 0; i < row; i += 4) {
                uint32_t v;
                memcpy(&v, d + i, 4);
                v = swap32(v);
                memcpy(d + i, &v, 4);
            }
    }
    *out = buf;
    *out_size = n + row * (size_t)img->height;
    return JF_OK;
}
