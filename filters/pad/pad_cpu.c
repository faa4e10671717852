/* Padding, CPU reference: a column map computed once per call, then each
 * output row is either zeros or a copy of one source row through that map.
 * Samples are moved as bytes: a 16-bit pixel of c channels is 2c of them. */
#include "filters/filters.h"
#include "filters/pad/pad.h"
#include "core/errors.h"
#include "core/image.h"

#include <string.h>

jf_status jf_pad_cpu(const jf_image *src, int radius, jf_border border, jf_image *dst)
{
    const int ch = src->channels * (int)jf_bps(src), w = src->width, h = src->height;
    const int pw = w + 2 * radius, ph = h + 2 * radius;
    int col[2 * 4096 + 1]; /* radius <= 4096 (checked by every caller) */
    int x, y, c;

    /* col[] maps only the border columns; the middle is one memcpy */
    for (x = 0; x < radius; x++) {
        col[x] = jf_border_index(x - radius, w, border);
        col[radius + 1 + x] = jf_border_index(w + x, w, border);
    }
    for (y = 0; y < ph; y++) {
        int sy = jf_border_index(y - radius, h, border);
        unsigned char *d = dst->data + (size_t)y * dst->stride;
        const unsigned char *s;
        if (sy < 0) {
            memset(d, 0, (size_t)pw * (size_t)ch);
            continue;
        }
        s = src->data + (size_t)sy * src->stride;
        for (x = 0; x < radius; x++)
            for (c = 0; c < ch; c++) {
                d[x * ch + c] = col[x] < 0 ? 0 : s[col[x] * ch + c];
                d[(radius + w + x) * ch + c] =
                    col[radius + 1 + x] < 0 ? 0 : s[col[radius + 1 + x] * ch + c];
            }
        memcpy(d + (size_t)radius * ch, s, (size_t)w * ch);
    }
    return JF_OK;
}
