/*
 * A PNG's image data inflated in one piece through libdeflate, where the
 * build has it, and unfiltered here: libdeflate inflates about twice as fast
 * as zlib (docs/kernels/studies.md, "PNG through libdeflate").  Writing stays
 * with libpng and zlib: zlib's run-length matching, which the fast levels
 * use on photos, has no libdeflate counterpart as small, and at the other
 * levels libdeflate's files were larger on some photos.
 *
 * libpng keeps everything else: the header, the metadata, and every file
 * this path leaves to it (interlaced, palette, bit depths under 8, tRNS,
 * chunks after the image data, a CRC or a stream that is not exactly
 * right), so errors and warnings are libpng's own and no file is read
 * differently.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include "io/io.h"
#include "core/errors.h"
#include "core/image.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef JF_HAVE_LIBDEFLATE
#include <libdeflate.h>
#include <sys/mman.h>
#endif

int jf_png_has_libdeflate(void)
{
#ifdef JF_HAVE_LIBDEFLATE
    return 1;
#else
    return 0;
#endif
}

#ifdef JF_HAVE_LIBDEFLATE

/* The whole-image buffers are mapped and unmapped directly: freeing one
 * from malloc raises glibc's mmap threshold to its size, and the filter's
 * images allocated after it would then come from the heap and stay there
 * (test_memory_estimate_follows_peak: a 16-bit Gaussian's peak grew 15%). */
static unsigned char *map(size_t n)
{
    void *p = mmap(NULL, n ? n : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : (unsigned char *)p;
}

static void unmap(unsigned char *p, size_t n)
{
    if (p)
        munmap(p, n ? n : 1);
}

static int paeth(int a, int b, int c)
{
    const int pa = abs(b - c), pb = abs(a - c), pc = abs(a + b - 2 * c);
    return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/* PNG's five row filters undone in place: `row` holds the filtered bytes,
 * `up` the row above as unfiltered (zeros above the first). */
static void unfilter_row(int type, unsigned char *row, const unsigned char *up, size_t n, size_t bpp)
{
    size_t i;
    switch (type) {
    case 1:
        for (i = bpp; i < n; i++)
            row[i] = (unsigned char)(row[i] + row[i - bpp]);
        break;
    case 2:
        for (i = 0; i < n; i++)
            row[i] = (unsigned char)(row[i] + up[i]);
        break;
    case 3:
        for (i = 0; i < bpp; i++)
            row[i] = (unsigned char)(row[i] + (up[i] >> 1));
        for (; i < n; i++)
            row[i] = (unsigned char)(row[i] + ((row[i - bpp] + up[i]) >> 1));
        break;
    case 4:
        for (i = 0; i < bpp; i++)
            row[i] = (unsigned char)(row[i] + up[i]);
        for (; i < n; i++)
            row[i] = (unsigned char)(row[i] + paeth(row[i - bpp], up[i], up[i - bpp]));
        break;
    default:
        break;
    }
}

/* The IDAT chunks and the IEND right after them, checked against their
 * CRCs; 0 when anything else is there (libpng reads such files). */
static int image_data(const unsigned char *file, size_t size, const unsigned char **data,
                      size_t *data_size, unsigned char **joined)
{
    size_t at = 8, first = 0, count = 0, total = 0, n, len;
    *joined = NULL;
    while (size - at >= 12) {
        const unsigned char *type = file + at + 4;
        len = jf_be32(file + at);
        if (len > size - at - 12)
            return 0;
        if (!memcmp(type, "IDAT", 4)) { /* consecutive: any other chunk ends the run below */
            if (!count)
                first = at;
            if (libdeflate_crc32(0, type, len + 4) != jf_be32(type + 4 + len))
                return 0;
            count++;
            total += len;
        } else if (count) {
            if (memcmp(type, "IEND", 4) || len != 0 || libdeflate_crc32(0, type, 4) != jf_be32(type + 4))
                return 0; /* metadata after the image, or a damaged end: libpng's */
            break;
        }
        at += 12 + len;
    }
    if (!count || size - at < 12)
        return 0;
    if (count == 1) {
        *data = file + first + 8;
        *data_size = total;
        return 1;
    }
    if (!(*joined = map(total)))
        return 0;
    for (at = first, n = 0; n < total; at += 12 + len, n += len) {
        len = jf_be32(file + at);
        memcpy(*joined + n, file + at + 8, len);
    }
    *data = *joined;
    *data_size = total;
    return 1;
}

int jf_png_inflate_rows(const unsigned char *file, size_t size, const jf_png_scan *s,
                        unsigned char *const *rows)
{
    static const int channels_of[7] = {1, 0, 3, 0, 2, 0, 4};
    const int channels = s->color_type <= 6 ? channels_of[s->color_type] : 0;
    const size_t bpp = (size_t)channels * (size_t)(s->depth / 8);
    const size_t rb = (size_t)s->width * bpp;
    const unsigned char *data;
    unsigned char *joined = NULL, *raw = NULL, *zeros = NULL;
    struct libdeflate_decompressor *d = NULL;
    size_t data_size = 0, n, y, i;
    int done = 0;
    if (s->interlace || !channels || (s->depth != 8 && s->depth != 16) || s->transparency ||
        (uint64_t)s->height * (1 + (uint64_t)rb) > (uint64_t)SIZE_MAX / 2)
        return 0;
    n = (size_t)s->height * (1 + rb);
    if (!image_data(file, size, &data, &data_size, &joined))
        return 0;
    if (!(raw = map(n)) || !(zeros = (unsigned char *)calloc(rb ? rb : 1, 1)) ||
        !(d = libdeflate_alloc_decompressor()) ||
        libdeflate_zlib_decompress(d, data, data_size, raw, n, NULL) != LIBDEFLATE_SUCCESS)
        goto done;
    unmap(joined, data_size);
    joined = NULL;
    for (y = 0; y < s->height; y++) {
        unsigned char *row = raw + y * (1 + rb);
        if (row[0] > 4)
            goto done; /* libpng names the bad filter */
        unfilter_row(row[0], row + 1, y ? row - rb : zeros, rb, bpp);
    }
    for (y = 0; y < s->height; y++) {
        const unsigned char *row = raw + y * (1 + rb) + 1;
        if (s->depth == 16 && jf_host_is_little_endian())
            for (i = 0; i < rb; i += 2) {
                rows[y][i] = row[i + 1];
                rows[y][i + 1] = row[i];
            }
        else
            memcpy(rows[y], row, rb);
    }
    done = 1;
done:
    libdeflate_free_decompressor(d);
    free(zeros);
    unmap(raw, n);
    unmap(joined, data_size);
    return done;
}

#else /* no libdeflate: libpng and zlib do it all */

int jf_png_inflate_rows(const unsigned char *file, size_t size, const jf_png_scan *s,
                        unsigned char *const *rows)
{
    (void)file; (void)size; (void)s; (void)rows;
    return 0;
}

#endif
