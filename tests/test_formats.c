/* TIFF, WebP and PFM: round trips at every sample type, the layouts other
 * writers make (written here with libtiff and libwebp directly, PFM by
 * hand), pages, metadata across formats, and damaged or hostile files
 * refused cleanly. */
#define _DEFAULT_SOURCE
#include "common.h"
#include "io/io.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tiffio.h>
#include <webp/encode.h>
#include <webp/mux.h>

typedef struct membuf {
    unsigned char *data;
    size_t size, at, cap;
} membuf;

/* ---- libtiff writing to memory, for layouts jetfilter never writes ---- */

static tmsize_t m_read(thandle_t h, void *b, tmsize_t n)
{
    membuf *m = (membuf *)h;
    size_t k = (size_t)n > m->size - m->at ? m->size - m->at : (size_t)n;
    memcpy(b, m->data + m->at, k);
    m->at += k;
    return (tmsize_t)k;
}

static tmsize_t m_write(thandle_t h, void *b, tmsize_t n)
{
    membuf *m = (membuf *)h;
    if (m->at + (size_t)n > m->cap) {
        m->cap = (m->at + (size_t)n) * 2;
        m->data = (unsigned char *)realloc(m->data, m->cap);
    }
    memcpy(m->data + m->at, b, (size_t)n);
    m->at += (size_t)n;
    if (m->at > m->size)
        m->size = m->at;
    return n;
}

static toff_t m_seek(thandle_t h, toff_t off, int whence)
{
    membuf *m = (membuf *)h;
    m->at = (size_t)(whence == SEEK_SET ? off : whence == SEEK_CUR ? m->at + off : m->size + off);
    if (m->at > m->cap) {
        m->cap = m->at * 2;
        m->data = (unsigned char *)realloc(m->data, m->cap);
    }
    if (m->at > m->size) {
        memset(m->data + m->size, 0, m->at - m->size);
        m->size = m->at;
    }
    return m->at;
}

static int m_close(thandle_t h) { (void)h; return 0; }
static toff_t m_size(thandle_t h) { return ((membuf *)h)->size; }
static int m_map(thandle_t h, void **b, toff_t *s) { (void)h; (void)b; (void)s; return 0; }
static void m_unmap(thandle_t h, void *b, toff_t s) { (void)h; (void)b; (void)s; }

static TIFF *tiff_to(membuf *m, const char *mode)
{
    memset(m, 0, sizeof *m);
    return TIFFClientOpen("test", mode, (thandle_t)m, m_read, m_write, m_seek, m_close, m_size, m_map,
                          m_unmap);
}

/* How a test TIFF is laid out. */
typedef struct layout {
    int photometric, bits, samples, planar, tile, rows_per_strip, compression, format;
    int extra; /* the kind of the last sample when samples exceed the colour's, or -1 */
    const char *mode; /* "w", "wb" (big-endian) */
} layout;

/* `samples` values a pixel, sample s of pixel (x, y) computed by value(). */
static unsigned value(int x, int y, int s, int bits)
{
    const unsigned v = (unsigned)(x * 37 + y * 101 + s * 59 + ((x * y) % 13) * 7);
    return bits >= 32 ? v * 2654435761u : bits == 16 ? (v * 2654435761u) >> 16 : bits == 8 ? v & 255 : v & ((1u << bits) - 1);
}

static void put_sample(unsigned char *p, int i, int bits, unsigned v)
{
    if (bits == 64)
        ((uint64_t *)(void *)p)[i] = v;
    else if (bits == 32)
        ((uint32_t *)(void *)p)[i] = v;
    else if (bits == 16)
        ((uint16_t *)(void *)p)[i] = (uint16_t)v;
    else if (bits == 8)
        p[i] = (unsigned char)v;
    else
        p[(i * bits) / 8] |= (unsigned char)(v << (8 - bits - (i * bits) % 8));
}

static membuf tiff_laid_out(int w, int h, const layout *l)
{
    membuf m;
    TIFF *t = tiff_to(&m, l->mode ? l->mode : "w");
    const int planes = l->planar == PLANARCONFIG_SEPARATE ? l->samples : 1;
    const int per = planes > 1 ? 1 : l->samples;
    unsigned char *buf;
    int p, x, y, s;
    assert_non_null(t);
    TIFFSetField(t, TIFFTAG_IMAGEWIDTH, (uint32_t)w);
    TIFFSetField(t, TIFFTAG_IMAGELENGTH, (uint32_t)h);
    TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, (uint16_t)l->bits);
    TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, (uint16_t)l->samples);
    TIFFSetField(t, TIFFTAG_PHOTOMETRIC, (uint16_t)l->photometric);
    TIFFSetField(t, TIFFTAG_PLANARCONFIG, (uint16_t)(l->planar ? l->planar : PLANARCONFIG_CONTIG));
    TIFFSetField(t, TIFFTAG_COMPRESSION, (uint16_t)(l->compression ? l->compression : COMPRESSION_NONE));
    if (l->format)
        TIFFSetField(t, TIFFTAG_SAMPLEFORMAT, (uint16_t)l->format);
    /* libtiff 4.5 writes big-endian files with this predictor wrongly (its
     * reader, and so jetfilter, reads tifffile's right) */
    if (l->format == SAMPLEFORMAT_IEEEFP && (!l->mode || strcmp(l->mode, "wb") != 0) &&
        (l->compression == COMPRESSION_LZW || l->compression == COMPRESSION_ADOBE_DEFLATE))
        TIFFSetField(t, TIFFTAG_PREDICTOR, PREDICTOR_FLOATINGPOINT);
    if (l->extra >= 0) {
        uint16_t kind = (uint16_t)l->extra;
        TIFFSetField(t, TIFFTAG_EXTRASAMPLES, (uint16_t)1, &kind);
    }
    if (l->photometric == PHOTOMETRIC_PALETTE) {
        static uint16_t r[256], g[256], b[256];
        for (x = 0; x < 256; x++) {
            r[x] = (uint16_t)(x * 257);
            g[x] = (uint16_t)((255 - x) * 257);
            b[x] = (uint16_t)(((x * 7) & 255) * 257);
        }
        TIFFSetField(t, TIFFTAG_COLORMAP, r, g, b);
    }
    if (l->tile) {
        const int tiles_x = (w + l->tile - 1) / l->tile, tiles_y = (h + l->tile - 1) / l->tile;
        const size_t n = (size_t)TIFFTileSize(t);
        int tx, ty;
        TIFFSetField(t, TIFFTAG_TILEWIDTH, (uint32_t)l->tile);
        TIFFSetField(t, TIFFTAG_TILELENGTH, (uint32_t)l->tile);
        buf = (unsigned char *)malloc((size_t)TIFFTileSize(t));
        for (p = 0; p < planes; p++)
            for (ty = 0; ty < tiles_y; ty++)
                for (tx = 0; tx < tiles_x; tx++) {
                    memset(buf, 0, (size_t)TIFFTileSize(t));
                    for (y = 0; y < l->tile; y++)
                        for (x = 0; x < l->tile; x++)
                            for (s = 0; s < per; s++)
                                if (tx * l->tile + x < w && ty * l->tile + y < h)
                                    put_sample(buf, (y * l->tile + x) * per + s, l->bits,
                                               value(tx * l->tile + x, ty * l->tile + y, planes > 1 ? p : s, l->bits));
                    assert_true(TIFFWriteEncodedTile(t, TIFFComputeTile(t, (uint32_t)(tx * l->tile), (uint32_t)(ty * l->tile), 0, (uint16_t)p), buf, (tmsize_t)TIFFTileSize(t)) >= 0);
                }
        (void)n;
    } else {
        const int rows = l->rows_per_strip ? l->rows_per_strip : h;
        const size_t row = (size_t)(((size_t)w * (size_t)per * (size_t)l->bits + 7) / 8);
        TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, (uint32_t)rows);
        buf = (unsigned char *)malloc(row * (size_t)rows);
        for (p = 0; p < planes; p++)
            for (y = 0; y < h; y += rows) {
                const int n = y + rows > h ? h - y : rows;
                int yy;
                memset(buf, 0, row * (size_t)rows);
                for (yy = 0; yy < n; yy++) {
                    for (x = 0; x < w; x++)
                        for (s = 0; s < per; s++)
                            put_sample(buf + (size_t)yy * row, x * per + s, l->bits,
                                       value(x, y + yy, planes > 1 ? p : s, l->bits));
                }
                assert_true(TIFFWriteEncodedStrip(t, TIFFComputeStrip(t, (uint32_t)y, (uint16_t)p), buf,
                                                  (tmsize_t)(row * (size_t)n)) >= 0);
            }
    }
    free(buf);
    assert_true(TIFFWriteDirectory(t));
    TIFFClose(t);
    return m;
}

static unsigned pic_sample(const jf_image *img, int x, int y, int c) { return t_px(img, x, y, c); }

/* Every layout the direct reader promises, against the values written. */
static void test_tiff_layouts(void **state)
{
    static const layout layouts[] = {
        {PHOTOMETRIC_MINISBLACK, 8, 1, 0, 0, 0, 0, 0, -1, NULL},
        {PHOTOMETRIC_MINISBLACK, 16, 1, 0, 0, 3, COMPRESSION_LZW, 0, -1, NULL},
        {PHOTOMETRIC_MINISBLACK, 16, 1, 0, 0, 1, COMPRESSION_ADOBE_DEFLATE, 0, -1, "wb"},
        {PHOTOMETRIC_MINISWHITE, 8, 1, 0, 0, 0, COMPRESSION_PACKBITS, 0, -1, NULL},
        {PHOTOMETRIC_MINISWHITE, 16, 1, 0, 16, 0, 0, 0, -1, "wb"},
        {PHOTOMETRIC_RGB, 8, 3, 0, 0, 4, 0, 0, -1, NULL},
        {PHOTOMETRIC_RGB, 8, 3, PLANARCONFIG_SEPARATE, 0, 5, COMPRESSION_LZW, 0, -1, NULL},
        {PHOTOMETRIC_RGB, 16, 3, 0, 16, 0, COMPRESSION_ADOBE_DEFLATE, 0, -1, NULL},
        {PHOTOMETRIC_RGB, 16, 3, PLANARCONFIG_SEPARATE, 32, 0, 0, 0, -1, "wb"},
        {PHOTOMETRIC_RGB, 8, 4, 0, 0, 0, COMPRESSION_LZW, 0, EXTRASAMPLE_UNASSALPHA, NULL},
        {PHOTOMETRIC_RGB, 16, 4, PLANARCONFIG_SEPARATE, 0, 2, 0, 0, EXTRASAMPLE_ASSOCALPHA, NULL},
        {PHOTOMETRIC_MINISBLACK, 8, 2, 0, 0, 0, 0, 0, EXTRASAMPLE_UNASSALPHA, NULL},
        {PHOTOMETRIC_RGB, 8, 4, 0, 0, 0, 0, 0, EXTRASAMPLE_UNSPECIFIED, NULL},
        {PHOTOMETRIC_SEPARATED, 8, 4, 0, 0, 0, COMPRESSION_ADOBE_DEFLATE, 0, -1, NULL},
        /* float32: any bits (NaN, infinities, negatives), both byte orders */
        {PHOTOMETRIC_MINISBLACK, 32, 1, 0, 0, 0, 0, SAMPLEFORMAT_IEEEFP, -1, NULL},
        {PHOTOMETRIC_MINISBLACK, 32, 1, 0, 16, 0, COMPRESSION_ADOBE_DEFLATE, SAMPLEFORMAT_IEEEFP, -1, "wb"},
        {PHOTOMETRIC_RGB, 32, 3, 0, 0, 3, COMPRESSION_LZW, SAMPLEFORMAT_IEEEFP, -1, "wb"},
        {PHOTOMETRIC_RGB, 32, 3, PLANARCONFIG_SEPARATE, 0, 2, 0, SAMPLEFORMAT_IEEEFP, -1, NULL},
        {PHOTOMETRIC_RGB, 32, 4, 0, 0, 0, COMPRESSION_ADOBE_DEFLATE, SAMPLEFORMAT_IEEEFP,
         EXTRASAMPLE_UNASSALPHA, NULL},
    };
    static const int sizes[][2] = {{1, 1}, {7, 5}, {37, 23}, {97, 61}};
    size_t i, k;
    (void)state;
    for (i = 0; i < sizeof layouts / sizeof layouts[0]; i++)
        for (k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            const layout *l = &layouts[i];
            const int w = sizes[k][0], h = sizes[k][1];
            const int color = l->photometric == PHOTOMETRIC_RGB ? 3 : l->photometric == PHOTOMETRIC_SEPARATED ? 4 : 1;
            const int alpha = l->extra == EXTRASAMPLE_UNASSALPHA || l->extra == EXTRASAMPLE_ASSOCALPHA;
            const unsigned max = l->bits == 16 ? 65535u : 255u;
            membuf m = tiff_laid_out(w, h, l);
            jf_picture pic;
            int x, y, c;
            jf_status st = jf_picture_decode(m.data, m.size, "layout", &pic);
            if (st != JF_OK)
                fail_msg("layout %zu at %dx%d: %s", i, w, h, jf_last_error());
            assert_int_equal(pic.format, JF_FORMAT_TIFF);
            assert_int_equal(pic.pages, 1);
            assert_int_equal(pic.color.width, w);
            assert_int_equal(pic.color.height, h);
            assert_int_equal(pic.color.channels, color);
            assert_int_equal(pic.color.sample, l->bits == 32 ? JF_SAMPLE_F32 : l->bits == 16 ? JF_SAMPLE_U16 : JF_SAMPLE_U8);
            assert_int_equal(pic.alpha.data != NULL, alpha);
            assert_int_equal(pic.alpha_associated, l->extra == EXTRASAMPLE_ASSOCALPHA);
            assert_int_equal(pic.color_model, color == 4 ? JF_COLOR_CMYK : JF_COLOR_DEFAULT);
            assert_int_equal(pic.compression, l->compression ? l->compression : COMPRESSION_NONE);
            if (l->extra == EXTRASAMPLE_UNSPECIFIED)
                assert_non_null(strstr(jf_last_warning(), "extra TIFF channel"));
            for (y = 0; y < h; y++)
                for (x = 0; x < w; x++) {
                    for (c = 0; c < color; c++) {
                        unsigned want = value(x, y, c, l->bits);
                        if (l->photometric == PHOTOMETRIC_MINISWHITE)
                            want = max - want;
                        if (pic_sample(&pic.color, x, y, c) != want)
                            fail_msg("layout %zu at %dx%d: (%d,%d,%d) is %u, wrote %u", i, w, h, x, y, c,
                                     pic_sample(&pic.color, x, y, c), want);
                    }
                    if (alpha)
                        assert_int_equal(pic_sample(&pic.alpha, x, y, 0), value(x, y, l->samples - 1, l->bits));
                }
            jf_picture_free(&pic);
            free(m.data);
        }
}

/* Palette, bilevel and 4-bit grey come through libtiff's RGBA reader:
 * palette as RGB, the grey kinds as grey, widened to 8 bits. */
static void test_tiff_other_layouts(void **state)
{
    const layout palette = {PHOTOMETRIC_PALETTE, 8, 1, 0, 0, 0, COMPRESSION_LZW, 0, -1, NULL};
    const layout bilevel = {PHOTOMETRIC_MINISBLACK, 1, 1, 0, 0, 0, COMPRESSION_PACKBITS, 0, -1, NULL};
    const layout grey4 = {PHOTOMETRIC_MINISWHITE, 4, 1, 0, 0, 0, 0, 0, -1, NULL};
    const int w = 29, h = 17;
    membuf m;
    jf_picture pic;
    int x, y;
    (void)state;
    m = tiff_laid_out(w, h, &palette);
    assert_int_equal(jf_picture_decode(m.data, m.size, "palette", &pic), JF_OK);
    assert_int_equal(pic.color.channels, 3);
    for (y = 0; y < h; y++)
        for (x = 0; x < w; x++) {
            const unsigned i = value(x, y, 0, 8);
            assert_int_equal(t_px(&pic.color, x, y, 0), i);
            assert_int_equal(t_px(&pic.color, x, y, 1), 255 - i);
            assert_int_equal(t_px(&pic.color, x, y, 2), (i * 7) & 255);
        }
    jf_picture_free(&pic);
    free(m.data);
    m = tiff_laid_out(w, h, &bilevel);
    assert_int_equal(jf_picture_decode(m.data, m.size, "bilevel", &pic), JF_OK);
    assert_int_equal(pic.color.channels, 1);
    for (y = 0; y < h; y++)
        for (x = 0; x < w; x++)
            assert_int_equal(t_px(&pic.color, x, y, 0), value(x, y, 0, 1) ? 255 : 0);
    jf_picture_free(&pic);
    free(m.data);
    m = tiff_laid_out(w, h, &grey4);
    assert_int_equal(jf_picture_decode(m.data, m.size, "grey4", &pic), JF_OK);
    assert_int_equal(pic.color.channels, 1);
    for (y = 0; y < h; y++)
        for (x = 0; x < w; x++)
            assert_int_equal(t_px(&pic.color, x, y, 0), (15 - value(x, y, 0, 4)) * 17);
    jf_picture_free(&pic);
    free(m.data);
}

/* Floats other than float32 grey and RGB, and signed samples, are refused
 * by name. */
static void test_tiff_refusals(void **state)
{
    const layout fp64 = {PHOTOMETRIC_MINISBLACK, 64, 1, 0, 0, 0, 0, SAMPLEFORMAT_IEEEFP, -1, NULL};
    const layout fp_white = {PHOTOMETRIC_MINISWHITE, 32, 1, 0, 0, 0, 0, SAMPLEFORMAT_IEEEFP, -1, NULL};
    const layout sint = {PHOTOMETRIC_MINISBLACK, 16, 1, 0, 0, 0, 0, SAMPLEFORMAT_INT, -1, NULL};
    membuf m;
    jf_picture pic;
    (void)state;
    m = tiff_laid_out(9, 4, &fp64);
    assert_int_equal(jf_picture_decode(m.data, m.size, "depth.tif", &pic), JF_ERR_UNSUPPORTED);
    assert_non_null(strstr(jf_last_error(), "depth.tif: a TIFF of 64-bit floating-point samples"));
    free(m.data);
    m = tiff_laid_out(9, 4, &fp_white);
    assert_int_equal(jf_picture_decode(m.data, m.size, "w.tif", &pic), JF_ERR_UNSUPPORTED);
    assert_non_null(strstr(jf_last_error(), "a float32 TIFF of photometric 0"));
    free(m.data);
    m = tiff_laid_out(9, 4, &sint);
    assert_int_equal(jf_picture_decode(m.data, m.size, "s.tif", &pic), JF_ERR_UNSUPPORTED);
    assert_non_null(strstr(jf_last_error(), "signed"));
    free(m.data);
}

static jf_picture random_picture(int w, int h, int channels, jf_sample sample, int alpha, uint64_t seed)
{
    jf_picture pic;
    memset(&pic, 0, sizeof pic);
    pic.color = sample == JF_SAMPLE_F32 ? t_random_float(w, h, channels, 3, 0, seed)
                : sample == JF_SAMPLE_U16 ? t_random_image16(w, h, channels, 3, 0, seed)
                                          : t_random_image(w, h, channels, 3, seed);
    if (alpha)
        pic.alpha = sample == JF_SAMPLE_F32 ? t_random_float(w, h, 1, 0, 2, seed + 1)
                    : sample == JF_SAMPLE_U16 ? t_random_image16(w, h, 1, 0, 0, seed + 1)
                                              : t_random_image(w, h, 1, 0, seed + 1);
    if (channels == 4)
        pic.color_model = JF_COLOR_CMYK;
    return pic;
}

/* jetfilter's own TIFFs read back exactly: every sample type and layout
 * a picture has, every compression, awkward sizes. */
static void test_tiff_round_trip_exact(void **state)
{
    static const int sizes[][2] = {{1, 1}, {7, 5}, {33, 1}, {1, 29}, {257, 131}};
    static const int kinds[][3] = {{1, 0, 0}, {1, 1, 0}, {3, 0, 0}, {3, 1, 0}, {1, 0, 1},
                                   {3, 0, 1}, {3, 1, 1}, {4, 0, 0}, {1, 0, 2}, {3, 1, 2}};
    static const int tags[JF_TIFF_COMPRESSION_COUNT] = {8, 1, 5, 8, 32773};
    size_t s, k;
    int c;
    (void)state;
    for (s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
            for (c = 0; c < JF_TIFF_COMPRESSION_COUNT; c++) {
                static const jf_sample samples[] = {JF_SAMPLE_U8, JF_SAMPLE_U16, JF_SAMPLE_F32};
                const jf_sample sample = samples[kinds[k][2]];
                jf_picture pic = random_picture(sizes[s][0], sizes[s][1], kinds[k][0], sample,
                                                kinds[k][1], 100 + s * 10 + k), back;
                jf_encode_options e = jf_encode_defaults();
                unsigned char *bytes;
                size_t n;
                e.format = JF_FORMAT_TIFF;
                e.tiff_compression = c;
                e.png_level = (int)(s % 10);
                assert_int_equal(jf_picture_encode(&pic, &e, &bytes, &n), JF_OK);
                assert_int_equal(jf_picture_decode(bytes, n, "round", &back), JF_OK);
                assert_int_equal(back.compression, tags[c]);
                assert_int_equal(back.color_model, pic.color_model);
                assert_true(t_images_equal(&pic.color, &back.color));
                assert_int_equal(back.alpha.data != NULL, pic.alpha.data != NULL);
                if (pic.alpha.data)
                    assert_true(t_images_equal(&pic.alpha, &back.alpha));
                free(bytes);
                jf_picture_free(&back);
                jf_picture_free(&pic);
            }
}

/* Pages: written one at a time, read one at a time, the count on each. */
static void test_tiff_pages(void **state)
{
    static const int sizes[][3] = {{31, 17, 1}, {5, 9, 3}, {64, 2, 1}};
    jf_encode_options e = jf_encode_defaults();
    jf_page_writer *w;
    jf_picture pages[3], back;
    jf_limits lim = jf_limits_defaults();
    unsigned char *bytes;
    size_t n;
    int p;
    (void)state;
    e.format = JF_FORMAT_TIFF;
    e.tiff_compression = JF_TIFF_LZW;
    assert_int_equal(jf_pages_begin(&e, 3, &w), JF_OK);
    for (p = 0; p < 3; p++) {
        pages[p] = random_picture(sizes[p][0], sizes[p][1], sizes[p][2], p == 1 ? JF_SAMPLE_U16 : JF_SAMPLE_U8,
                                  p == 2, 7 + (uint64_t)p);
        assert_int_equal(jf_pages_add(w, &pages[p]), JF_OK);
    }
    assert_int_equal(jf_pages_end(w, &bytes, &n), JF_OK);
    for (p = 0; p < 3; p++) {
        assert_int_equal(jf_picture_decode_page(bytes, n, "pages", p, &back), JF_OK);
        assert_int_equal(back.pages, 3);
        assert_true(t_images_equal(&pages[p].color, &back.color));
        assert_int_equal(back.alpha.data != NULL, p == 2);
        jf_picture_free(&back);
    }
    assert_int_equal(jf_picture_decode_page(bytes, n, "pages", 3, &back), JF_ERR_ARG);
    assert_non_null(strstr(jf_last_error(), "page 4 asked of a TIFF of 3 pages"));
    /* the page limit holds before any page is read */
    lim.max_pages = 2;
    assert_int_equal(jf_set_limits(&lim), JF_OK);
    assert_int_equal(jf_picture_decode(bytes, n, "pages", &back), JF_ERR_LIMIT);
    assert_non_null(strstr(jf_last_error(), "more than 2 pages"));
    lim.max_pages = 0; /* 0: the default, as 1.10's reserved field */
    assert_int_equal(jf_set_limits(&lim), JF_OK);
    assert_int_equal(jf_get_limits().max_pages, 1000);
    /* formats of one page take one */
    e.format = JF_FORMAT_PNG;
    assert_int_equal(jf_pages_begin(&e, 2, &w), JF_OK);
    assert_int_equal(jf_pages_add(w, &pages[0]), JF_OK);
    assert_int_equal(jf_pages_add(w, &pages[2]), JF_ERR_UNSUPPORTED);
    assert_non_null(strstr(jf_last_error(), "png holds one page"));
    jf_pages_end(w, NULL, NULL);
    assert_int_equal(jf_picture_decode_page(pages[0].color.data, 16, "x", 1, &back), JF_ERR_ARG);
    for (p = 0; p < 3; p++)
        jf_picture_free(&pages[p]);
    free(bytes);
}

/* Directories that loop, claim too much, or lie past the end. */
static void test_tiff_hostile(void **state)
{
    const layout rgb = {PHOTOMETRIC_RGB, 8, 3, 0, 0, 4, COMPRESSION_LZW, 0, -1, NULL};
    membuf m = tiff_laid_out(40, 30, &rgb);
    jf_picture pic;
    unsigned char *copy = (unsigned char *)malloc(m.size);
    uint32_t ifd;
    uint16_t entries;
    size_t cut, i;
    jf_status st;
    (void)state;
    memcpy(&ifd, m.data + 4, 4);
    memcpy(&entries, m.data + ifd, 2);
    {   /* the memory its decoding takes: the pixels, and the samples as
         * stored (at least 4 bytes a pixel: libtiff's RGBA reader) */
        jf_probe pr;
        assert_int_equal(jf_picture_probe(m.data, m.size, &pr), JF_OK);
        assert_int_equal(pr.width * pr.height * pr.channels, 40 * 30 * 3);
        assert_true(pr.decode_bytes >= 40 * 30 * 3 + 40 * 30 * 4);
        assert_true(pr.decode_bytes <= 40 * 30 * 3 + 40 * 30 * 4 + m.size);
    }
    /* the next-directory offset pointing back at the first: a loop */
    memcpy(copy, m.data, m.size);
    memcpy(copy + ifd + 2 + 12u * entries, &ifd, 4);
    assert_int_equal(jf_picture_decode(copy, m.size, "loop", &pic), JF_ERR_DECODE);
    assert_non_null(strstr(jf_last_error(), "loop"));
    /* a width of 2^31 - 1: over the pixel limit before anything is allocated */
    memcpy(copy, m.data, m.size);
    for (i = 0; i < entries; i++) {
        unsigned char *e = copy + ifd + 2 + 12 * i;
        uint16_t tag, type;
        memcpy(&tag, e, 2);
        memcpy(&type, e + 2, 2);
        if (tag == TIFFTAG_IMAGEWIDTH) {
            const uint32_t huge = 0x7FFFFFFF;
            const uint16_t long_type = TIFF_LONG;
            memcpy(e + 2, &long_type, 2);
            memcpy(e + 8, &huge, 4);
        }
    }
    assert_int_equal(jf_picture_decode(copy, m.size, "wide", &pic), JF_ERR_LIMIT);
    assert_non_null(strstr(jf_last_error(), "over the limit"));
    /* a width of 0: no image */
    for (i = 0; i < entries; i++) {
        unsigned char *e = copy + ifd + 2 + 12 * i;
        uint16_t tag;
        memcpy(&tag, e, 2);
        if (tag == TIFFTAG_IMAGEWIDTH)
            memset(e + 8, 0, 4);
    }
    assert_int_equal(jf_picture_decode(copy, m.size, "narrow", &pic), JF_ERR_DECODE);
    assert_non_null(strstr(jf_last_error(), "TIFF page 1 has no image size")); /* the pre-scan's */
    /* a tag whose values, as many as the file has bytes for, start past its middle */
    memcpy(copy, m.data, m.size);
    for (i = 0; i < entries; i++) {
        unsigned char *e = copy + ifd + 2 + 12 * i;
        uint16_t tag;
        memcpy(&tag, e, 2);
        if (tag == TIFFTAG_STRIPOFFSETS) {
            const uint16_t long_type = TIFF_LONG;
            const uint32_t count = (uint32_t)(m.size / 4), at = (uint32_t)(m.size / 2);
            memcpy(e + 2, &long_type, 2);
            memcpy(e + 4, &count, 4);
            memcpy(e + 8, &at, 4);
        }
    }
    assert_int_equal(jf_picture_decode(copy, m.size, "long", &pic), JF_ERR_DECODE);
    assert_non_null(strstr(jf_last_error(), "TIFF page 1: tag 273's data lies past the end"));
    /* the first directory past the end of the file */
    memcpy(copy, m.data, m.size);
    ifd = (uint32_t)m.size + 100;
    memcpy(copy + 4, &ifd, 4);
    assert_int_equal(jf_picture_decode(copy, m.size, "far", &pic), JF_ERR_DECODE);
    ifd = 0xFFFFFFFFu;
    memcpy(copy + 4, &ifd, 4);
    assert_int_equal(jf_picture_decode(copy, m.size, "far", &pic), JF_ERR_DECODE);
    assert_non_null(strstr(jf_last_error(), "past the end"));
    {   /* a BigTIFF whose first directory is 2^64 - 1 bytes in: the sum wraps */
        unsigned char big[40] = {'I', 'I', 43, 0, 8, 0, 0, 0};
        memset(big + 8, 0xFF, 8);
        assert_int_equal(jf_picture_decode(big, sizeof big, "wraps", &pic), JF_ERR_DECODE);
        assert_non_null(strstr(jf_last_error(), "past the end"));
    }
    /* cut anywhere: refused, never read past the end (ASan in the sanitizer build) */
    for (cut = 0; cut < m.size; cut += 1 + cut / 8) {
        unsigned char *part = (unsigned char *)malloc(cut ? cut : 1);
        memcpy(part, m.data, cut);
        st = jf_picture_decode(part, cut, "cut", &pic);
        assert_true(st == JF_ERR_DECODE || (st == JF_OK && cut > m.size - 16));
        jf_picture_free(&pic);
        free(part);
    }
    /* bytes flipped everywhere: a status, never a crash */
    for (i = 8; i < m.size; i += 3) {
        memcpy(copy, m.data, m.size);
        copy[i] ^= (unsigned char)(0x5A + i);
        st = jf_picture_decode(copy, m.size, "flip", &pic);
        assert_true(st == JF_OK || st == JF_ERR_DECODE || st == JF_ERR_LIMIT || st == JF_ERR_UNSUPPORTED);
        jf_picture_free(&pic);
    }
    free(copy);
    free(m.data);
}

/* ICC, XMP and the text tags cross TIFF <-> PNG; orientation stays with TIFF. */
static void test_tiff_metadata(void **state)
{
    jf_picture pic = random_picture(12, 9, 3, JF_SAMPLE_U8, 0, 5), back, png, photo;
    static const char xmp[] = "<x:xmpmeta xmlns:x='adobe:ns:meta/'></x:xmpmeta>";
    jf_encode_options e = jf_encode_defaults();
    unsigned char *bytes, *pbytes;
    size_t n, pn;
    int i, found = 0;
    (void)state;
    /* a real profile (libpng checks one before it writes it) */
    assert_int_equal(jf_picture_read(t_source_path("samples/images/hubble_deep_field.jpg"), &photo), JF_OK);
    assert_true(photo.icc_size > 0);
    pic.icc = photo.icc;
    pic.icc_size = photo.icc_size;
    photo.icc = NULL;
    jf_picture_free(&photo);
    pic.orientation = 6;
    assert_int_equal(jf_picture_add_blob(&pic, -1, "Description", (const unsigned char *)"a test", 6), JF_OK);
    assert_int_equal(jf_picture_add_blob(&pic, -1, "Author", (const unsigned char *)"someone", 7), JF_OK);
    assert_int_equal(jf_picture_add_blob(&pic, 1, "XML:com.adobe.xmp", (const unsigned char *)xmp, strlen(xmp)), JF_OK);
    e.format = JF_FORMAT_TIFF;
    assert_int_equal(jf_picture_encode(&pic, &e, &bytes, &n), JF_OK);
    assert_int_equal(jf_picture_decode(bytes, n, "meta", &back), JF_OK);
    assert_int_equal(back.icc_size, pic.icc_size);
    assert_memory_equal(back.icc, pic.icc, pic.icc_size);
    assert_int_equal(back.orientation, 6);
    assert_int_equal(back.extra_count, 3);
    for (i = 0; i < back.extra_count; i++)
        found += (strcmp(back.extra[i].key, "Description") == 0 && strcmp((char *)back.extra[i].data, "a test") == 0) +
                 (strcmp(back.extra[i].key, "Author") == 0 && strcmp((char *)back.extra[i].data, "someone") == 0) +
                 (strcmp(back.extra[i].key, "XML:com.adobe.xmp") == 0 && back.extra[i].size == strlen(xmp));
    assert_int_equal(found, 3);
    /* to PNG: the same items as text chunks, the profile as iCCP */
    e.format = JF_FORMAT_PNG;
    assert_int_equal(jf_picture_encode(&back, &e, &pbytes, &pn), JF_OK);
    assert_int_equal(jf_picture_decode(pbytes, pn, "meta.png", &png), JF_OK);
    assert_int_equal(png.extra_count, 3);
    assert_int_equal(png.icc_size, pic.icc_size);
    jf_picture_free(&png);
    free(pbytes);
    free(bytes);
    jf_picture_free(&back);
    jf_picture_free(&pic);
}

/* ---- WebP ---- */

static void test_webp_round_trips(void **state)
{
    static const int sizes[][2] = {{1, 1}, {7, 5}, {131, 67}};
    jf_encode_options e = jf_encode_defaults();
    size_t s;
    int ch, alpha;
    (void)state;
    e.format = JF_FORMAT_WEBP;
    for (s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (ch = 1; ch <= 3; ch += 2)
            for (alpha = 0; alpha <= 1; alpha++) {
                jf_picture pic = random_picture(sizes[s][0], sizes[s][1], ch, JF_SAMPLE_U8, alpha, 40 + s), back, again;
                unsigned char *bytes, *bytes2;
                size_t n, n2;
                int x, y, c;
                e.webp_mode = JF_WEBP_LOSSLESS;
                assert_int_equal(jf_picture_encode(&pic, &e, &bytes, &n), JF_OK);
                assert_int_equal(jf_picture_decode(bytes, n, "ll.webp", &back), JF_OK);
                assert_int_equal(back.format, JF_FORMAT_WEBP);
                assert_int_equal(back.compression, 1);
                assert_int_equal(back.color.channels, 3);
                for (y = 0; y < pic.color.height; y++)
                    for (x = 0; x < pic.color.width; x++)
                        for (c = 0; c < 3; c++)
                            assert_int_equal(t_px(&back.color, x, y, c), t_px(&pic.color, x, y, ch == 1 ? 0 : c));
                assert_int_equal(back.alpha.data != NULL, alpha);
                if (alpha)
                    assert_true(t_images_equal(&pic.alpha, &back.alpha));
                /* SAME: a lossless input is written lossless */
                assert_int_equal(jf_picture_encode(&back, NULL, &bytes2, &n2), JF_OK);
                assert_int_equal(jf_picture_decode(bytes2, n2, "again.webp", &again), JF_OK);
                assert_int_equal(again.compression, 1);
                assert_true(t_images_equal(&back.color, &again.color));
                free(bytes);
                free(bytes2);
                jf_picture_free(&again);
                jf_picture_free(&back);
                jf_picture_free(&pic);
            }
}

static void test_webp_lossy_photo(void **state)
{
    jf_picture pic, back;
    jf_encode_options e = jf_encode_defaults();
    unsigned char *bytes;
    size_t n;
    double psnr;
    (void)state;
    assert_int_equal(jf_picture_read(t_source_path("samples/images/coffee.png"), &pic), JF_OK);
    e.format = JF_FORMAT_WEBP;
    e.quality = 92;
    assert_int_equal(jf_picture_encode(&pic, &e, &bytes, &n), JF_OK);
    assert_int_equal(jf_picture_decode(bytes, n, "lossy.webp", &back), JF_OK);
    assert_int_equal(back.compression, 0);
    assert_int_equal(jf_psnr(NULL, &pic.color, &back.color, &psnr, NULL), JF_OK);
    assert_true(psnr > 33.0 && psnr < 60.0);
    free(bytes);
    jf_picture_free(&back);
    jf_picture_free(&pic);
}

static void test_webp_refusals_and_metadata(void **state)
{
    jf_picture deep = random_picture(8, 8, 3, JF_SAMPLE_U16, 0, 1), cmyk = random_picture(8, 8, 4, JF_SAMPLE_U8, 0, 2);
    jf_picture pic = random_picture(16, 16, 3, JF_SAMPLE_U8, 0, 3), back;
    jf_encode_options e = jf_encode_defaults();
    static const unsigned char exif[] = {'I', 'I', 42, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    static const char xmp[] = "<x:xmpmeta xmlns:x='adobe:ns:meta/'/>";
    /* an animation: VP8X with the animation flag and an ANIM chunk */
    static const unsigned char anim[] = {'R', 'I', 'F', 'F', 36, 0, 0, 0, 'W', 'E', 'B', 'P',
                                         'V', 'P', '8', 'X', 10, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                         'A', 'N', 'I', 'M', 6, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    /* a container with a profile and no image */
    static const unsigned char icc_only[] = {'R', 'I', 'F', 'F', 16, 0, 0, 0, 'W', 'E', 'B', 'P',
                                             'I', 'C', 'C', 'P', 4, 0, 0, 0, 1, 2, 3, 4};
    unsigned char *bytes;
    size_t n, cut;
    jf_status st;
    (void)state;
    e.format = JF_FORMAT_WEBP;
    assert_int_equal(jf_picture_encode(&deep, &e, &bytes, &n), JF_ERR_UNSUPPORTED);
    assert_non_null(strstr(jf_last_error(), "16-bit"));
    assert_int_equal(jf_picture_encode(&cmyk, &e, &bytes, &n), JF_ERR_UNSUPPORTED);
    assert_non_null(strstr(jf_last_error(), "CMYK"));
    assert_int_equal(jf_picture_decode(anim, sizeof anim, "anim.webp", &back), JF_ERR_UNSUPPORTED);
    assert_non_null(strstr(jf_last_error(), "anim.webp: an animated WebP"));
    assert_int_equal(jf_picture_decode(icc_only, sizeof icc_only, "icc.webp", &back), JF_ERR_DECODE);
    assert_non_null(strstr(jf_last_error(), "icc.webp: no image size in the WebP file"));
    pic.icc = (unsigned char *)calloc(1, 200);
    pic.icc_size = 200;
    pic.exif = (unsigned char *)malloc(sizeof exif);
    memcpy(pic.exif, exif, sizeof exif);
    pic.exif_size = sizeof exif;
    assert_int_equal(jf_picture_add_blob(&pic, 1, "XML:com.adobe.xmp", (const unsigned char *)xmp, strlen(xmp)), JF_OK);
    assert_int_equal(jf_picture_encode(&pic, &e, &bytes, &n), JF_OK);
    assert_int_equal(jf_picture_decode(bytes, n, "meta.webp", &back), JF_OK);
    assert_int_equal(back.icc_size, 200);
    assert_int_equal(back.exif_size, sizeof exif);
    assert_memory_equal(back.exif, exif, sizeof exif);
    assert_int_equal(back.extra_count, 1);
    assert_int_equal(back.extra[0].size, strlen(xmp));
    jf_picture_free(&back);
    { /* EXIF written with JPEG's "Exif\0\0" before it (some writers do): read without it */
        WebPData image = {bytes, n}, chunk, whole = {NULL, 0};
        unsigned char prefixed[6 + sizeof exif];
        WebPMux *mux = WebPMuxCreate(&image, 1);
        memcpy(prefixed, "Exif\0\0", 6);
        memcpy(prefixed + 6, exif, sizeof exif);
        chunk.bytes = prefixed;
        chunk.size = sizeof prefixed;
        assert_non_null(mux);
        assert_int_equal(WebPMuxSetChunk(mux, "EXIF", &chunk, 1), WEBP_MUX_OK);
        assert_int_equal(WebPMuxAssemble(mux, &whole), WEBP_MUX_OK);
        WebPMuxDelete(mux);
        assert_int_equal(jf_picture_decode(whole.bytes, whole.size, "prefixed.webp", &back), JF_OK);
        assert_int_equal(back.exif_size, sizeof exif);
        assert_memory_equal(back.exif, exif, sizeof exif);
        jf_picture_free(&back);
        WebPDataClear(&whole);
    }
    for (cut = 0; cut < n; cut += 1 + cut / 6) {
        st = jf_picture_decode(bytes, cut, "cut.webp", &back);
        assert_true(st == JF_ERR_DECODE);
        jf_picture_free(&back);
    }
    free(bytes);
    jf_picture_free(&pic);
    jf_picture_free(&deep);
    jf_picture_free(&cmyk);
}

/* The whole-file check --skip-existing uses, for both formats. */
/* A PFM written by hand: `head` then the rows of `img` bottom first, each
 * sample in the byte order `big` says. */
static membuf pfm_by_hand(const char *head, const jf_image *img, int big)
{
    membuf m;
    const size_t n = strlen(head), row = (size_t)img->width * (size_t)img->channels;
    size_t y, i;
    memset(&m, 0, sizeof m);
    m.size = n + row * 4 * (size_t)img->height;
    m.data = (unsigned char *)malloc(m.size);
    memcpy(m.data, head, n);
    for (y = 0; y < (size_t)img->height; y++)
        for (i = 0; i < row; i++) {
            const unsigned v = t_px(img, (int)(i / (size_t)img->channels), img->height - 1 - (int)y,
                                    (int)(i % (size_t)img->channels));
            unsigned char *d = m.data + n + (y * row + i) * 4;
            int b;
            for (b = 0; b < 4; b++)
                d[b] = (unsigned char)(v >> (8 * (big ? 3 - b : b)));
        }
    return m;
}

/* PFM: both byte orders and header spellings read, the rows turned the
 * right way up; jetfilter's own files read back bit for bit; 8- and
 * 16-bit pictures refused for PFM and floats for PNG, JPEG and WebP by
 * name; damaged and hostile headers refused. */
static void test_pfm(void **state)
{
    static const int sizes[][2] = {{1, 1}, {7, 5}, {33, 1}, {1, 29}, {257, 131}};
    static const char *const hostile[] = {
        "PX\n2 2\n-1.0\n", "Pf\n0 2\n-1.0\n", "Pf\n-2 2\n-1.0\n", "Pf\n2\n-1.0\n",
        "Pf\n99999999999 2\n-1\n", "PF\n2147483647 2147483647\n-1\n", "Pf\n2 2\n0\n", "Pf\n2 2\nnan\n", "Pf\n2 2\n-1x\n",
        "Pf\n2 2\n-1.0", "Pf\n2 2\n", "Pf", "Pf\n4 4\n-1.0\n", "Pf\n2 2\n-1.0\0\n"};
    jf_encode_options e = jf_encode_defaults();
    char head[64];
    size_t s, i;
    int c, big;
    (void)state;
    e.format = JF_FORMAT_PFM;
    for (s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (c = 1; c <= 3; c += 2) {
            jf_picture pic = random_picture(sizes[s][0], sizes[s][1], c, JF_SAMPLE_F32, 0, 300 + s), back;
            unsigned char *bytes;
            size_t n;
            for (big = 0; big < 2; big++) { /* by hand: the scale's sign is the byte order */
                membuf m;
                snprintf(head, sizeof head, big ? "P%c %d\t%d\r%s\n" : "P%c\n%d %d\n%s\n",
                         c == 3 ? 'F' : 'f', sizes[s][0], sizes[s][1], big ? "1.0" : "-0.00392");
                m = pfm_by_hand(head, &pic.color, big);
                assert_int_equal(jf_picture_decode(m.data, m.size, "hand.pfm", &back), JF_OK);
                assert_int_equal(back.format, JF_FORMAT_PFM);
                assert_int_equal(back.color.sample, JF_SAMPLE_F32);
                assert_true(t_images_equal(&pic.color, &back.color));
                jf_picture_free(&back);
                free(m.data);
            }
            assert_int_equal(jf_picture_encode(&pic, &e, &bytes, &n), JF_OK);
            snprintf(head, sizeof head, "P%c\n%d %d\n-1.0\n", c == 3 ? 'F' : 'f', sizes[s][0],
                     sizes[s][1]);
            assert_memory_equal(bytes, head, strlen(head));
            assert_int_equal(n, strlen(head) + (size_t)sizes[s][0] * sizes[s][1] * c * 4);
            assert_int_equal(jf_picture_decode(bytes, n, "own.pfm", &back), JF_OK);
            assert_true(t_images_equal(&pic.color, &back.color));
            free(bytes);
            jf_picture_free(&back);
            jf_picture_free(&pic);
        }
    { /* alpha is left out with a warning; other sample types refused */
        jf_picture pic = random_picture(6, 4, 3, JF_SAMPLE_F32, 1, 7), u8 = random_picture(6, 4, 3, JF_SAMPLE_U8, 0, 8);
        unsigned char *bytes;
        size_t n;
        assert_int_equal(jf_picture_encode(&pic, &e, &bytes, &n), JF_OK);
        assert_non_null(strstr(jf_last_warning(), "alpha left out"));
        free(bytes);
        assert_int_equal(jf_picture_encode(&u8, &e, &bytes, &n), JF_ERR_UNSUPPORTED);
        assert_non_null(strstr(jf_last_error(), "PFM holds float32 samples, not 8-bit ones"));
        e.format = JF_FORMAT_PNG;
        assert_int_equal(jf_picture_encode(&pic, &e, &bytes, &n), JF_ERR_UNSUPPORTED);
        assert_non_null(strstr(jf_last_error(), "PNG holds 8- and 16-bit samples, not float32"));
        e.format = JF_FORMAT_JPEG;
        assert_int_equal(jf_picture_encode(&pic, &e, &bytes, &n), JF_ERR_UNSUPPORTED);
        assert_non_null(strstr(jf_last_error(), "JPEG holds 8-bit samples, not float32"));
        e.format = JF_FORMAT_WEBP;
        assert_int_equal(jf_picture_encode(&pic, &e, &bytes, &n), JF_ERR_UNSUPPORTED);
        assert_non_null(strstr(jf_last_error(), "WebP holds 8-bit samples, not float32"));
        jf_picture_free(&pic);
        jf_picture_free(&u8);
    }
    for (i = 0; i < sizeof hostile / sizeof hostile[0]; i++) {
        jf_picture pic;
        unsigned char buf[96];
        const size_t n = strlen(hostile[i]) + (i == sizeof hostile / sizeof hostile[0] - 1);
        jf_status st;
        memcpy(buf, hostile[i], n);
        for (c = 0; c < 40; c++) /* samples enough for 2x2, not 4x4; NUL bytes, a space */
            buf[n + (size_t)c] = (unsigned char)(c == 3 ? ' ' : c % 3 ? 0 : 0x41 + c);
        st = jf_picture_decode(buf, n + 40, "bad.pfm", &pic);
        if (st != JF_ERR_DECODE && st != JF_ERR_LIMIT)
            fail_msg("hostile PFM %zu (%s) gave %d: %s", i, hostile[i], (int)st, jf_last_error());
        assert_null(pic.color.data);
    }
    { /* over the pixel limit before anything is allocated */
        jf_limits lim = jf_get_limits(), small = lim;
        jf_picture pic;
        unsigned char buf[64 + 16] = {0};
        small.max_pixels = 3;
        memcpy(buf, "Pf\n2 2\n-1.0\n", 12);
        assert_int_equal(jf_set_limits(&small), JF_OK);
        assert_int_equal(jf_picture_decode(buf, 12 + 16, "big.pfm", &pic), JF_ERR_LIMIT);
        assert_non_null(strstr(jf_last_error(), "big.pfm: PFM image is 2x2, over the limit of 3 pixels"));
        assert_int_equal(jf_set_limits(&lim), JF_OK);
        assert_int_equal(jf_picture_decode(buf, 12 + 16, "ok.pfm", &pic), JF_OK);
        jf_picture_free(&pic);
    }
}

static void test_whole_files(void **state)
{
    const char *dir = t_make_tmpdir();
    jf_picture pic = random_picture(20, 10, 3, JF_SAMPLE_U8, 0, 9);
    jf_picture depth = random_picture(20, 10, 1, JF_SAMPLE_F32, 0, 9);
    jf_encode_options e = jf_encode_defaults();
    static const jf_format formats[] = {JF_FORMAT_TIFF, JF_FORMAT_WEBP, JF_FORMAT_PFM};
    char path[512], why[128];
    size_t i;
    (void)state;
    for (i = 0; i < 3; i++) {
        unsigned char *bytes;
        size_t n;
        FILE *f;
        e.format = formats[i];
        snprintf(path, sizeof path, "%s/x.%s", dir, jf_format_name(formats[i]));
        assert_int_equal(jf_picture_write(path, i == 2 ? &depth : &pic, &e), JF_OK);
        assert_int_equal(jf_file_format(path, NULL), formats[i]);
        assert_true(jf_file_whole_image(path, why, sizeof why));
        assert_int_equal(jf_read_file(path, 1 << 20, &bytes, &n), JF_OK);
        f = fopen(path, "wb");
        assert_int_equal(fwrite(bytes, 1, n - 20, f), n - 20);
        fclose(f);
        assert_false(jf_file_whole_image(path, why, sizeof why));
        free(bytes);
    }
    assert_non_null(strstr(why, "PFM file cut short"));
    { /* a size whose bytes wrap 64 bits to what the file holds is no whole file */
        static const char head[] = "PF\n2146470725 716165683\n-1\n";
        unsigned char *bytes = (unsigned char *)calloc(1, sizeof head - 1 + 10484);
        memcpy(bytes, head, sizeof head - 1);
        snprintf(path, sizeof path, "%s/wrap.pfm", dir);
        assert_int_equal(jf_write_file_atomic(path, bytes, sizeof head - 1 + 10484), JF_OK);
        assert_false(jf_file_whole_image(path, why, sizeof why));
        assert_non_null(strstr(why, "more than any file holds"));
        free(bytes);
    }
    jf_picture_free(&depth);
    jf_picture_free(&pic);
    t_rmtree(dir);
}

/* dir/name is float32 and every sample v / 255 of dir/first.png's */
static void assert_float_of_first(const char *dir, const char *name)
{
    jf_picture f, u8;
    char path[600];
    int x, y;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    assert_int_equal(jf_picture_read(path, &f), JF_OK);
    assert_int_equal(f.color.sample, JF_SAMPLE_F32);
    snprintf(path, sizeof path, "%s/first.png", dir);
    assert_int_equal(jf_picture_read(path, &u8), JF_OK);
    assert_int_equal(f.color.width, u8.color.width);
    assert_int_equal(f.color.height, u8.color.height);
    for (y = 0; y < u8.color.height; y++)
        for (x = 0; x < u8.color.width; x++)
            assert_true(t_fpx(&f.color, x, y, 0) == (float)t_px(&u8.color, x, y, 0) / 255.0f);
    jf_picture_free(&u8);
    jf_picture_free(&f);
}

/* The tool: one-file mode by extension, --format on a folder, a multi-page
 * TIFF filtered page by page. */
static void test_cli_formats(void **state)
{
    const char *dir = t_make_tmpdir();
    char cmd[4096], log[512], out[8192], path[600];
    jf_encode_options e = jf_encode_defaults();
    jf_page_writer *w;
    jf_picture pages[2], back;
    jf_median_options mo = jf_median_defaults();
    jf_context *ctx = t_cpu_context(1);
    unsigned char *bytes;
    size_t n;
    int p;
    (void)state;
    snprintf(log, sizeof log, "%s/log", dir);
    e.format = JF_FORMAT_TIFF;
    assert_int_equal(jf_pages_begin(&e, 2, &w), JF_OK);
    for (p = 0; p < 2; p++) {
        pages[p] = random_picture(23 + p, 19, 1 + 2 * p, JF_SAMPLE_U8, 0, 77 + (uint64_t)p);
        assert_int_equal(jf_pages_add(w, &pages[p]), JF_OK);
    }
    assert_int_equal(jf_pages_end(w, &bytes, &n), JF_OK);
    snprintf(path, sizeof path, "%s/in/stack.tiff", dir);
    snprintf(cmd, sizeof cmd, "mkdir -p %s/in", dir);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(jf_write_file_atomic(path, bytes, n), JF_OK);
    free(bytes);
    /* a folder: the TIFF found by its extension, every page filtered */
    snprintf(cmd, sizeof cmd, "%s denoise %s/in -o %s/out -k 3 --tiff-compression lzw -v > %s 2>&1",
             JF_CLI_PATH, dir, dir, log);
    assert_int_equal(t_run_logged(cmd, log, out, sizeof out), 0);
    snprintf(path, sizeof path, "%s/out/stack.tiff", dir);
    assert_int_equal(jf_read_file(path, 1 << 24, &bytes, &n), JF_OK);
    for (p = 0; p < 2; p++) {
        jf_image want = {0};
        mo.ksize = 3;
        assert_int_equal(jf_picture_decode_page(bytes, n, "out", p, &back), JF_OK);
        assert_int_equal(back.pages, 2);
        assert_int_equal(back.compression, COMPRESSION_LZW);
        assert_int_equal(jf_image_alloc(&want, pages[p].color.width, pages[p].color.height, pages[p].color.channels), JF_OK);
        assert_int_equal(jf_median(ctx, &pages[p].color, &want, &mo), JF_OK);
        assert_true(t_images_equal(&want, &back.color));
        jf_image_free(&want);
        jf_picture_free(&back);
    }
    free(bytes);
    /* into PNG: the first page, and a note that says so */
    snprintf(cmd, sizeof cmd, "%s denoise %s/in/stack.tiff -o %s/first.png -v > %s 2>&1", JF_CLI_PATH,
             dir, dir, log);
    assert_int_equal(t_run_logged(cmd, log, out, sizeof out), 0);
    assert_non_null(strstr(out, "2 pages: png holds one"));
    /* one file by its extension, each way */
    snprintf(cmd, sizeof cmd, "%s denoise %s/first.png -o %s/one.webp --webp lossless > %s 2>&1 && "
             "%s denoise %s/one.webp -o %s/two.tif -f median -k 1 >> %s 2>&1",
             JF_CLI_PATH, dir, dir, log, JF_CLI_PATH, dir, dir, log);
    assert_int_equal(t_run_logged(cmd, log, out, sizeof out), 0);
    snprintf(path, sizeof path, "%s/two.tif", dir);
    assert_int_equal(jf_picture_read(path, &back), JF_OK);
    assert_int_equal(back.color.channels, 3); /* WebP has no grey */
    jf_picture_free(&back);
    /* --format tif on a folder: .tif outputs */
    snprintf(cmd, sizeof cmd, "%s denoise %s/in -o %s/fmt --format webp > %s 2>&1", JF_CLI_PATH, dir,
             dir, log);
    assert_int_equal(t_run_logged(cmd, log, out, sizeof out), 0);
    snprintf(path, sizeof path, "%s/fmt/stack.webp", dir);
    assert_int_equal(jf_file_format(path, NULL), JF_FORMAT_WEBP);
    { /* float32: a depth map in PFM filtered into PFM and float TIFF as the
       * library filters it; refused for PNG by name, converted with --depth */
        jf_picture depth = random_picture(41, 23, 1, JF_SAMPLE_F32, 0, 55);
        jf_image want = {0};
        snprintf(path, sizeof path, "%s/depth.pfm", dir);
        e.format = JF_FORMAT_PFM;
        assert_int_equal(jf_picture_write(path, &depth, &e), JF_OK);
        snprintf(cmd, sizeof cmd, "%s denoise %s/depth.pfm -o %s/m.pfm -f median -k 5 > %s 2>&1 && "
                 "%s denoise %s/m.pfm -o %s/m.tif -f median -k 1 >> %s 2>&1", JF_CLI_PATH, dir, dir,
                 log, JF_CLI_PATH, dir, dir, log);
        assert_int_equal(t_run_logged(cmd, log, out, sizeof out), 0);
        mo.ksize = 5;
        want = depth.color;
        want.data = NULL;
        assert_int_equal(jf_image_alloc_as(&want, 41, 23, 1, JF_SAMPLE_F32), JF_OK);
        assert_int_equal(jf_median(ctx, &depth.color, &want, &mo), JF_OK);
        for (p = 0; p < 2; p++) {
            snprintf(path, sizeof path, "%s/m.%s", dir, p ? "tif" : "pfm");
            assert_int_equal(jf_picture_read(path, &back), JF_OK);
            assert_int_equal(back.format, p ? JF_FORMAT_TIFF : JF_FORMAT_PFM);
            assert_true(t_images_equal(&want, &back.color));
            jf_picture_free(&back);
        }
        snprintf(cmd, sizeof cmd, "%s denoise %s/depth.pfm -o %s/m.png -k 3 > %s 2>&1", JF_CLI_PATH,
                 dir, dir, log);
        assert_int_equal(t_run_logged(cmd, log, out, sizeof out), 1);
        assert_non_null(strstr(out, "m.png: PNG holds 8- and 16-bit samples, not float32"));
        snprintf(path, sizeof path, "%s/m.png", dir);
        assert_int_equal(access(path, F_OK), -1);
        /* --depth 16 into PNG, --depth float from 8 bits into TIFF */
        snprintf(cmd, sizeof cmd, "%s denoise %s/depth.pfm -o %s/m.png -k 1 --depth 16 -v > %s 2>&1 && "
                 "%s denoise %s/first.png -o %s/f.tif -k 1 --depth float >> %s 2>&1", JF_CLI_PATH, dir,
                 dir, log, JF_CLI_PATH, dir, dir, log);
        assert_int_equal(t_run_logged(cmd, log, out, sizeof out), 0);
        assert_non_null(strstr(out, "float32 rounded to 16 bits"));
        assert_int_equal(jf_picture_read(path, &back), JF_OK);
        assert_int_equal(back.color.sample, JF_SAMPLE_U16);
        jf_picture_free(&back);
        assert_float_of_first(dir, "f.tif");
        /* PFM holds floats only: an 8-bit input is made float32 there */
        snprintf(cmd, sizeof cmd, "%s denoise %s/first.png -o %s/f.pfm -k 1 -v > %s 2>&1", JF_CLI_PATH,
                 dir, dir, log);
        assert_int_equal(t_run_logged(cmd, log, out, sizeof out), 0);
        assert_non_null(strstr(out, "made float32 (0..1)"));
        assert_float_of_first(dir, "f.pfm");
        jf_image_free(&want);
        jf_picture_free(&depth);
    }
    jf_context_destroy(ctx);
    for (p = 0; p < 2; p++)
        jf_picture_free(&pages[p]);
    t_rmtree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tiff_layouts),
        cmocka_unit_test(test_tiff_other_layouts),
        cmocka_unit_test(test_tiff_refusals),
        cmocka_unit_test(test_tiff_round_trip_exact),
        cmocka_unit_test(test_tiff_pages),
        cmocka_unit_test(test_tiff_hostile),
        cmocka_unit_test(test_tiff_metadata),
        cmocka_unit_test(test_webp_round_trips),
        cmocka_unit_test(test_webp_lossy_photo),
        cmocka_unit_test(test_webp_refusals_and_metadata),
        cmocka_unit_test(test_pfm),
        cmocka_unit_test(test_whole_files),
        cmocka_unit_test(test_cli_formats),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
