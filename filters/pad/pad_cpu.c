/* Padding, CPU reference: each output row is either zeros or one source row
 * with its border pixels beside it.  Samples are moved as bytes: a 16-bit
 * pixel of c channels is 2c of them. */
#include "filters/filters.h"
#include "filters/pad/pad.h"
#include "core/errors.h"
#include "core/image.h"

#include <string.h>

void jf_pad_row(const jf_image *src, int radius, jf_border border, int py, unsigned char *out)
{
    const size_t px = (size_t)src->channels * jf_bps(src);
    const int w = src->width, sy = jf_border_index(py - radius, src->height, border);
    const unsigned char *row;
    int x;
    if (sy < 0) {
        memset(out, 0, (size_t)(w + 2 * radius) * px);
        return;
    }
    row = src->data + (size_t)sy * src->stride;
    memcpy(out + (size_t)radius * px, row, (size_t)w * px);
    for (x = 1; x <= radius; x++) {
        const int left = jf_border_index(-x, w, border);
        const int right = jf_border_index(w - 1 + x, w, border);
        if (left < 0)
            memset(out + (size_t)(radius - x) * px, 0, px);
        else
            memcpy(out + (size_t)(radius - x) * px, row + (size_t)left * px, px);
        if (right < 0)
            memset(out + (size_t)(radius + w - 1 + x) * px, 0, px);
        else
            memcpy(out + (size_t)(radius + w - 1 + x) * px, row + (size_t)right * px, px);
    }
}

jf_status jf_pad_cpu(const jf_image *src, int radius, jf_border border, jf_image *dst)
{
    const int ph = src->height + 2 * radius;
    int y;
    for (y = 0; y < ph; y++)
        jf_pad_row(src, radius, border, y, dst->data + (size_t)y * dst->stride);
    return JF_OK;
}
