/*
 * TIFF through libtiff.
 *
 * Read: 8- and 16-bit unsigned grey (min-is-black or min-is-white), RGB
 * and CMYK (8 bits), strips or tiles, interleaved or one plane a channel,
 * any compression this libtiff decodes (none, LZW, deflate, PackBits, JPEG
 * ...), an alpha channel split off as for PNG.  Other layouts libtiff can
 * turn into 8-bit RGBA (palette, 1/2/4-bit grey, YCbCr, CIE L*a*b*) come
 * through its RGBA reader: palette and colour as RGB, bilevel and grey as
 * grey.  32-bit floating-point grey and RGB are read as float32 images;
 * other floats and signed samples are refused by name.
 *
 * Write: grey, RGB or CMYK, 8 or 16 bits, grey and RGB in float32, with
 * alpha, in strips, none, LZW, deflate or PackBits (LZW and deflate with
 * the horizontal predictor, floats with the floating-point one), several
 * pages to one file (jf_pages_*).
 *
 * Metadata kept: the ICC profile, XMP, and the text tags (description,
 * author, copyright, software, date, make, model, title) as text items
 * whose keys PNG's text chunks share, so they cross between the two; the
 * Orientation tag (the pixels stay as stored).  A TIFF's EXIF directory
 * is not carried (said in the warning), nor is EXIF written into a TIFF.
 *
 * Before libtiff sees a file, jf_tiff_prescan walks every page's
 * directory: offsets and counts inside the file, the page count, each
 * page's size and metadata against jf_limits, a directory chain that loops.
 * libtiff reports through process-wide handlers; a thread's messages go to
 * the file that thread is working on.
 */
#include "io/io.h"
#include "core/errors.h"
#include "core/image.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef JF_HAVE_TIFF
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <tiffio.h>
#endif

/* ---- The pre-scan: the directories as the file claims them ------------- */

typedef struct tiff_reader {
    const unsigned char *b;
    size_t size;
    int big_endian, big; /* BigTIFF: 8-byte offsets and counts */
} tiff_reader;

static uint64_t get(const tiff_reader *r, uint64_t at, int n)
{
    uint64_t v = 0;
    int i;
    for (i = 0; i < n; i++)
        v |= (uint64_t)r->b[at + (uint64_t)(r->big_endian ? n - 1 - i : i)] << (8 * i);
    return v;
}

static int type_bytes(unsigned type)
{
    static const int bytes[19] = {0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8, 4, 0, 0, 8, 8, 8};
    return type < 19 ? bytes[type] : 0;
}

/* The metadata tags counted against the limits (text, ICC, XMP, IPTC,
 * Photoshop's). */
static int metadata_tag(unsigned tag)
{
    switch (tag) {
    case 269: case 270: case 271: case 272: case 285: case 305: case 306: case 315:
    case 700: case 33432: case 33723: case 34377: case 34675:
        return 1;
    default:
        return 0;
    }
}

static jf_status scan_page(const tiff_reader *r, uint64_t at, int page, jf_tiff_scan *s,
                           uint64_t *next)
{
    const jf_limits lim = jf_get_limits();
    const int word = r->big ? 8 : 4, countb = r->big ? 8 : 2, entry = r->big ? 20 : 12;
    uint64_t n, i, width = 0, height = 0, meta = 0;
    int samples = 1, bits = 1, format = 1;
    if (at > r->size || (uint64_t)countb > r->size - at)
        return jf_fail(JF_ERR_DECODE, "TIFF page %d's directory lies past the end of the file", page + 1);
    n = get(r, at, countb);
    if (n == 0 || n > 4096 ||
        (uint64_t)countb + n * (uint64_t)entry + (uint64_t)word > r->size - at)
        return jf_fail(JF_ERR_DECODE, "TIFF page %d's directory (%llu entries) does not fit in the file",
                       page + 1, (unsigned long long)n);
    for (i = 0; i < n; i++) {
        const uint64_t e = at + (uint64_t)countb + i * (uint64_t)entry;
        const unsigned tag = (unsigned)get(r, e, 2), type = (unsigned)get(r, e + 2, 2);
        const uint64_t count = get(r, e + 4, r->big ? 8 : 4);
        const uint64_t value_at = e + 4 + (uint64_t)word;
        const int tb = type_bytes(type);
        uint64_t bytes, data_at, v;
        if (!tb)
            continue; /* a type libtiff skips too */
        if (count > r->size / (uint64_t)tb + 1)
            return jf_fail(JF_ERR_DECODE, "TIFF page %d: tag %u claims %llu values, more than the "
                           "file holds", page + 1, tag, (unsigned long long)count);
        bytes = count * (uint64_t)tb;
        data_at = bytes <= (uint64_t)word ? value_at : get(r, value_at, word);
        if (data_at > r->size || bytes > r->size - data_at)
            return jf_fail(JF_ERR_DECODE, "TIFF page %d: tag %u's data lies past the end of the file",
                           page + 1, tag);
        if (metadata_tag(tag)) {
            if (bytes > lim.max_chunk_bytes)
                return jf_fail(JF_ERR_LIMIT, "TIFF page %d: tag %u holds %llu bytes of metadata, "
                               "over the limit of %llu", page + 1, tag, (unsigned long long)bytes,
                               (unsigned long long)lim.max_chunk_bytes);
            meta += bytes;
        }
        if (count < 1 || (tb != 2 && tb != 4 && tb != 8) || type == 5 || type == 10 ||
            type == 11 || type == 12)
            continue; /* the numbers below are integers */
        v = get(r, data_at, tb);
        switch (tag) {
        case 256: width = v; break;
        case 257: height = v; break;
        case 258: bits = (int)(v > 64 ? 64 : v); break;
        case 259: if (page == 0) s->compression = (int)v; break;
        case 262: if (page == 0) s->photometric = (int)v; break;
        case 277: samples = (int)(v > 65535 ? 65535 : v); break;
        case 339: format = (int)(v > 65535 ? 65535 : v); break;
        default: break;
        }
    }
    if (width < 1 || height < 1)
        return jf_fail(JF_ERR_DECODE, "TIFF page %d has no image size", page + 1);
    if (width > 0x7FFFFFFF || height > 0x7FFFFFFF || width > lim.max_pixels / height)
        return jf_fail(JF_ERR_LIMIT, "TIFF page %d is %llux%llu, over the limit of %llu pixels",
                       page + 1, (unsigned long long)width, (unsigned long long)height,
                       (unsigned long long)lim.max_pixels);
    if (samples < 1 || samples > 16)
        return jf_fail(JF_ERR_UNSUPPORTED, "TIFF page %d has %d samples a pixel (1 to 16 read)",
                       page + 1, samples);
    s->metadata_bytes += meta;
    if (s->metadata_bytes > lim.max_metadata_bytes)
        return jf_fail(JF_ERR_LIMIT, "TIFF: %llu bytes of metadata, over the limit of %llu",
                       (unsigned long long)s->metadata_bytes,
                       (unsigned long long)lim.max_metadata_bytes);
    if (page == 0) {
        s->width = (uint32_t)width;
        s->height = (uint32_t)height;
        s->samples = samples;
        s->bits = bits;
        s->sample_format = format;
    }
    if ((uint64_t)s->largest_page_bytes < width * height * (uint64_t)samples * (uint64_t)((bits + 7) / 8))
        s->largest_page_bytes = width * height * (uint64_t)samples * (uint64_t)((bits + 7) / 8);
    *next = get(r, at + (uint64_t)countb + n * (uint64_t)entry, word);
    return JF_OK;
}

jf_status jf_tiff_prescan(const unsigned char *bytes, size_t size, jf_tiff_scan *s)
{
    const jf_limits lim = jf_get_limits();
    tiff_reader r;
    uint64_t at, *seen = NULL;
    size_t cap = 0;
    jf_status st = JF_OK;
    int version, i;
    memset(s, 0, sizeof *s);
    if (size < 8 || !((bytes[0] == 'I' && bytes[1] == 'I') || (bytes[0] == 'M' && bytes[1] == 'M')))
        return jf_fail(JF_ERR_DECODE, "not a TIFF file");
    r.b = bytes;
    r.size = size;
    r.big_endian = bytes[0] == 'M';
    r.big = 0;
    version = (int)get(&r, 2, 2);
    if (version == 43) {
        if (size < 16 || get(&r, 4, 2) != 8)
            return jf_fail(JF_ERR_DECODE, "BigTIFF header damaged");
        r.big = 1;
        at = get(&r, 8, 8);
    } else if (version == 42) {
        at = get(&r, 4, 4);
    } else {
        return jf_fail(JF_ERR_DECODE, "not a TIFF file (version %d)", version);
    }
    s->bigtiff = r.big;
    while (at != 0) {
        if (s->pages >= lim.max_pages) {
            st = jf_fail(JF_ERR_LIMIT, "TIFF has more than %d pages (the page limit)", lim.max_pages);
            break;
        }
        for (i = 0; i < s->pages; i++)
            if (seen[i] == at)
                break;
        if (i < s->pages) {
            st = jf_fail(JF_ERR_DECODE, "TIFF directories loop (page %d leads back to page %d)",
                         s->pages, i + 1);
            break;
        }
        if ((size_t)s->pages == cap) {
            uint64_t *grown = (uint64_t *)realloc(seen, (cap ? cap * 2 : 8) * sizeof *seen);
            if (!grown) {
                st = jf_fail(JF_ERR_NOMEM, "out of memory");
                break;
            }
            seen = grown;
            cap = cap ? cap * 2 : 8;
        }
        seen[s->pages] = at;
        if ((st = scan_page(&r, at, s->pages, s, &at)) != JF_OK)
            break;
        s->pages++;
    }
    free(seen);
    if (st == JF_OK && s->pages == 0)
        st = jf_fail(JF_ERR_DECODE, "TIFF has no pages");
    return st;
}

#ifndef JF_HAVE_TIFF

static jf_status no_tiff(void)
{
    return jf_fail(JF_ERR_UNSUPPORTED, "this jetfilter was built without TIFF (libtiff): "
                   "rebuild with libtiff-dev installed");
}

jf_status jf_tiff_decode(jf_context *frame_ctx, const unsigned char *bytes, size_t size, int page,
                         jf_picture *pic)
{
    (void)frame_ctx; (void)bytes; (void)size; (void)page; (void)pic;
    return no_tiff();
}

jf_status jf_tiff_writer_open(int pages, jf_tiff_writer **w)
{
    (void)pages;
    *w = NULL;
    return no_tiff();
}

jf_status jf_tiff_writer_add(jf_tiff_writer *w, const jf_picture *pic, int compression, int level)
{
    (void)w; (void)pic; (void)compression; (void)level;
    return no_tiff();
}

jf_status jf_tiff_writer_close(jf_tiff_writer *w, unsigned char **out, size_t *out_size)
{
    (void)w; (void)out; (void)out_size;
    return no_tiff();
}

#else

/* ---- libtiff's messages, to the thread that caused them ------------------ */

typedef struct tiff_mem {
    const unsigned char *in; /* reading */
    unsigned char *out;      /* writing: grows */
    size_t size, cap, at;
    char message[256];
} tiff_mem;

static __thread tiff_mem *g_current;

static void on_message(thandle_t handle, const char *module, const char *fmt, va_list ap, int error)
{
    tiff_mem *m = g_current;
    char text[256];
    (void)module;
    if (!m || (tiff_mem *)handle != m)
        return; /* not a file of this thread's: nothing to say it to */
    vsnprintf(text, sizeof text, fmt, ap);
    if (error) {
        if (!m->message[0])
            snprintf(m->message, sizeof m->message, "%s", text);
    } else if (strstr(text, "ICC") || strstr(text, "XMP") || strstr(text, "tag")) {
        /* unknown and damaged tags: what was left out */
        if (!strstr(text, "unknown field") && !strstr(text, "Unknown field"))
            jf_warn("TIFF: %s", text);
    }
}

static void on_error(thandle_t h, const char *module, const char *fmt, va_list ap)
{
    on_message(h, module, fmt, ap, 1);
}

static void on_warning(thandle_t h, const char *module, const char *fmt, va_list ap)
{
    on_message(h, module, fmt, ap, 0);
}

static pthread_once_t g_handlers_once = PTHREAD_ONCE_INIT;

/* libtiff's handlers are the process's: its plain ones would print to
 * standard error, its extended ones tell the file. */
static void set_handlers(void)
{
    TIFFSetErrorHandler(NULL);
    TIFFSetWarningHandler(NULL);
    TIFFSetErrorHandlerExt(on_error);
    TIFFSetWarningHandlerExt(on_warning);
}

/* Reading: the file; writing: what is written so far (libtiff reads the
 * last directory back to link the next page to it). */
static tmsize_t mem_read(thandle_t h, void *buf, tmsize_t n)
{
    tiff_mem *m = (tiff_mem *)h;
    const unsigned char *from = m->in ? m->in : m->out;
    size_t k = n < 0 ? 0 : (size_t)n;
    if (!from || m->at >= m->size)
        return 0;
    if (k > m->size - m->at)
        k = m->size - m->at;
    memcpy(buf, from + m->at, k);
    m->at += k;
    return (tmsize_t)k;
}

static tmsize_t mem_write(thandle_t h, void *buf, tmsize_t n)
{
    tiff_mem *m = (tiff_mem *)h;
    const size_t k = n < 0 ? 0 : (size_t)n;
    if (m->in || m->at > SIZE_MAX - k)
        return -1;
    if (m->at + k > m->cap) {
        size_t cap = m->cap ? m->cap : 65536;
        unsigned char *grown;
        while (cap < m->at + k)
            cap *= 2;
        if (!(grown = (unsigned char *)realloc(m->out, cap)))
            return -1;
        m->out = grown;
        m->cap = cap;
    }
    if (m->at > m->size) /* written past a seek beyond the end: the gap is zero */
        memset(m->out + m->size, 0, m->at - m->size);
    memcpy(m->out + m->at, buf, k);
    m->at += k;
    if (m->at > m->size)
        m->size = m->at;
    return (tmsize_t)k;
}

static toff_t mem_seek(thandle_t h, toff_t off, int whence)
{
    tiff_mem *m = (tiff_mem *)h;
    uint64_t base = whence == SEEK_CUR ? m->at : whence == SEEK_END ? m->size : 0;
    if (off > (uint64_t)1 << 40 || base + off > (uint64_t)1 << 40)
        return (toff_t)-1;
    m->at = (size_t)(base + off);
    return (toff_t)m->at;
}

static int mem_close(thandle_t h) { (void)h; return 0; }
static toff_t mem_size(thandle_t h) { return (toff_t)((tiff_mem *)h)->size; }
static int mem_map(thandle_t h, void **base, toff_t *size) { (void)h; (void)base; (void)size; return 0; }
static void mem_unmap(thandle_t h, void *base, toff_t size) { (void)h; (void)base; (void)size; }

static TIFF *open_mem(tiff_mem *m, const char *mode)
{
    pthread_once(&g_handlers_once, set_handlers);
    g_current = m;
    return TIFFClientOpen("<memory>", mode, (thandle_t)m, mem_read, mem_write, mem_seek, mem_close,
                          mem_size, mem_map, mem_unmap);
}

static const char *said(const tiff_mem *m) { return m->message[0] ? m->message : "damaged file"; }

/* ---- Metadata ------------------------------------------------------------ */

/* TIFF's text tags and the PNG keywords that say the same. */
static const struct { unsigned tag; const char *key; } TEXT_TAGS[] = {
    {TIFFTAG_IMAGEDESCRIPTION, "Description"}, {TIFFTAG_ARTIST, "Author"},
    {TIFFTAG_COPYRIGHT, "Copyright"},          {TIFFTAG_SOFTWARE, "Software"},
    {TIFFTAG_DATETIME, "Creation Time"},       {TIFFTAG_MAKE, "Make"},
    {TIFFTAG_MODEL, "Model"},                  {TIFFTAG_DOCUMENTNAME, "Title"},
};
#define XMP_KEY "XML:com.adobe.xmp"
#define TEXT_PLAIN (-1) /* PNG: tEXt */
#define TEXT_UTF8 1     /* PNG: iTXt, not compressed */

static jf_status read_metadata(TIFF *tif, jf_picture *pic)
{
    uint32_t len = 0;
    void *data = NULL;
    char *text = NULL;
    uint64_t exif = 0;
    size_t i;
    jf_status st;
    if (TIFFGetField(tif, TIFFTAG_ICCPROFILE, &len, &data) && len > 0 && data) {
        if (!(pic->icc = (unsigned char *)malloc(len)))
            return jf_fail(JF_ERR_NOMEM, "out of memory for the ICC profile");
        memcpy(pic->icc, data, len);
        pic->icc_size = len;
    }
    for (i = 0; i < sizeof TEXT_TAGS / sizeof TEXT_TAGS[0]; i++)
        if (TIFFGetField(tif, TEXT_TAGS[i].tag, &text) && text && text[0] &&
            (st = jf_picture_add_blob(pic, TEXT_PLAIN, TEXT_TAGS[i].key, (const unsigned char *)text,
                                      strlen(text))) != JF_OK)
            return st;
    len = 0;
    data = NULL;
    if (TIFFGetField(tif, TIFFTAG_XMLPACKET, &len, &data) && len > 0 && data &&
        (st = jf_picture_add_blob(pic, TEXT_UTF8, XMP_KEY, (const unsigned char *)data, len)) != JF_OK)
        return st;
    if (TIFFGetField(tif, TIFFTAG_EXIFIFD, &exif) && exif)
        jf_warn("the TIFF's EXIF directory is not carried");
    return JF_OK;
}

static void write_metadata(TIFF *tif, const jf_picture *pic)
{
    int i, other = 0;
    size_t t;
    if (pic->icc && pic->icc_size)
        TIFFSetField(tif, TIFFTAG_ICCPROFILE, (uint32_t)pic->icc_size, pic->icc);
    for (i = 0; i < pic->extra_count; i++) {
        const jf_blob *b = &pic->extra[i];
        int kept = 0;
        if (strcmp(b->key, XMP_KEY) == 0) {
            TIFFSetField(tif, TIFFTAG_XMLPACKET, (uint32_t)b->size, b->data);
            kept = 1;
        }
        for (t = 0; !kept && t < sizeof TEXT_TAGS / sizeof TEXT_TAGS[0]; t++)
            if (strcmp(b->key, TEXT_TAGS[t].key) == 0 && b->tag <= 0 &&
                strlen((const char *)b->data) == b->size) {
                TIFFSetField(tif, TEXT_TAGS[t].tag, (const char *)b->data);
                kept = 1;
            }
        other += !kept;
    }
    if (other)
        jf_warn("%d metadata item%s (JPEG markers, text TIFF has no tag for) not written", other,
                other == 1 ? "" : "s");
    if (pic->exif)
        jf_warn("EXIF not written: jetfilter writes no EXIF directory into a TIFF");
}

/* ---- Reading ------------------------------------------------------------- */

typedef struct tiff_layout {
    uint32_t width, height;
    uint16_t samples, bits, format, photometric, planar, compression, inkset, orientation;
    uint16_t extra_count;
    uint16_t *extra;
    int color;        /* colour channels: 1, 3 or 4 (CMYK) */
    int alpha;        /* sample index of the alpha channel, or -1 */
} tiff_layout;

static jf_status read_layout(TIFF *tif, tiff_layout *l)
{
    uint16_t *extra = NULL;
    int i;
    memset(l, 0, sizeof *l);
    TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &l->width);
    TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &l->height);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &l->samples);
    TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &l->bits);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &l->format);
    TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &l->planar);
    TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &l->compression);
    TIFFGetFieldDefaulted(tif, TIFFTAG_INKSET, &l->inkset);
    if (!TIFFGetField(tif, TIFFTAG_ORIENTATION, &l->orientation))
        l->orientation = 0;
    if (!TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &l->photometric))
        l->photometric = l->samples >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK;
    TIFFGetFieldDefaulted(tif, TIFFTAG_EXTRASAMPLES, &l->extra_count, &extra);
    l->extra = extra;
    if (l->width < 1 || l->height < 1)
        return jf_fail(JF_ERR_DECODE, "no image size in the TIFF");
    if (!TIFFIsCODECConfigured(l->compression))
        return jf_fail(JF_ERR_UNSUPPORTED, "TIFF compression %u is not one this libtiff decodes",
                       l->compression);
    if (l->format == SAMPLEFORMAT_IEEEFP && l->bits != 32)
        return jf_fail(JF_ERR_UNSUPPORTED, "a TIFF of %u-bit floating-point samples: jetfilter "
                       "reads float32 (and 8- and 16-bit integers)", l->bits);
    if (l->format == SAMPLEFORMAT_IEEEFP && l->photometric != PHOTOMETRIC_MINISBLACK &&
        l->photometric != PHOTOMETRIC_RGB)
        return jf_fail(JF_ERR_UNSUPPORTED, "a float32 TIFF of photometric %u: float32 is read as "
                       "grey (min-is-black) or RGB", l->photometric);
    if (l->format != SAMPLEFORMAT_UINT && l->format != SAMPLEFORMAT_VOID &&
        l->format != SAMPLEFORMAT_IEEEFP)
        return jf_fail(JF_ERR_UNSUPPORTED, "a TIFF of signed or complex samples (sample format %u)",
                       l->format);
    switch (l->photometric) {
    case PHOTOMETRIC_MINISBLACK: case PHOTOMETRIC_MINISWHITE: l->color = 1; break;
    case PHOTOMETRIC_RGB: l->color = 3; break;
    case PHOTOMETRIC_SEPARATED: l->color = l->inkset == INKSET_CMYK ? 4 : 0; break;
    default: l->color = 0; break;
    }
    l->alpha = -1;
    if (l->color && l->samples > l->color) {
        const int first = l->samples - l->extra_count; /* where the extra samples start */
        for (i = 0; i < l->extra_count && l->alpha < 0; i++)
            if (l->extra[i] == EXTRASAMPLE_ASSOCALPHA || l->extra[i] == EXTRASAMPLE_UNASSALPHA)
                l->alpha = first + i;
        if (first < l->color)
            l->color = 0; /* extra samples inside the colour: not a layout read directly */
    }
    return JF_OK;
}

/* Whether the samples can be copied as they are (the direct path). */
static int direct(const tiff_layout *l)
{
    if (!l->color || l->samples < l->color)
        return 0;
    if (l->format == SAMPLEFORMAT_IEEEFP) /* 32 bits, grey or RGB (read_layout) */
        return 1;
    if (l->bits != 8 && l->bits != 16)
        return 0;
    if (l->color == 4 && l->bits != 8)
        return 0; /* CMYK pictures are 8-bit */
    return l->compression != COMPRESSION_OJPEG;
}

/* One strip or tile's samples into the whole interleaved image `full`
 * (samples a pixel `spp`, bytes a sample `b`): `x0, y0` its corner, `w, h`
 * its size in the file, `plane` its channel (-1: all, interleaved). */
static void place(unsigned char *full, const tiff_layout *l, size_t b, const unsigned char *src,
                  uint32_t x0, uint32_t y0, uint32_t w, uint32_t h, int plane)
{
    const size_t spp = l->samples, row_in = (size_t)w * (plane < 0 ? spp : 1) * b;
    const uint32_t cw = x0 + w > l->width ? l->width - x0 : w, ch = y0 + h > l->height ? l->height - y0 : h;
    uint32_t x, y;
    for (y = 0; y < ch; y++) {
        const unsigned char *s = src + (size_t)y * row_in;
        unsigned char *d = full + (((size_t)(y0 + y) * l->width + x0) * spp) * b;
        if (plane < 0) {
            memcpy(d, s, (size_t)cw * spp * b);
        } else {
            for (x = 0; x < cw; x++)
                memcpy(d + ((size_t)x * spp + (size_t)plane) * b, s + (size_t)x * b, b);
        }
    }
}

static jf_status read_samples(TIFF *tif, const tiff_mem *m, const tiff_layout *l, unsigned char *full)
{
    const size_t b = l->bits / 8;
    const int planes = l->planar == PLANARCONFIG_SEPARATE ? l->samples : 1;
    const int tiled = TIFFIsTiled(tif);
    const tmsize_t chunk = tiled ? TIFFTileSize(tif) : TIFFStripSize(tif);
    uint32_t tw = l->width, th = 0, x, y;
    unsigned char *buf;
    int p;
    if (tiled) {
        TIFFGetField(tif, TIFFTAG_TILEWIDTH, &tw);
        TIFFGetField(tif, TIFFTAG_TILELENGTH, &th);
    } else {
        TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &th);
        if (th > l->height)
            th = l->height;
    }
    if (chunk <= 0 || tw < 1 || th < 1)
        return jf_fail(JF_ERR_DECODE, "TIFF strips or tiles: %s", said(m));
    if ((uint64_t)chunk < (uint64_t)tw * th * (planes > 1 ? 1 : l->samples) * b)
        return jf_fail(JF_ERR_DECODE, "TIFF strips or tiles smaller than their pixels");
    if (!(buf = (unsigned char *)malloc((size_t)chunk)))
        return jf_fail(JF_ERR_NOMEM, "out of memory");
    for (p = 0; p < planes; p++)
        for (y = 0; y < l->height; y += th)
            for (x = 0; x < l->width; x += tw) {
                const tmsize_t got = tiled ? TIFFReadEncodedTile(tif, TIFFComputeTile(tif, x, y, 0, (uint16_t)p), buf, chunk)
                                           : TIFFReadEncodedStrip(tif, TIFFComputeStrip(tif, y, (uint16_t)p), buf, chunk);
                if (got < 0) {
                    free(buf);
                    return jf_fail(JF_ERR_DECODE, "%s", said(m));
                }
                if (got < chunk) /* a short strip (the last): the rest is zero */
                    memset(buf + got, 0, (size_t)(chunk - got));
                place(full, l, b, buf, x, y, tw, th, planes > 1 ? p : -1);
                if (!tiled)
                    break;
            }
    free(buf);
    return JF_OK;
}

/* The whole interleaved image into the colour and alpha planes; grey
 * min-is-white turned the usual way up. */
static void split(const unsigned char *full, const tiff_layout *l, jf_picture *pic)
{
    const size_t b = l->bits / 8, spp = l->samples;
    const uint32_t invert = l->photometric == PHOTOMETRIC_MINISWHITE ? (b == 2 ? 65535u : 255u) : 0;
    uint32_t x, y;
    for (y = 0; y < l->height; y++) {
        const unsigned char *s = full + (size_t)y * l->width * spp * b;
        unsigned char *d = pic->color.data + (size_t)y * pic->color.stride;
        unsigned char *a = pic->alpha.data ? pic->alpha.data + (size_t)y * pic->alpha.stride : NULL;
        for (x = 0; x < l->width; x++, s += spp * b) {
            memcpy(d + (size_t)x * (size_t)l->color * b, s, (size_t)l->color * b);
            if (a)
                memcpy(a + (size_t)x * b, s + (size_t)l->alpha * b, b);
        }
        if (invert) {
            const size_t n = (size_t)l->width;
            for (x = 0; x < n; x++) {
                if (b == 2)
                    ((uint16_t *)(void *)d)[x] = (uint16_t)(invert - ((uint16_t *)(void *)d)[x]);
                else
                    d[x] = (unsigned char)(invert - d[x]);
            }
        }
    }
}

static jf_status read_direct(TIFF *tif, const tiff_mem *m, const tiff_layout *l,
                             jf_context *frame_ctx, jf_picture *pic)
{
    const jf_sample sample = l->format == SAMPLEFORMAT_IEEEFP ? JF_SAMPLE_F32
                             : l->bits == 16 ? JF_SAMPLE_U16 : JF_SAMPLE_U8;
    const size_t b = l->bits / 8;
    unsigned char *full;
    jf_status st;
    if (l->samples > l->color + (l->alpha >= 0))
        jf_warn("%d extra TIFF channel%s left out", l->samples - l->color - (l->alpha >= 0),
                l->samples - l->color - (l->alpha >= 0) == 1 ? "" : "s");
    if ((st = jf_picture_alloc_color(frame_ctx, pic, (int)l->width, (int)l->height, l->color,
                                     sample)) != JF_OK ||
        (l->alpha >= 0 &&
         (st = jf_image_alloc_as(&pic->alpha, (int)l->width, (int)l->height, 1, sample)) != JF_OK))
        return st;
    if (!(full = (unsigned char *)malloc((size_t)l->width * l->height * l->samples * b)))
        return jf_fail(JF_ERR_NOMEM, "out of memory for a %ux%u TIFF", l->width, l->height);
    if ((st = read_samples(tif, m, l, full)) == JF_OK)
        split(full, l, pic);
    free(full);
    if (st == JF_OK && l->color == 4) {
        pic->color_model = JF_COLOR_CMYK;
        pic->jpeg_adobe = 0; /* TIFF stores ink amounts: 255 = full ink */
    }
    return st;
}

/* Layouts libtiff turns into 8-bit RGBA: grey kinds come out as grey. */
static jf_status read_rgba(TIFF *tif, const tiff_mem *m, const tiff_layout *l,
                           jf_context *frame_ctx, jf_picture *pic)
{
    char why[1024];
    const int grey = l->photometric == PHOTOMETRIC_MINISBLACK || l->photometric == PHOTOMETRIC_MINISWHITE;
    const int alpha = l->extra_count > 0 && (l->extra[0] == EXTRASAMPLE_ASSOCALPHA ||
                                             l->extra[0] == EXTRASAMPLE_UNASSALPHA);
    uint32_t *rgba, x, y;
    jf_status st;
    if (!TIFFRGBAImageOK(tif, why))
        return jf_fail(JF_ERR_UNSUPPORTED, "a TIFF layout jetfilter does not read (%u-bit, "
                       "photometric %u, %u samples): %s", l->bits, l->photometric, l->samples, why);
    if ((st = jf_picture_alloc_color(frame_ctx, pic, (int)l->width, (int)l->height, grey ? 1 : 3,
                                     JF_SAMPLE_U8)) != JF_OK ||
        (alpha && (st = jf_image_alloc(&pic->alpha, (int)l->width, (int)l->height, 1)) != JF_OK))
        return st;
    if (!(rgba = (uint32_t *)malloc((size_t)l->width * l->height * 4)))
        return jf_fail(JF_ERR_NOMEM, "out of memory for a %ux%u TIFF", l->width, l->height);
    if (!TIFFReadRGBAImageOriented(tif, l->width, l->height, rgba, ORIENTATION_TOPLEFT, 0)) {
        free(rgba);
        return jf_fail(JF_ERR_DECODE, "%s", said(m));
    }
    for (y = 0; y < l->height; y++) {
        const uint32_t *s = rgba + (size_t)y * l->width;
        unsigned char *d = pic->color.data + (size_t)y * pic->color.stride;
        unsigned char *a = alpha ? pic->alpha.data + (size_t)y * pic->alpha.stride : NULL;
        for (x = 0; x < l->width; x++) {
            if (grey) {
                d[x] = (unsigned char)TIFFGetR(s[x]);
            } else {
                d[3 * x] = (unsigned char)TIFFGetR(s[x]);
                d[3 * x + 1] = (unsigned char)TIFFGetG(s[x]);
                d[3 * x + 2] = (unsigned char)TIFFGetB(s[x]);
            }
            if (a)
                a[x] = (unsigned char)TIFFGetA(s[x]);
        }
    }
    free(rgba);
    return JF_OK;
}

jf_status jf_tiff_decode(jf_context *frame_ctx, const unsigned char *bytes, size_t size, int page,
                         jf_picture *pic)
{
    jf_tiff_scan scan;
    tiff_mem m;
    tiff_layout l;
    TIFF *tif;
    jf_status st;
    if ((st = jf_tiff_prescan(bytes, size, &scan)) != JF_OK)
        return st;
    if (page < 0 || page >= scan.pages)
        return jf_fail(JF_ERR_ARG, "page %d asked of a TIFF of %d page%s", page + 1, scan.pages,
                       scan.pages == 1 ? "" : "s");
    memset(&m, 0, sizeof m);
    m.in = bytes;
    m.size = size;
    if (!(tif = open_mem(&m, "rm"))) /* m: read through mem_read, never a mapping */
        return jf_fail(JF_ERR_DECODE, "%s", said(&m));
    if (!TIFFSetDirectory(tif, (uint16_t)page)) {
        st = jf_fail(JF_ERR_DECODE, "TIFF page %d: %s", page + 1, said(&m));
    } else if ((st = read_layout(tif, &l)) == JF_OK) {
        if (l.compression == COMPRESSION_JPEG && l.photometric == PHOTOMETRIC_YCBCR) {
            TIFFSetField(tif, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB); /* libjpeg converts */
            l.photometric = PHOTOMETRIC_RGB;
            l.color = 3;
        }
        st = direct(&l) ? read_direct(tif, &m, &l, frame_ctx, pic) : read_rgba(tif, &m, &l, frame_ctx, pic);
        if (st == JF_OK)
            st = read_metadata(tif, pic);
    }
    if (st == JF_OK) {
        pic->format = JF_FORMAT_TIFF;
        pic->compression = l.compression;
        pic->pages = scan.pages;
        pic->orientation = l.orientation >= 1 && l.orientation <= 8 ? l.orientation : 0;
        pic->alpha_associated = pic->alpha.data && l.alpha >= 0 &&
                                l.extra[l.alpha - (l.samples - l.extra_count)] == EXTRASAMPLE_ASSOCALPHA;
    }
    TIFFClose(tif);
    g_current = NULL;
    if (st != JF_OK) {
        jf_image_free(&pic->color);
        jf_image_free(&pic->alpha);
    }
    return st;
}

/* ---- Writing ------------------------------------------------------------- */

struct jf_tiff_writer {
    tiff_mem m;
    TIFF *tif;
    int pages, written;
};

jf_status jf_tiff_writer_open(int pages, jf_tiff_writer **out)
{
    jf_tiff_writer *w = (jf_tiff_writer *)calloc(1, sizeof *w);
    *out = NULL;
    if (!w)
        return jf_fail(JF_ERR_NOMEM, "out of memory");
    w->pages = pages;
    if (!(w->tif = open_mem(&w->m, "w"))) {
        jf_status st = jf_fail(JF_ERR_ENCODE, "TIFF encoder: %s", said(&w->m));
        free(w->m.out);
        free(w);
        g_current = NULL;
        return st;
    }
    g_current = NULL;
    *out = w;
    return JF_OK;
}

/* libtiff's Compression tag for a jf_tiff_compression; SAME the picture's
 * own where libtiff writes it. */
static uint16_t tag_compression(int compression, const jf_picture *pic)
{
    switch (compression) {
    case JF_TIFF_NONE: return COMPRESSION_NONE;
    case JF_TIFF_LZW: return COMPRESSION_LZW;
    case JF_TIFF_PACKBITS: return COMPRESSION_PACKBITS;
    case JF_TIFF_DEFLATE: return COMPRESSION_ADOBE_DEFLATE;
    default: break;
    }
    if (pic->format == JF_FORMAT_TIFF)
        switch (pic->compression) {
        case COMPRESSION_NONE: case COMPRESSION_LZW: case COMPRESSION_PACKBITS:
            return (uint16_t)pic->compression;
        default: break;
        }
    return COMPRESSION_ADOBE_DEFLATE;
}

/* Rows a strip: about 256 KiB each, so deflate and LZW see long runs. */
static uint32_t rows_per_strip(size_t row_bytes, uint32_t height)
{
    size_t rows = ((size_t)256 << 10) / (row_bytes ? row_bytes : 1);
    if (rows < 1)
        rows = 1;
    return rows > height ? height : (uint32_t)rows;
}

static jf_status write_page(jf_tiff_writer *w, const jf_picture *pic, int compression, int level)
{
    TIFF *tif = w->tif;
    const jf_image *img = &pic->color;
    const int has_alpha = pic->alpha.data != NULL, spp = img->channels + has_alpha;
    const size_t b = jf_bps(img), row_bytes = (size_t)img->width * (size_t)spp * b;
    const uint16_t tag = tag_compression(compression, pic);
    const uint32_t rows = rows_per_strip(row_bytes, (uint32_t)img->height);
    unsigned char *strip;
    uint32_t y0, y;
    int x;
    TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, (uint32_t)img->width);
    TIFFSetField(tif, TIFFTAG_IMAGELENGTH, (uint32_t)img->height);
    TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, (uint16_t)spp);
    TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, (uint16_t)(8 * b));
    TIFFSetField(tif, TIFFTAG_SAMPLEFORMAT,
                 img->sample == JF_SAMPLE_F32 ? SAMPLEFORMAT_IEEEFP : SAMPLEFORMAT_UINT);
    TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
    if (pic->color_model == JF_COLOR_CMYK) {
        TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_SEPARATED);
        TIFFSetField(tif, TIFFTAG_INKSET, INKSET_CMYK);
    } else {
        TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, img->channels == 1 ? PHOTOMETRIC_MINISBLACK : PHOTOMETRIC_RGB);
    }
    if (has_alpha) {
        uint16_t kind = pic->alpha_associated ? EXTRASAMPLE_ASSOCALPHA : EXTRASAMPLE_UNASSALPHA;
        TIFFSetField(tif, TIFFTAG_EXTRASAMPLES, (uint16_t)1, &kind);
    }
    TIFFSetField(tif, TIFFTAG_COMPRESSION, tag);
    if (tag == COMPRESSION_LZW || tag == COMPRESSION_ADOBE_DEFLATE)
        TIFFSetField(tif, TIFFTAG_PREDICTOR,
                     img->sample == JF_SAMPLE_F32 ? PREDICTOR_FLOATINGPOINT : PREDICTOR_HORIZONTAL);
    if (tag == COMPRESSION_ADOBE_DEFLATE)
        TIFFSetField(tif, TIFFTAG_ZIPQUALITY, level < 1 ? 1 : level);
    TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, rows);
    if (pic->orientation >= 1 && pic->orientation <= 8)
        TIFFSetField(tif, TIFFTAG_ORIENTATION, (uint16_t)pic->orientation);
    if (w->pages > 1) {
        TIFFSetField(tif, TIFFTAG_SUBFILETYPE, FILETYPE_PAGE);
        TIFFSetField(tif, TIFFTAG_PAGENUMBER, (uint16_t)w->written, (uint16_t)w->pages);
    }
    write_metadata(tif, pic);
    if (!(strip = (unsigned char *)malloc(row_bytes * rows)))
        return jf_fail(JF_ERR_NOMEM, "out of memory");
    for (y0 = 0; y0 < (uint32_t)img->height; y0 += rows) {
        const uint32_t n = y0 + rows > (uint32_t)img->height ? (uint32_t)img->height - y0 : rows;
        for (y = 0; y < n; y++) {
            const unsigned char *c = img->data + (size_t)(y0 + y) * img->stride;
            unsigned char *d = strip + (size_t)y * row_bytes;
            if (!has_alpha) {
                memcpy(d, c, row_bytes);
                continue;
            }
            for (x = 0; x < img->width; x++) {
                const unsigned char *a = pic->alpha.data + (size_t)(y0 + y) * pic->alpha.stride;
                memcpy(d + (size_t)x * spp * b, c + (size_t)x * img->channels * b, (size_t)img->channels * b);
                memcpy(d + ((size_t)x * spp + img->channels) * b, a + (size_t)x * b, b);
            }
        }
        if (TIFFWriteEncodedStrip(tif, TIFFComputeStrip(tif, y0, 0), strip, (tmsize_t)(n * row_bytes)) < 0) {
            free(strip);
            return jf_fail(JF_ERR_ENCODE, "TIFF encoder: %s", said(&w->m));
        }
    }
    free(strip);
    if (!TIFFWriteDirectory(tif))
        return jf_fail(JF_ERR_ENCODE, "TIFF encoder: %s", said(&w->m));
    return JF_OK;
}

jf_status jf_tiff_writer_add(jf_tiff_writer *w, const jf_picture *pic, int compression, int level)
{
    jf_status st;
    if (w->written >= 65535)
        return jf_fail(JF_ERR_ENCODE, "a TIFF holds at most 65535 pages here");
    g_current = &w->m;
    st = write_page(w, pic, compression, level);
    g_current = NULL;
    if (st == JF_OK)
        w->written++;
    return st;
}

jf_status jf_tiff_writer_close(jf_tiff_writer *w, unsigned char **out, size_t *out_size)
{
    jf_status st = JF_OK;
    if (!w)
        return JF_OK;
    g_current = &w->m;
    TIFFClose(w->tif);
    g_current = NULL;
    if (out && w->m.message[0])
        st = jf_fail(JF_ERR_ENCODE, "TIFF encoder: %s", w->m.message);
    if (out && st == JF_OK) {
        *out = w->m.out;
        *out_size = w->m.size;
    } else {
        free(w->m.out);
    }
    free(w);
    return st;
}

#endif
