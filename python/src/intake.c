/* The array intake of the Python extension (intake.h). */
#include "intake.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int refuse(char *why, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, n, fmt, ap);
    va_end(ap);
    return -1;
}

/* "|u1" -> 'u', 1, '|'; anything else -> 0 */
static int parse_typestr(const char *s, char *kind, int64_t *itemsize, char *order)
{
    int64_t size = 0;
    const char *p;
    if (!s || !strchr("<>|=", s[0]) || !s[0] || !s[1] || !s[2])
        return 0;
    for (p = s + 2; *p; p++) {
        if (*p < '0' || *p > '9' || size > 1000)
            return 0;
        size = size * 10 + (*p - '0');
    }
    *order = s[0];
    *kind = s[1];
    *itemsize = size;
    return 1;
}

static int little_endian(void)
{
    const uint16_t one = 1;
    return *(const unsigned char *)&one == 1;
}

int jfpy_intake(const jfpy_array *a, int writable, const char *what, jf_image *img, char *why,
                size_t n)
{
    char kind = 0, order = 0;
    int64_t itemsize = 0, h, w, c = 1, row, pixel, rowstride, last;
    int i;
    memset(img, 0, sizeof *img);
    if (a->ndim != 2 && a->ndim != 3)
        return refuse(why, n, "%s: %lld dimensions; want (H, W) or (H, W, C)", what,
                      (long long)a->ndim);
    if (!a->shape)
        return refuse(why, n, "%s: the producer gives no shape", what);
    for (i = 0; i < a->ndim; i++)
        if (a->shape[i] < 0)
            return refuse(why, n, "%s: a negative size (%lld) in the shape", what,
                          (long long)a->shape[i]);
    h = a->shape[0];
    w = a->shape[1];
    if (a->ndim == 3)
        c = a->shape[2];
    if (h == 0 || w == 0 || c == 0)
        return refuse(why, n, "%s: an empty image (%lldx%lld%s)", what, (long long)h, (long long)w,
                      a->ndim == 3 ? "xC" : "");
    if (c > 4)
        return refuse(why, n, "%s: %lld channels; want 1 to 4 (grey, grey+alpha, RGB, RGBA or CMYK)",
                      what, (long long)c);
    if (h > INT32_MAX || w > INT32_MAX)
        return refuse(why, n, "%s: %lld x %lld pixels is too large", what, (long long)w,
                      (long long)h);
    if (!parse_typestr(a->dtype, &kind, &itemsize, &order) ||
        !((kind == 'u' && (itemsize == 1 || itemsize == 2)) || (kind == 'f' && itemsize == 4)) ||
        a->lanes != 1)
        return refuse(why, n, "%s: dtype %s%s is not taken: uint8, uint16 or float32 images "
                      "(float16 through a float32 copy)", what,
                      a->dtype ? a->dtype : "(none)", a->lanes != 1 ? " with several lanes" : "");
    if (itemsize > 1 && (order == '>' || (order == '=' && !little_endian()) ||
                         (order == '<' && !little_endian())))
        return refuse(why, n, "%s: %s-endian %s: convert it to the machine's order "
                      "(astype('=%c%d'))", what, order == '>' ? "big" : "little",
                      kind == 'f' ? "float32" : "uint16", kind, (int)itemsize);
    if (a->location < 0 || a->location >= JF_LOC_COUNT)
        return refuse(why, n, "%s: memory of an unknown kind (%d)", what, a->location);
    if (writable && a->readonly)
        return refuse(why, n, "%s: a read-only array cannot be written (out= must be writable)",
                      what);
    if (a->data == 0)
        return refuse(why, n, "%s: the array's data pointer is NULL", what);
    if (a->data % (uint64_t)itemsize)
        return refuse(why, n, "%s: %s data at an address that is not a multiple of %d", what,
                      kind == 'f' ? "float32" : "uint16", (int)itemsize);
    pixel = c * itemsize;
    row = w * pixel; /* < 2^31 * 8: no overflow */
    rowstride = row;
    if (a->strides) {
        for (i = 0; i < a->ndim; i++) /* a dimension of size 1 never steps: any stride */
            if (a->strides[i] < 0 && a->shape[i] > 1)
                return refuse(why, n, "%s: strides %lld: a reversed view; make a copy first", what,
                              (long long)a->strides[i]);
        if (!((a->ndim == 2 || c == 1 || a->strides[2] == itemsize) &&
              (w == 1 || a->strides[1] == pixel) &&
              (h == 1 || (a->strides[0] >= row && a->strides[0] % itemsize == 0))))
            return refuse(why, n, "%s: strides (%lld, %lld%s): the pixels of a row must be dense "
                          "and interleaved (rows may be padded); make it contiguous first", what,
                          (long long)a->strides[0], (long long)a->strides[1],
                          a->ndim == 3 ? ", ..." : "");
        if (h > 1)
            rowstride = a->strides[0];
    }
    /* the last byte must be addressable: (h - 1) * rowstride + row - 1 past data */
    if (rowstride > (INT64_MAX - row) / (h > 1 ? h - 1 : 1))
        return refuse(why, n, "%s: a row stride of %lld bytes over %lld rows overflows", what,
                      (long long)rowstride, (long long)h);
    last = (h - 1) * rowstride + row - 1;
    if (a->data > UINT64_MAX - (uint64_t)last || (uint64_t)last > (uint64_t)SIZE_MAX)
        return refuse(why, n, "%s: the array's end lies beyond the address space", what);
    img->data = (unsigned char *)(uintptr_t)a->data;
    img->width = (int)w;
    img->height = (int)h;
    img->channels = (int)c;
    img->stride = (size_t)rowstride;
    img->sample = kind == 'f' ? JF_SAMPLE_F32 : itemsize == 1 ? JF_SAMPLE_U8 : JF_SAMPLE_U16;
    img->location = (jf_location)a->location;
    img->device = a->location == JF_LOC_HOST ? -1 : a->device;
    return 0;
}

void jfpy_dlpack_dtype(int code, int bits, char *out, size_t n)
{
    static const char kinds[] = {'i', 'u', 'f'}; /* kDLInt, kDLUInt, kDLFloat */
    const char e = little_endian() ? '<' : '>';
    if (code >= 0 && code <= 2 && bits > 0 && bits % 8 == 0)
        snprintf(out, n, "%c%c%d", bits == 8 ? '|' : e, kinds[code], bits / 8);
    else
        snprintf(out, n, "%s%d", code == 0 ? "int" : code == 1 ? "uint" : code == 2 ? "float"
                                 : code == 4 ? "bfloat" : code == 6 ? "bool" : "code ", bits);
    if (code > 6 || code == 3 || code == 5)
        snprintf(out, n, "DLPack type code %d, %d bits", code, bits);
}
