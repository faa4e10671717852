/*
 * Walking a file's structure before a decoder sees it, so that the limits
 * hold whatever the file claims (jf_limits in jetfilter.h):
 *
 * PNG: every chunk's length must fit in the bytes that remain (a 110-byte
 *   file whose tEXt claims 2 GB is refused here, before libpng allocates it);
 *   metadata chunks are counted at their inflated size, inflating at most one
 *   byte past the limit (a 771 KB file of zTXt that inflates to 1.5 GB is
 *   refused after 32 MB of output, in milliseconds); the image data (IDAT)
 *   may not exceed what deflate could need to store the declared image
 *   (stored blocks, or fixed Huffman codes of 9 bits a byte: 9/8), so data
 *   far beyond the declared size is refused rather than inflated.
 * JPEG: every marker segment must fit; APPn and COM bytes are summed against
 *   the metadata limit and the markers counted against their own (libjpeg
 *   appends each saved marker by walking its list, so tens of thousands of
 *   empty ones cost quadratic time); scans (SOS markers) are counted against
 *   the scan limit before any is decoded, since each scan of a progressive
 *   file costs a pass over the whole image.
 */
#include "io/io.h"
#include "core/errors.h"
#include "core/image.h"

#include <stdlib.h>
#include <string.h>

#include <zlib.h>

/* Inflated size of a zlib stream, counting at most `limit` + 1 bytes. */
static uint64_t inflated_size(const unsigned char *data, size_t n, uint64_t limit)
{
    unsigned char sink[16384];
    z_stream z;
    uint64_t total = 0;
    int rc;
    memset(&z, 0, sizeof z);
    if (inflateInit(&z) != Z_OK)
        return limit + 1;
    z.next_in = (Bytef *)data;
    z.avail_in = (uInt)(n > 0x7FFFFFFF ? 0x7FFFFFFF : n);
    do {
        z.next_out = sink;
        z.avail_out = sizeof sink;
        rc = inflate(&z, Z_NO_FLUSH);
        total += sizeof sink - z.avail_out;
    } while (rc == Z_OK && total <= limit && (z.avail_in > 0 || z.avail_out == 0));
    inflateEnd(&z);
    return total;
}

/* Where the compressed part of a metadata chunk starts, or 0 if none. */
static size_t compressed_start(const char *type, const unsigned char *d, size_t n)
{
    const unsigned char *nul = (const unsigned char *)memchr(d, 0, n < 80 ? n : 80);
    size_t k;
    if (!nul)
        return 0;
    k = (size_t)(nul - d) + 1;
    if (memcmp(type, "zTXt", 4) == 0 || memcmp(type, "iCCP", 4) == 0)
        return k + 1 <= n ? k + 1 : 0; /* keyword, NUL, method */
    if (memcmp(type, "iTXt", 4) == 0 && k + 2 <= n && d[k] == 1) {
        const unsigned char *lang = (const unsigned char *)memchr(d + k + 2, 0, n - k - 2);
        const unsigned char *tkey = lang ? (const unsigned char *)memchr(lang + 1, 0, (size_t)(d + n - lang - 1)) : NULL;
        return tkey ? (size_t)(tkey - d) + 1 : 0;
    }
    return 0;
}

/* Bytes of zlib data the declared image could need, generously: each row
 * with its filter byte (Adam7 passes add up to 7 rows and columns more),
 * coded at worst with 9 bits a byte, plus block and stream overhead. */
static uint64_t idat_bound(const jf_png_scan *s)
{
    static const int channels[7] = {1, 0, 3, 1, 2, 0, 4};
    const uint64_t bpp = (uint64_t)s->depth * (uint64_t)(s->color_type <= 6 ? channels[s->color_type] : 4);
    const uint64_t row = ((uint64_t)s->width * (bpp ? bpp : 64) + 7) / 8 + 1;
    uint64_t raw = row * s->height;
    if (s->interlace)
        raw += 7 * ((uint64_t)s->height + row + 8);
    return raw + raw / 8 + raw / 1000 + 65536;
}

static int is_metadata(const char *t)
{
    return memcmp(t, "tEXt", 4) == 0 || memcmp(t, "zTXt", 4) == 0 || memcmp(t, "iTXt", 4) == 0 ||
           memcmp(t, "iCCP", 4) == 0 || memcmp(t, "eXIf", 4) == 0;
}

/* One chunk's metadata bytes (inflated), against the limits. */
static jf_status add_metadata(const char *type, const unsigned char *d, size_t n,
                              const jf_limits *lim, jf_png_scan *s)
{
    size_t z = compressed_start(type, d, n);
    uint64_t bytes = n, inflated;
    if (z && z < n && (inflated = z + inflated_size(d + z, n - z, lim->max_chunk_bytes)) > bytes)
        bytes = inflated; /* libpng holds the compressed chunk, then the inflated text */
    if (bytes > lim->max_chunk_bytes)
        return jf_fail(JF_ERR_LIMIT, "PNG %.4s chunk of %s%llu bytes is over the limit of %llu "
                       "per metadata item", type, z ? "more than " : "", (unsigned long long)bytes,
                       (unsigned long long)lim->max_chunk_bytes);
    s->metadata_bytes += bytes;
    if (s->metadata_bytes > lim->max_metadata_bytes)
        return jf_fail(JF_ERR_LIMIT, "PNG metadata of more than %llu bytes (inflated) is over the "
                       "limit of %llu", (unsigned long long)s->metadata_bytes,
                       (unsigned long long)lim->max_metadata_bytes);
    return JF_OK;
}

jf_status jf_png_prescan(const unsigned char *b, size_t size, jf_png_scan *s)
{
    const jf_limits lim = jf_get_limits();
    size_t at = 8;
    jf_status st;
    memset(s, 0, sizeof *s);
    if (size < 8 + 12 + 13 || memcmp(b + 12, "IHDR", 4) != 0 || jf_be32(b + 8) != 13)
        return jf_fail(JF_ERR_DECODE, "not a PNG file (no IHDR chunk first)");
    s->width = jf_be32(b + 16);
    s->height = jf_be32(b + 20);
    s->depth = b[24];
    s->color_type = b[25];
    s->interlace = b[28];
    if ((st = jf_check_dims("PNG header", s->width, s->height, 1)) != JF_OK)
        return st;
    while (at + 12 <= size) {
        const uint32_t len = jf_be32(b + at);
        const char *type = (const char *)b + at + 4;
        if (len > 0x7FFFFFFFu || (uint64_t)len + 12 > size - at)
            return jf_fail(JF_ERR_DECODE, "PNG %.4s chunk at byte %zu claims %lu bytes, but only "
                           "%zu remain (truncated or damaged)", type, at, (unsigned long)len,
                           size - at - 12);
        if (memcmp(type, "IDAT", 4) == 0) {
            s->idat_bytes += len;
            if (s->idat_bytes > idat_bound(s))
                return jf_fail(JF_ERR_LIMIT, "PNG holds more than %llu bytes of image data; a "
                               "%lux%lu image needs at most %llu", (unsigned long long)s->idat_bytes,
                               (unsigned long)s->width, (unsigned long)s->height,
                               (unsigned long long)idat_bound(s));
        } else if (len > lim.max_chunk_bytes) { /* libpng reads a whole chunk into memory */
            return jf_fail(JF_ERR_LIMIT, "PNG %.4s chunk of %lu bytes is over the limit of %llu",
                           type, (unsigned long)len, (unsigned long long)lim.max_chunk_bytes);
        } else if (is_metadata(type)) {
            if ((st = add_metadata(type, b + at + 8, len, &lim, s)) != JF_OK)
                return st;
            s->ancillary_chunks++;
        } else if (type[0] & 0x20) { /* ancillary: kept by libpng as unknown or sPLT */
            s->ancillary_chunks++;
            s->transparency |= memcmp(type, "tRNS", 4) == 0;
        } else if (memcmp(type, "IEND", 4) == 0) {
            return JF_OK;
        }
        at += (size_t)len + 12;
    }
    if (at < size) /* a chunk header cut off: libpng would read its length anyway */
        return jf_fail(JF_ERR_DECODE, "PNG chunk header at byte %zu is cut off (truncated file)", at);
    return JF_OK;
}

/* ---- JPEG ---------------------------------------------------------------------- */

/* After an SOS segment: the entropy-coded data runs to the next marker that
 * is not a stuffed 0xFF00 or a restart marker.  memchr finds the 0xFF bytes
 * (about one in 256 of entropy-coded data): a byte-by-byte loop is slow,
 * and this is on every JPEG's way to any decoder. */
static size_t skip_entropy(const unsigned char *b, size_t size, size_t at)
{
    while (at + 1 < size) {
        const unsigned char *ff = (const unsigned char *)memchr(b + at, 0xFF, size - 1 - at);
        int next;
        if (!ff)
            return size;
        at = (size_t)(ff - b);
        next = b[at + 1];
        if (next != 0x00 && !(next >= 0xD0 && next <= 0xD7) && next != 0xFF)
            return at;
        at++;
    }
    return size;
}

static int is_sof(int m)
{
    return m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC;
}

jf_status jf_jpeg_prescan(const unsigned char *b, size_t size, jf_jpeg_scan *s)
{
    const jf_limits lim = jf_get_limits();
    size_t at = 2;
    memset(s, 0, sizeof *s);
    if (size < 4 || b[0] != 0xFF || b[1] != 0xD8)
        return jf_fail(JF_ERR_DECODE, "not a JPEG file");
    while (at + 1 < size) {
        int m;
        size_t len;
        if (b[at] != 0xFF) { /* junk between segments: libjpeg's to judge */
            at++;
            continue;
        }
        while (at < size && b[at] == 0xFF) /* fill bytes */
            at++;
        if (at >= size)
            break;
        m = b[at++];
        if (m == 0xD9) {
            s->complete = 1;
            break;
        }
        if (m == 0xD8 || m == 0x01 || (m >= 0xD0 && m <= 0xD7))
            continue;
        if (at + 2 > size)
            break;
        len = ((size_t)b[at] << 8) | b[at + 1];
        if (len < 2 || len > size - at)
            return jf_fail(JF_ERR_DECODE, "JPEG marker 0x%02X at byte %zu claims %zu bytes, but "
                           "only %zu remain (truncated or damaged)", m, at - 2, len, size - at);
        if ((m >= 0xE0 && m <= 0xEF) || m == 0xFE) {
            if (++s->markers > lim.max_markers)
                return jf_fail(JF_ERR_LIMIT, "JPEG has more than %d APPn/COM markers (the limit, "
                               "--max-markers; a photo has a handful)", lim.max_markers);
            s->metadata_bytes += len - 2;
            if (s->metadata_bytes > lim.max_metadata_bytes)
                return jf_fail(JF_ERR_LIMIT, "JPEG markers hold more than %llu bytes of metadata; "
                               "the limit is %llu", (unsigned long long)s->metadata_bytes,
                               (unsigned long long)lim.max_metadata_bytes);
        } else if (is_sof(m) && len >= 8 && !s->width) {
            jf_status st;
            s->height = ((int)b[at + 3] << 8) | b[at + 4];
            s->width = ((int)b[at + 5] << 8) | b[at + 6];
            s->components = b[at + 7];
            s->progressive = m == 0xC2 || m == 0xC6 || m == 0xCA || m == 0xCE;
            if (s->height && (st = jf_check_dims("JPEG header", (uint64_t)s->width,
                                                 (uint64_t)s->height, 1)) != JF_OK)
                return st;
        } else if (m == 0xDA) {
            if (++s->scans > lim.max_scans)
                return jf_fail(JF_ERR_LIMIT, "JPEG has more than %d scans (the limit; a real "
                               "progressive file has 2 to 20, each costs a pass over the image)",
                               lim.max_scans);
            at = skip_entropy(b, size, at + len);
            continue;
        }
        at += len;
    }
    return JF_OK;
}
