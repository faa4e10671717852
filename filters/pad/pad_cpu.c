/* Padding, CPU reference: each output row is either zeros or one source row
 * with its border pixels beside it.  Samples are moved as bytes: a 16-bit
 * pixel of c channels is 2c of them. */
#include "filters/filters.h"
#include "filters/pad/pad.h"
#include "core/errors.h"
#include "core/image.h"

#include <string.h>

void jf_pad_row_border(const unsigned char *row, int w, size_t px, int radius, jf_border border,
                       unsigned char *left, unsigned char *right)
{
    int x;
    for (x = 1; x <= radius; x++) {
        const int l = jf_border_index(-x, w, border), r = jf_border_index(w - 1 + x, w, border);
        if (l < 0)
            memset(left + (size_t)(radius - x) * px, 0, px);
        else
            memcpy(left + (size_t)(radius - x) * px, row + (size_t)l * px, px);
        if (r < 0)
            memset(right + (size_t)(x - 1) * px, 0, px);
        else
            memcpy(right + (size_t)(x - 1) * px, row + (size_t)r * px, px);
    }
}

void jf_pad_row(const jf_image *src, int radius, jf_border border, int py, unsigned char *out)
{
    const size_t px = (size_t)src->channels * jf_bps(src);
    const int w = src->width, sy = jf_border_index(py - radius, src->height, border);
    const unsigned char *row;
    if (sy < 0) {
        memset(out, 0, (size_t)(w + 2 * radius) * px);
        return;
    }
    row = src->data + (size_t)sy * src->stride;
    memcpy(out + (size_t)radius * px, row, (size_t)w * px);
    jf_pad_row_border(row, w, px, radius, border, out, out + (size_t)(radius + w) * px);
}

jf_status jf_pad_cpu(const jf_image *src, int radius, jf_border border, jf_image *dst)
{
    const int ph = src->height + 2 * radius;
    int y;
    for (y = 0; y < ph; y++)
        jf_pad_row(src, radius, border, y, dst->data + (size_t)y * dst->stride);
    return JF_OK;
}
