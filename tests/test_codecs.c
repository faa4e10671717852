/* JPEG and PNG: round trips, every layout the decoders promise, metadata
 * carried across formats, and damaged or hostile files refused cleanly. */
#include "common.h"
#include "io/io.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <png.h>
#include <zlib.h>

/* ---- writers that use libjpeg/libpng directly, for layouts jetfilter
 *      itself never writes (progressive, CMYK, palette, 16-bit, ...) ---- */

typedef struct membuf {
    unsigned char *data;
    size_t size;
} membuf;

/* A JPEG of `img` as a given encoder would write it: the first component's
 * sampling hs x vs, a restart every `interval` MCUs, optimised Huffman
 * tables or the standard ones, the quality, progressive or sequential. */
typedef struct jpeg_layout {
    int hs, vs, interval, optimize, quality, progressive;
} jpeg_layout;

static membuf jpeg_laid_out(const jf_image *img, const jpeg_layout *l)
{
    struct jpeg_compress_struct c;
    struct jpeg_error_mgr e;
    unsigned char *out = NULL;
    unsigned long n = 0;
    int y;
    membuf m;
    c.err = jpeg_std_error(&e);
    jpeg_create_compress(&c);
    jpeg_mem_dest(&c, &out, &n);
    c.image_width = (JDIMENSION)img->width;
    c.image_height = (JDIMENSION)img->height;
    c.input_components = img->channels;
    c.in_color_space = img->channels == 3 ? JCS_RGB : JCS_GRAYSCALE;
    jpeg_set_defaults(&c);
    jpeg_set_quality(&c, l->quality, TRUE);
    c.optimize_coding = l->optimize ? TRUE : FALSE;
    c.restart_interval = (unsigned)l->interval;
    if (img->channels == 3) {
        c.comp_info[0].h_samp_factor = l->hs;
        c.comp_info[0].v_samp_factor = l->vs;
    }
    if (l->progressive)
        jpeg_simple_progression(&c);
    jpeg_start_compress(&c, TRUE);
    for (y = 0; y < img->height; y++) {
        JSAMPROW row = img->data + (size_t)y * img->stride;
        jpeg_write_scanlines(&c, &row, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    m.data = out;
    m.size = n;
    return m;
}

/* A JPEG of smoothed noise (more like a photo than noise is), grey or RGB. */
static membuf jpeg_special(int w, int h, int comps, int progressive, int hs, int vs, uint64_t seed)
{
    const jpeg_layout l = {hs, vs, 0, 0, 90, progressive};
    jf_image img = t_random_image(w, h, comps, 0, seed);
    membuf m;
    int y;
    for (y = 0; y < h; y++) {
        int x;
        for (x = comps; x < w * comps; x++)
            img.data[y * img.stride + x] = (unsigned char)((img.data[y * img.stride + x] +
                                                            3 * img.data[y * img.stride + x - comps]) / 4);
    }
    m = jpeg_laid_out(&img, &l);
    jf_image_free(&img);
    return m;
}

static void png_write_cb(png_structp png, png_bytep d, png_size_t n)
{
    membuf *m = png_get_io_ptr(png);
    m->data = realloc(m->data, m->size + n);
    memcpy(m->data + m->size, d, n);
    m->size += n;
}

static void png_flush_cb(png_structp png) { (void)png; }

/* Write raw rows of the given PNG type; returns the file bytes. */
static membuf png_special(int w, int h, int color_type, int depth, int interlace,
                          const unsigned char *rows, size_t row_bytes, int with_trns)
{
    membuf m = {NULL, 0};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    int y, pass, passes;
    assert_int_equal(setjmp(png_jmpbuf(png)), 0);
    png_set_write_fn(png, &m, png_write_cb, png_flush_cb);
    png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, depth, color_type, interlace,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (color_type == PNG_COLOR_TYPE_PALETTE) {
        png_color pal[16];
        png_byte trns[16];
        for (y = 0; y < 16; y++) {
            pal[y].red = (png_byte)(y * 16);
            pal[y].green = (png_byte)(255 - y * 16);
            pal[y].blue = (png_byte)(y * 7);
            trns[y] = (png_byte)(y * 17);
        }
        png_set_PLTE(png, info, pal, 16);
        if (with_trns)
            png_set_tRNS(png, info, trns, 16, NULL);
    }
    png_write_info(png, info);
    passes = png_set_interlace_handling(png);
    for (pass = 0; pass < passes; pass++)
        for (y = 0; y < h; y++)
            png_write_row(png, rows + (size_t)y * row_bytes);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    return m;
}

static jf_picture decode_ok(const membuf *m, const char *what)
{
    jf_picture pic;
    jf_status st = jf_picture_decode(m->data, m->size, what, &pic);
    if (st != JF_OK)
        fail_msg("%s: %s", what, jf_last_error());
    return pic;
}

static double psnr_of(const jf_image *a, const jf_image *b)
{
    double p;
    assert_int_equal(jf_psnr(NULL, a, b, &p, NULL), JF_OK);
    return p;
}

/* ---- tests ---- */

static void test_sniffing(void **state)
{
    static const unsigned char jpg[] = {0xFF, 0xD8, 0xFF, 0xE0};
    static const unsigned char png[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    (void)state;
    assert_int_equal(jf_sniff_format(jpg, 4), JF_FORMAT_JPEG);
    assert_int_equal(jf_sniff_format(png, 8), JF_FORMAT_PNG);
    assert_int_equal(jf_sniff_format(png, 7), JF_FORMAT_UNKNOWN);
    assert_int_equal(jf_sniff_format((const unsigned char *)"hello there", 11), JF_FORMAT_UNKNOWN);
}

static void test_samples_decode(void **state)
{
    static const struct { const char *name; int w, h, ch; } S[] = {
        {"astronaut.png", 512, 512, 3}, {"coffee.png", 600, 400, 3}, {"chelsea.png", 451, 300, 3},
        {"rocket.jpg", 640, 427, 3}, {"hubble_deep_field.jpg", 1000, 872, 3},
        {"retina.jpg", 1411, 1411, 3}};
    char path[256];
    size_t i;
    (void)state;
    for (i = 0; i < sizeof S / sizeof S[0]; i++) {
        jf_picture pic;
        snprintf(path, sizeof path, "samples/images/%s", S[i].name);
        assert_int_equal(jf_picture_read(t_source_path(path), &pic), JF_OK);
        assert_int_equal(pic.color.width, S[i].w);
        assert_int_equal(pic.color.height, S[i].h);
        assert_int_equal(pic.color.channels, S[i].ch);
        assert_null(pic.alpha.data);
        jf_picture_free(&pic);
    }
}

/* Decoding into a context's frame gives the pixels jf_picture_decode gives,
 * in memory the context keeps: not owned, reused by the next decode. */
static void test_decode_into_frame(void **state)
{
    static const char *const names[] = {"rocket.jpg", "coffee.png", "retina.jpg", "chelsea.png"};
    enum { W = 21, H = 11 };
    unsigned char rows[H * W * 4];
    jf_context *ctx = t_cpu_context(2);
    unsigned char *first_frame = NULL;
    size_t i;
    membuf m;
    (void)state;
    for (i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[256];
        unsigned char *bytes;
        size_t n;
        jf_picture want, got;
        snprintf(path, sizeof path, "samples/images/%s", names[i]);
        assert_int_equal(jf_read_file(t_source_path(path), 1 << 26, &bytes, &n), JF_OK);
        assert_int_equal(jf_picture_decode(bytes, n, names[i], &want), JF_OK);
        assert_int_equal(jf_picture_decode_frame(ctx, bytes, n, names[i], &got), JF_OK);
        assert_true(t_images_equal(&want.color, &got.color));
        assert_int_equal(got.color.owned, 0);
        assert_int_equal(got.format, want.format);
        assert_int_equal(got.icc_size, want.icc_size);
        if (i == 0)
            first_frame = got.color.data;
        else if (i == 1) /* smaller than the first: the same buffer */
            assert_ptr_equal(got.color.data, first_frame);
        jf_picture_free(&want);
        jf_picture_free(&got);
        free(bytes);
    }
    /* RGBA: the colour into the frame, the alpha plane owned */
    for (i = 0; i < sizeof rows; i++)
        rows[i] = (unsigned char)(i * 53 + 7);
    m = png_special(W, H, PNG_COLOR_TYPE_RGB_ALPHA, 8, PNG_INTERLACE_NONE, rows, W * 4, 0);
    {
        jf_picture want = decode_ok(&m, "rgba.png"), got;
        assert_int_equal(jf_picture_decode_frame(ctx, m.data, m.size, "rgba.png", &got), JF_OK);
        assert_true(t_images_equal(&want.color, &got.color));
        assert_true(t_images_equal(&want.alpha, &got.alpha));
        assert_int_equal(got.alpha.owned, 1);
        jf_picture_free(&want);
        jf_picture_free(&got);
    }
    /* a broken file leaves nothing behind, and names itself */
    assert_int_equal(jf_picture_decode_frame(ctx, m.data, m.size / 2, "cut.png", &(jf_picture){0}),
                     JF_ERR_DECODE);
    assert_non_null(strstr(jf_last_error(), "cut.png"));
    assert_int_equal(jf_picture_decode_frame(NULL, m.data, m.size, "x.png", &(jf_picture){0}),
                     JF_ERR_ARG);
    free(m.data);
    jf_context_destroy(ctx);
}

static void test_png_round_trip_exact(void **state)
{
    static const int sizes[][2] = {{1, 1}, {7, 5}, {33, 17}, {1023, 577}};
    int s, ch, alpha;
    (void)state;
    for (s = 0; s < 4; s++)
        for (ch = 1; ch <= 3; ch += 2)
            for (alpha = 0; alpha <= 1; alpha++) {
                jf_picture pic, back;
                unsigned char *bytes;
                size_t size;
                jf_encode_options eo = t_encode_opts(JF_FORMAT_PNG, 0, 1);
                memset(&pic, 0, sizeof pic);
                pic.color = t_random_image(sizes[s][0], sizes[s][1], ch, 3, (uint64_t)s);
                if (alpha)
                    pic.alpha = t_random_image(sizes[s][0], sizes[s][1], 1, 1, (uint64_t)s + 9);
                assert_int_equal(jf_picture_encode(&pic, &eo, &bytes, &size), JF_OK);
                assert_int_equal(jf_picture_decode(bytes, size, "rt.png", &back), JF_OK);
                assert_int_equal(back.format, JF_FORMAT_PNG);
                assert_true(t_images_equal(&pic.color, &back.color));
                if (alpha)
                    assert_true(t_images_equal(&pic.alpha, &back.alpha));
                else
                    assert_null(back.alpha.data);
                free(bytes);
                jf_picture_free(&pic);
                jf_picture_free(&back);
            }
}

static void test_jpeg_round_trip_photo(void **state)
{
    jf_picture pic, back;
    unsigned char *bytes;
    size_t size;
    jf_encode_options eo = t_encode_opts(JF_FORMAT_JPEG, 95, 0);
    (void)state;
    assert_int_equal(jf_picture_read(t_source_path("samples/images/coffee.png"), &pic), JF_OK);
    assert_int_equal(jf_picture_encode(&pic, &eo, &bytes, &size), JF_OK);
    assert_int_equal(jf_picture_decode(bytes, size, "coffee.jpg", &back), JF_OK);
    /* stated: quality 95 keeps a photo above 38 dB */
    assert_true(psnr_of(&pic.color, &back.color) > 38.0);
    free(bytes);
    jf_picture_free(&back);
    /* grey JPEG */
    {
        jf_image grey = {0};
        int x, y;
        assert_int_equal(jf_image_alloc(&grey, pic.color.width, pic.color.height, 1), JF_OK);
        for (y = 0; y < grey.height; y++)
            for (x = 0; x < grey.width; x++)
                grey.data[y * grey.stride + x] = pic.color.data[y * pic.color.stride + x * 3 + 1];
        jf_image_free(&pic.color);
        pic.color = grey;
    }
    assert_int_equal(jf_picture_encode(&pic, &eo, &bytes, &size), JF_OK);
    assert_int_equal(jf_picture_decode(bytes, size, "grey.jpg", &back), JF_OK);
    assert_int_equal(back.color.channels, 1);
    assert_true(psnr_of(&pic.color, &back.color) > 38.0);
    free(bytes);
    jf_picture_free(&back);
    jf_picture_free(&pic);
}

static void test_jpeg_layouts(void **state)
{
    static const int samp[][2] = {{1, 1}, {2, 1}, {2, 2}, {1, 2}};
    int i, prog;
    (void)state;
    for (prog = 0; prog <= 1; prog++)
        for (i = 0; i < 4; i++) {
            membuf m = jpeg_special(97, 61, 3, prog, samp[i][0], samp[i][1], (uint64_t)i);
            jf_picture pic = decode_ok(&m, prog ? "progressive.jpg" : "baseline.jpg");
            assert_int_equal(pic.color.width, 97);
            assert_int_equal(pic.color.channels, 3);
            assert_int_equal(pic.jpeg_h_samp, samp[i][0]);
            assert_int_equal(pic.jpeg_v_samp, samp[i][1]);
            jf_picture_free(&pic);
            free(m.data);
        }
    {
        membuf m = jpeg_special(33, 17, 1, 1, 1, 1, 5);
        jf_picture pic = decode_ok(&m, "grey-progressive.jpg");
        assert_int_equal(pic.color.channels, 1);
        jf_picture_free(&pic);
        free(m.data);
    }
}

/* A CMYK (or YCCK) JPEG written with libjpeg directly, with or without the
 * Adobe marker; `src` receives the pixels it was made from. */
static membuf jpeg_cmyk(int w, int h, int ycck, int adobe, uint64_t seed, jf_image *src)
{
    struct jpeg_compress_struct c;
    struct jpeg_error_mgr err;
    unsigned char *out = NULL;
    unsigned long out_size = 0;
    membuf m;
    int x, y;
    *src = t_random_image(w, h, 4, 0, seed);
    for (y = 0; y < h; y++) /* gradients with a little noise: JPEG keeps them close */
        for (x = 0; x < w * 4; x++)
            src->data[y * src->stride + x] = (unsigned char)(20 + (x % 4) * 30 + (x / 4) * 2 + y * 3 +
                                                             src->data[y * src->stride + x] % 5);
    c.err = jpeg_std_error(&err);
    jpeg_create_compress(&c);
    jpeg_mem_dest(&c, &out, &out_size);
    c.image_width = (JDIMENSION)w;
    c.image_height = (JDIMENSION)h;
    c.input_components = 4;
    c.in_color_space = JCS_CMYK;
    jpeg_set_defaults(&c);
    jpeg_set_colorspace(&c, ycck ? JCS_YCCK : JCS_CMYK);
    c.write_Adobe_marker = adobe ? TRUE : FALSE;
    jpeg_set_quality(&c, 95, TRUE);
    jpeg_start_compress(&c, TRUE);
    for (y = 0; y < h; y++) {
        JSAMPROW row = src->data + (size_t)y * src->stride;
        jpeg_write_scanlines(&c, &row, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    m.data = out;
    m.size = out_size;
    return m;
}

/* The Adobe APP14 segment's transform byte, or -1 when there is none. */
static int adobe_transform(const unsigned char *b, size_t n)
{
    size_t i;
    for (i = 2; i + 16 < n; i++)
        if (b[i] == 0xFF && b[i + 1] == 0xEE && memcmp(b + i + 4, "Adobe", 5) == 0)
            return b[i + 15];
    return -1;
}

/* CMYK and YCCK JPEGs: four channels as stored, written back as the same
 * kind with the Adobe marker as it came; PNG refused unless converted. */
static void test_jpeg_cmyk(void **state)
{
    static const int kinds[][2] = {{0, 0}, {0, 1}, {1, 1}}; /* ycck, adobe */
    jf_encode_options jpg = jf_encode_defaults(), png = jf_encode_defaults();
    int i;
    (void)state;
    jpg.format = JF_FORMAT_JPEG;
    jpg.quality = 95;
    png.format = JF_FORMAT_PNG;
    for (i = 0; i < 3; i++) {
        const int ycck = kinds[i][0], adobe = kinds[i][1];
        jf_image src;
        membuf m = jpeg_cmyk(37, 23, ycck, adobe, (uint64_t)(i + 3), &src);
        jf_picture pic = decode_ok(&m, "print.jpg"), again;
        unsigned char *bytes = NULL;
        size_t size = 0;
        const unsigned char *p;
        unsigned want;
        assert_int_equal(pic.color.channels, 4);
        assert_int_equal(pic.color_model, JF_COLOR_CMYK);
        assert_int_equal(pic.jpeg_ycck, ycck);
        assert_int_equal(pic.jpeg_adobe, adobe);
        assert_true(psnr_of(&pic.color, &src) > 30.0);
        assert_int_equal(jf_picture_encode(&pic, &jpg, &bytes, &size), JF_OK);
        assert_int_equal(adobe_transform(bytes, size), adobe ? (ycck ? 2 : 0) : -1);
        assert_int_equal(jf_picture_decode(bytes, size, "again.jpg", &again), JF_OK);
        assert_int_equal(again.color_model, JF_COLOR_CMYK);
        assert_int_equal(again.jpeg_ycck, ycck);
        assert_int_equal(again.jpeg_adobe, adobe);
        assert_true(psnr_of(&again.color, &pic.color) > 35.0);
        free(bytes);
        jf_picture_free(&again);
        assert_int_equal(jf_picture_encode(&pic, &png, &bytes, &size), JF_ERR_UNSUPPORTED);
        assert_non_null(strstr(jf_last_error(), "PNG has no CMYK"));
        /* converted on request: (255 - C)(255 - K) / 255 with C, K as ink */
        p = pic.color.data + pic.color.stride * 5 + 4 * 7;
        want = adobe ? (p[1] * p[3] + 127u) / 255u : ((255u - p[1]) * (255u - p[3]) + 127u) / 255u;
        assert_int_equal(jf_picture_cmyk_to_rgb(&pic), JF_OK);
        assert_int_equal(pic.color.channels, 3);
        assert_int_equal(pic.color_model, JF_COLOR_DEFAULT);
        assert_int_equal(pic.color.data[pic.color.stride * 5 + 3 * 7 + 1], want);
        assert_int_equal(jf_picture_encode(&pic, &png, &bytes, &size), JF_OK);
        free(bytes);
        jf_picture_free(&pic);
        jf_image_free(&src);
        free(m.data);
    }
}

static unsigned be16(const unsigned char *p) { return (unsigned)p[0] << 8 | p[1]; }

/* Every 16-bit PNG layout written with libpng directly decodes to its exact
 * values in host order, round-trips bit for bit, and is refused for JPEG. */
/* Deflated bytes of a whole 16-bit image, up-filtered as PNG stores it, at
 * level 1 with zlib's strategy (the sample's answer checked against it). */
static size_t whole_deflated(const jf_image *img, int strategy)
{
    const size_t samples = (size_t)img->width * (size_t)img->channels;
    unsigned char *in = malloc(samples * 2 * (size_t)img->height), *out;
    uLongf n = 0, cap;
    z_stream z;
    size_t x;
    int y;
    assert_non_null(in);
    for (y = 0; y < img->height; y++) {
        const uint16_t *cur = (const uint16_t *)(const void *)(img->data + (size_t)y * img->stride);
        const uint16_t *up = y ? (const uint16_t *)(const void *)(img->data + (size_t)(y - 1) * img->stride) : NULL;
        for (x = 0; x < samples; x++) {
            in[n++] = (unsigned char)((cur[x] >> 8) - (up ? up[x] >> 8 : 0));
            in[n++] = (unsigned char)((cur[x] & 255) - (up ? up[x] & 255 : 0));
        }
    }
    cap = compressBound(n);
    out = malloc(cap);
    assert_non_null(out);
    memset(&z, 0, sizeof z);
    assert_int_equal(deflateInit2(&z, 1, Z_DEFLATED, 15, 8, strategy), Z_OK);
    z.next_in = in;
    z.avail_in = (uInt)n;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
    n = z.total_out;
    deflateEnd(&z);
    free(in);
    free(out);
    return n;
}

/* 16-bit PNGs at the fast levels: the strategy a sample of rows picks
 * (run-length matching unless hash chains are over 5% smaller) makes the
 * whole image at most 10% larger than the other would, for sensor-like noise in the low bytes, a gradient, an
 * 8-bit photo widened by 257, smooth low bits, and a median of the noisy
 * one; both kinds occur; every round trip stays exact. */
static void test_png16_strategy(void **state)
{
    enum { W = 401, H = 303, KINDS = 5 };
    jf_picture pic, back, rocket;
    const jf_image *photo = NULL;
    uint64_t s = 0x9E3779B97F4A7C15ull;
    unsigned char *bytes = NULL;
    size_t size = 0;
    int kind, x, y, chose[2] = {0, 0};
    (void)state;
    assert_int_equal(jf_picture_read(t_source_path("samples/images/rocket.jpg"), &rocket), JF_OK);
    photo = &rocket.color;
    for (kind = 0; kind < KINDS; kind++) {
        int rle;
        memset(&pic, 0, sizeof pic);
        assert_int_equal(jf_image_alloc_as(&pic.color, W, H, 1, JF_SAMPLE_U16), JF_OK);
        for (y = 0; y < H; y++) {
            uint16_t *row = (uint16_t *)(void *)(pic.color.data + (size_t)y * pic.color.stride);
            for (x = 0; x < W; x++) {
                const int v = photo->data[(size_t)(y % photo->height) * photo->stride +
                                          (size_t)(x % photo->width) * 3];
                s ^= s << 13, s ^= s >> 7, s ^= s << 17;
                row[x] = kind == 0 || kind == 4 ? (uint16_t)(v * 256 + (int)(s >> 56)) /* sensor noise */
                       : kind == 1 ? (uint16_t)(x * 200 + y * 37)                     /* a gradient */
                       : kind == 2 ? (uint16_t)(v * 257)                              /* widened 8-bit */
                                   : (uint16_t)(v * 256 + (x * 7 + y * 3) % 256);      /* smooth low bits */
            }
        }
        if (kind == 4) { /* the noisy image through a 3x3 median, as the batch writes it */
            jf_image med;
            jf_median_options mo = jf_median_defaults();
            mo.ksize = 3;
            assert_int_equal(jf_image_alloc_as(&med, W, H, 1, JF_SAMPLE_U16), JF_OK);
            assert_int_equal(jf_median(NULL, &pic.color, &med, &mo), JF_OK);
            jf_image_free(&pic.color);
            pic.color = med;
        }
        rle = jf_png_rle_suits(&pic.color, 1);
        {
            const double by_rle = (double)whole_deflated(&pic.color, Z_RLE);
            const double hashed = (double)whole_deflated(&pic.color, Z_DEFAULT_STRATEGY);
            const double best = by_rle < hashed ? by_rle : hashed;
            if ((rle ? by_rle : hashed) > 1.10 * best)
                fail_msg("kind %d: the sample chose %s: %.0f bytes, the other way %.0f", kind,
                         rle ? "Z_RLE" : "hash chains", rle ? by_rle : hashed, rle ? hashed : by_rle);
        }
        chose[rle]++;
        assert_int_equal(jf_png_encode(&pic, 1, JF_PNG_FILTER_UP, &bytes, &size), JF_OK);
        back = decode_ok(&(membuf){bytes, size}, "deep.png");
        for (y = 0; y < H; y++)
            assert_memory_equal(back.color.data + (size_t)y * back.color.stride,
                                pic.color.data + (size_t)y * pic.color.stride, (size_t)W * 2);
        free(bytes);
        bytes = NULL;
        jf_picture_free(&back);
        jf_picture_free(&pic);
    }
    assert_true(chose[0] > 0 && chose[1] > 0);
    /* stored, or one row with nothing above it: run-length (no choice to make) */
    assert_int_equal(jf_image_alloc_as(&pic.color, 5, 1, 1, JF_SAMPLE_U16), JF_OK);
    assert_int_equal(jf_png_rle_suits(&pic.color, 1), 1);
    jf_image_free(&pic.color);
    jf_picture_free(&rocket);
}

static void test_png_16bit(void **state)
{
    enum { W = 13, H = 9 };
    static const int types[] = {PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA,
                                PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGB_ALPHA};
    unsigned char rows[H * W * 8];
    jf_encode_options png = jf_encode_defaults(), jpg = jf_encode_defaults();
    size_t i;
    int t, x, y, c, interlace;
    (void)state;
    png.format = JF_FORMAT_PNG;
    jpg.format = JF_FORMAT_JPEG;
    for (i = 0; i < sizeof rows; i++)
        rows[i] = (unsigned char)(i * 97 + 13 + (i >> 3));
    for (interlace = 0; interlace <= 1; interlace++)
        for (t = 0; t < 4; t++) {
            const int n = t + 1, cc = n >= 3 ? 3 : 1; /* channels in the file, colour */
            membuf m = png_special(W, H, types[t], 16, interlace ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE,
                                   rows, (size_t)W * n * 2, 0);
            jf_picture pic = decode_ok(&m, "deep.png"), again;
            unsigned char *bytes = NULL;
            size_t size = 0;
            assert_int_equal(pic.color.sample, JF_SAMPLE_U16);
            assert_int_equal(pic.color.channels, cc);
            assert_int_equal(pic.alpha.data != NULL, n == 2 || n == 4);
            for (y = 0; y < H; y++)
                for (x = 0; x < W; x++) {
                    const unsigned char *f = rows + (size_t)y * W * n * 2 + (size_t)x * n * 2;
                    const uint16_t *col = (const uint16_t *)(pic.color.data + y * pic.color.stride);
                    for (c = 0; c < cc; c++)
                        assert_int_equal(col[x * cc + c], be16(f + 2 * c));
                    if (pic.alpha.data)
                        assert_int_equal(((const uint16_t *)(pic.alpha.data + y * pic.alpha.stride))[x],
                                         be16(f + 2 * cc));
                }
            assert_int_equal(jf_picture_encode(&pic, &png, &bytes, &size), JF_OK);
            assert_int_equal(bytes[24], 16); /* IHDR bit depth */
            assert_int_equal(jf_picture_decode(bytes, size, "again.png", &again), JF_OK);
            assert_int_equal(again.color.sample, JF_SAMPLE_U16);
            for (y = 0; y < H; y++) {
                assert_memory_equal(again.color.data + y * again.color.stride,
                                    pic.color.data + y * pic.color.stride, (size_t)W * cc * 2);
                if (pic.alpha.data)
                    assert_memory_equal(again.alpha.data + y * again.alpha.stride,
                                        pic.alpha.data + y * pic.alpha.stride, (size_t)W * 2);
            }
            free(bytes);
            jf_picture_free(&again);
            assert_int_equal(jf_picture_encode(&pic, &jpg, &bytes, &size), JF_ERR_UNSUPPORTED);
            assert_non_null(strstr(jf_last_error(), "16-bit image cannot be written as JPEG"));
            jf_picture_free(&pic);
            free(m.data);
        }
}

static void test_png_layouts(void **state)
{
    enum { W = 13, H = 9 };
    unsigned char rows[H * W * 8];
    size_t i;
    jf_picture pic;
    membuf m;
    (void)state;
    for (i = 0; i < sizeof rows; i++)
        rows[i] = (unsigned char)(i * 37 + 11);

    /* interlaced RGB equals the same pixels non-interlaced */
    m = png_special(W, H, PNG_COLOR_TYPE_RGB, 8, PNG_INTERLACE_ADAM7, rows, W * 3, 0);
    pic = decode_ok(&m, "interlaced.png");
    for (i = 0; i < H; i++)
        assert_memory_equal(pic.color.data + i * pic.color.stride, rows + i * W * 3, W * 3);
    jf_picture_free(&pic);
    free(m.data);

    /* grey + alpha splits into grey and an alpha plane */
    m = png_special(W, H, PNG_COLOR_TYPE_GRAY_ALPHA, 8, PNG_INTERLACE_NONE, rows, W * 2, 0);
    pic = decode_ok(&m, "ga.png");
    assert_int_equal(pic.color.channels, 1);
    assert_non_null(pic.alpha.data);
    assert_int_equal(pic.color.data[pic.color.stride + 2], rows[W * 2 + 4]);
    assert_int_equal(pic.alpha.data[pic.alpha.stride + 2], rows[W * 2 + 5]);
    jf_picture_free(&pic);
    free(m.data);

    /* 4-bit palette without and with transparency */
    for (i = 0; i < sizeof rows; i++)
        rows[i] = (unsigned char)((i * 7) & 0xFF);
    m = png_special(W, H, PNG_COLOR_TYPE_PALETTE, 4, PNG_INTERLACE_NONE, rows, (W + 1) / 2, 0);
    pic = decode_ok(&m, "palette.png");
    assert_int_equal(pic.color.channels, 3);
    assert_null(pic.alpha.data);
    /* first pixel: high nibble of rows[0] = 0 -> palette entry 0 = (0, 255, 0) */
    assert_int_equal(pic.color.data[0], 0);
    assert_int_equal(pic.color.data[1], 255);
    jf_picture_free(&pic);
    free(m.data);
    m = png_special(W, H, PNG_COLOR_TYPE_PALETTE, 4, PNG_INTERLACE_NONE, rows, (W + 1) / 2, 1);
    pic = decode_ok(&m, "palette-trns.png");
    assert_int_equal(pic.color.channels, 3);
    assert_non_null(pic.alpha.data);
    jf_picture_free(&pic);
    free(m.data);

    /* 1-bit grey expands to 0/255 */
    m = png_special(W, H, PNG_COLOR_TYPE_GRAY, 1, PNG_INTERLACE_NONE, rows, (W + 7) / 8, 0);
    pic = decode_ok(&m, "bilevel.png");
    assert_int_equal(pic.color.channels, 1);
    for (i = 0; i < W; i++)
        assert_true(pic.color.data[i] == 0 || pic.color.data[i] == 255);
    jf_picture_free(&pic);
    free(m.data);

}

/* A PNG as another writer makes it: `filters` as libpng's mask, IDAT
 * chunks of `chunk` bytes, and a tEXt chunk after the image data when
 * `text_after` (libpng keeps such files to itself). */
static membuf png_written(int w, int h, int color_type, int depth, const unsigned char *rows,
                          size_t row_bytes, int filters, size_t chunk, int text_after)
{
    membuf m = {NULL, 0};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    png_text text;
    int y;
    assert_int_equal(setjmp(png_jmpbuf(png)), 0);
    png_set_write_fn(png, &m, png_write_cb, png_flush_cb);
    png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, depth, color_type, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, filters);
    png_set_compression_buffer_size(png, chunk);
    png_write_info(png, info);
    for (y = 0; y < h; y++)
        png_write_row(png, rows + (size_t)y * row_bytes);
    memset(&text, 0, sizeof text);
    text.compression = PNG_TEXT_COMPRESSION_NONE;
    text.key = (png_charp) "Comment";
    text.text = (png_charp) "after the image";
    if (text_after)
        png_set_text(png, info, &text, 1);
    png_write_end(png, text_after ? info : NULL);
    png_destroy_write_struct(&png, &info);
    return m;
}

/* Sample c of pixel (x, y) as PNG stores it in `rows` (16 bits big-endian). */
static unsigned stored_sample(const unsigned char *rows, size_t row_bytes, int x, int y, int c,
                              int channels, int depth)
{
    const unsigned char *p = rows + (size_t)y * row_bytes + ((size_t)x * channels + c) * (depth / 8);
    return depth == 16 ? (unsigned)(p[0] << 8 | p[1]) : p[0];
}

static void assert_picture_is_rows(const jf_picture *pic, const unsigned char *rows, size_t row_bytes,
                                   int channels, int depth)
{
    const int colour = channels >= 3 ? 3 : 1;
    int x, y, c;
    assert_int_equal(pic->color.channels, colour);
    assert_int_equal(pic->color.sample, depth == 16 ? JF_SAMPLE_U16 : JF_SAMPLE_U8);
    assert_int_equal(pic->alpha.data != NULL, channels == 2 || channels == 4);
    for (y = 0; y < pic->color.height; y++)
        for (x = 0; x < pic->color.width; x++) {
            for (c = 0; c < colour; c++)
                if (t_px(&pic->color, x, y, c) != stored_sample(rows, row_bytes, x, y, c, channels, depth))
                    fail_msg("pixel (%d, %d) channel %d: %u, stored %u", x, y, c,
                             t_px(&pic->color, x, y, c),
                             stored_sample(rows, row_bytes, x, y, c, channels, depth));
            if (pic->alpha.data)
                assert_int_equal(t_px(&pic->alpha, x, y, 0),
                                 stored_sample(rows, row_bytes, x, y, colour, channels, depth));
        }
}

/* The image data inflated in one piece (libdeflate, where the build has
 * it) reads every filter, layout and depth as libpng does, from files of
 * many small IDAT chunks; what it leaves to libpng (text after the image,
 * a damaged CRC, a bad filter byte, a stream that ends early) is read or
 * refused by libpng as before. */
static void test_png_image_data_in_one_piece(void **state)
{
    static const int types[4] = {PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB,
                                 PNG_COLOR_TYPE_RGB_ALPHA};
    static const int masks[6] = {PNG_FILTER_NONE, PNG_FILTER_SUB, PNG_FILTER_UP, PNG_FILTER_AVG,
                                 PNG_FILTER_PAETH, PNG_ALL_FILTERS};
    static const int sizes[3][2] = {{1, 1}, {7, 5}, {37, 23}};
    uint64_t seed = 99;
    int t, d, f, z;
    (void)state;
    for (t = 0; t < 4; t++)
        for (d = 8; d <= 16; d += 8)
            for (f = 0; f < 6; f++)
                for (z = 0; z < 3; z++) {
                    const int channels = t + 1;
                    const int w = sizes[z][0], h = sizes[z][1];
                    const size_t row_bytes = (size_t)w * (size_t)channels * (size_t)(d / 8);
                    unsigned char *rows = malloc(row_bytes * (size_t)h), **direct;
                    jf_png_scan scan;
                    jf_picture pic;
                    membuf m;
                    size_t i;
                    int y, smooth = f % 2; /* smooth rows make the filters differ */
                    for (i = 0; i < row_bytes * (size_t)h; i++)
                        rows[i] = smooth ? (unsigned char)(i / 3 + (t_rand(&seed) >> 62))
                                         : (unsigned char)(t_rand(&seed) >> 56);
                    m = png_written(w, h, types[t], d, rows, row_bytes, masks[f], 64, 0);
                    pic = decode_ok(&m, "written.png");
                    assert_picture_is_rows(&pic, rows, row_bytes, channels, d);
                    jf_picture_free(&pic);
                    /* the rows as jf_png_inflate_rows gives them: host order */
                    assert_int_equal(jf_png_prescan(m.data, m.size, &scan), JF_OK);
                    direct = malloc(sizeof *direct * (size_t)h);
                    for (y = 0; y < h; y++)
                        direct[y] = malloc(row_bytes);
                    assert_int_equal(jf_png_inflate_rows(m.data, m.size, &scan, direct),
                                     jf_png_has_libdeflate());
                    for (y = 0; jf_png_has_libdeflate() && y < h; y++)
                        for (i = 0; i < row_bytes / (size_t)(d / 8); i++) {
                            const unsigned char *s = rows + (size_t)y * row_bytes + i * (size_t)(d / 8);
                            const unsigned v = d == 16 ? (unsigned)(s[0] << 8 | s[1]) : s[0];
                            uint16_t got16;
                            memcpy(&got16, direct[y] + 2 * i, 2);
                            assert_int_equal(d == 16 ? got16 : direct[y][i], v);
                        }
                    for (y = 0; y < h; y++)
                        free(direct[y]);
                    free(direct);
                    free(m.data);
                    free(rows);
                }
    {
        enum { W = 33, H = 17 };
        unsigned char rows[W * H * 3], *row_ptrs[H], out[W * H * 3];
        jf_png_scan scan;
        jf_picture pic;
        membuf m;
        size_t i, at;
        int y, found = 0;
        for (i = 0; i < sizeof rows; i++)
            rows[i] = (unsigned char)(t_rand(&seed) >> 56);
        for (y = 0; y < H; y++)
            row_ptrs[y] = out + (size_t)y * W * 3;
        /* text after the image: left to libpng, which keeps the text */
        m = png_written(W, H, PNG_COLOR_TYPE_RGB, 8, rows, W * 3, PNG_ALL_FILTERS, 256, 1);
        assert_int_equal(jf_png_prescan(m.data, m.size, &scan), JF_OK);
        assert_int_equal(jf_png_inflate_rows(m.data, m.size, &scan, row_ptrs), 0);
        pic = decode_ok(&m, "text-after.png");
        assert_picture_is_rows(&pic, rows, W * 3, 3, 8);
        assert_int_equal(pic.extra_count, 1);
        assert_string_equal(pic.extra[0].key, "Comment");
        jf_picture_free(&pic);
        free(m.data);
        /* grey with a transparent level (tRNS): libpng's, which adds alpha */
        {
            png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
            png_infop info = png_create_info_struct(png);
            png_color_16 clear;
            memset(&clear, 0, sizeof clear);
            clear.gray = rows[0];
            memset(&m, 0, sizeof m);
            assert_int_equal(setjmp(png_jmpbuf(png)), 0);
            png_set_write_fn(png, &m, png_write_cb, png_flush_cb);
            png_set_IHDR(png, info, W, H, 8, PNG_COLOR_TYPE_GRAY, PNG_INTERLACE_NONE,
                         PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
            png_set_tRNS(png, info, NULL, 0, &clear);
            png_write_info(png, info);
            for (y = 0; y < H; y++)
                png_write_row(png, rows + (size_t)y * W);
            png_write_end(png, NULL);
            png_destroy_write_struct(&png, &info);
            assert_int_equal(jf_png_prescan(m.data, m.size, &scan), JF_OK);
            assert_int_equal(jf_png_inflate_rows(m.data, m.size, &scan, row_ptrs), 0);
            pic = decode_ok(&m, "trns.png");
            assert_non_null(pic.alpha.data);
            for (i = 0; i < (size_t)W * H; i++)
                assert_int_equal(pic.alpha.data[(i / W) * pic.alpha.stride + i % W],
                                 rows[i] == rows[0] ? 0 : 255);
            jf_picture_free(&pic);
            free(m.data);
        }
        /* a damaged IDAT CRC, a filter byte of 5, a stream cut short (CRC
         * made right), a damaged IEND CRC: each left to libpng, which
         * refuses the file */
        for (found = 0; found < 4; found++) {
            m = png_written(W, H, PNG_COLOR_TYPE_RGB, 8, rows, W * 3, PNG_FILTER_NONE, 1 << 16, 0);
            for (at = 8; memcmp(m.data + at + 4, "IDAT", 4); at += 12 + (size_t)(m.data[at] << 24 |
                     m.data[at + 1] << 16 | m.data[at + 2] << 8 | m.data[at + 3]))
                ;
            if (found == 3) {
                m.data[m.size - 1] ^= 1; /* IEND's CRC: the file's last byte */
            } else if (found == 0) { /* the CRC itself damaged: the data would inflate */
                m.data[at + 8 + (size_t)(m.data[at] << 24 | m.data[at + 1] << 16 |
                                         m.data[at + 2] << 8 | m.data[at + 3])] ^= 1;
            } else {
                const size_t len = (size_t)(m.data[at] << 24 | m.data[at + 1] << 16 |
                                            m.data[at + 2] << 8 | m.data[at + 3]);
                unsigned char raw[H * (1 + W * 3)];
                uLongf raw_size = sizeof raw, packed_size = compressBound(sizeof raw);
                unsigned char *packed = malloc(packed_size);
                uint32_t crc;
                assert_int_equal(uncompress(raw, &raw_size, m.data + at + 8, len), Z_OK);
                if (found == 1)
                    raw[(1 + W * 3) * 3] = 5; /* row 3's filter */
                assert_int_equal(compress(packed, &packed_size, raw,
                                          found == 1 ? sizeof raw : sizeof raw - W * 3), Z_OK);
                assert_true(packed_size <= len);
                /* the new stream in place of the old, the rest of the chunk zeros */
                memset(m.data + at + 8, 0, len);
                memcpy(m.data + at + 8, packed, packed_size);
                free(packed);
                m.data[at] = (unsigned char)(packed_size >> 24);
                m.data[at + 1] = (unsigned char)(packed_size >> 16);
                m.data[at + 2] = (unsigned char)(packed_size >> 8);
                m.data[at + 3] = (unsigned char)packed_size;
                crc = (uint32_t)crc32(0, m.data + at + 4, (uInt)(4 + packed_size));
                memmove(m.data + at + 8 + packed_size, m.data + at + 8 + len, m.size - (at + 8 + len));
                m.size -= len - packed_size;
                m.data[at + 8 + packed_size] = (unsigned char)(crc >> 24);
                m.data[at + 9 + packed_size] = (unsigned char)(crc >> 16);
                m.data[at + 10 + packed_size] = (unsigned char)(crc >> 8);
                m.data[at + 11 + packed_size] = (unsigned char)crc;
            }
            assert_int_equal(jf_png_prescan(m.data, m.size, &scan), JF_OK);
            assert_int_equal(jf_png_inflate_rows(m.data, m.size, &scan, row_ptrs), 0);
            assert_int_equal(jf_picture_decode(m.data, m.size, "damaged.png", &pic), JF_ERR_DECODE);
            if (!strstr(jf_last_error(), found == 0 || found == 3 ? "CRC" : found == 1 ? "filter"
                                                                         : "Not enough"))
                fail_msg("damage %d: %s", found, jf_last_error());
            free(m.data);
        }
    }
}

typedef struct membuf_reader {
    const unsigned char *data;
    size_t size, at;
} membuf_reader;

static void png_read_cb(png_structp png, png_bytep d, png_size_t n)
{
    membuf_reader *r = png_get_io_ptr(png);
    if (n > r->size - r->at)
        png_error(png, "read past the end");
    memcpy(d, r->data + r->at, n);
    r->at += n;
}

/* The rows of a PNG as stored (16-bit big-endian, alpha interleaved),
 * read by libpng with no transformation. */
static unsigned char *png_read_stored(const unsigned char *bytes, size_t size, size_t row_bytes, int h)
{
    membuf_reader in = {bytes, size, 0};
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    unsigned char *rows = malloc(row_bytes * (size_t)h);
    int y;
    assert_int_equal(setjmp(png_jmpbuf(png)), 0);
    png_set_read_fn(png, &in, png_read_cb);
    png_read_info(png, info);
    assert_int_equal(png_get_rowbytes(png, info), row_bytes);
    for (y = 0; y < h; y++)
        png_read_row(png, rows + (size_t)y * row_bytes, NULL);
    png_read_end(png, NULL);
    png_destroy_read_struct(&png, &info, NULL);
    return rows;
}

/* PNGs written at level 1 (zlib's run-length matching) and 6: every row
 * filter as asked (each row's filter byte, with libpng's rule for one
 * column or one row), the adaptive choice as libpng makes it, every layout,
 * depth and awkward size, read back exactly by libpng with no
 * transformation (not through jetfilter's reader). */
static void test_png_filters_written(void **state)
{
    static const int sizes[6][2] = {{1, 1}, {1, 6}, {9, 1}, {7, 5}, {33, 17}, {64, 3}};
    uint64_t seed = 5;
    int ch, d, f, z, level;
    (void)state;
    for (ch = 1; ch <= 4; ch++)
        for (d = 8; d <= 16; d += 8)
            for (f = JF_PNG_FILTER_NONE; f < JF_PNG_FILTER_COUNT; f++)
                for (z = 0; z < 12; z++) {
                    const int w = sizes[z / 2][0], h = sizes[z / 2][1], colour = ch >= 3 ? 3 : 1;
                    const jf_sample sample = d == 16 ? JF_SAMPLE_U16 : JF_SAMPLE_U8;
                    const size_t row_bytes = (size_t)w * (size_t)ch * (size_t)(d / 8);
                    jf_encode_options e = t_encode_opts(JF_FORMAT_PNG, 0, z % 2 ? 1 : 6);
                    jf_picture pic;
                    unsigned char *bytes, *back, *raw, *twin_rows;
                    size_t size, i;
                    uLongf raw_size;
                    int x, y;
                    memset(&pic, 0, sizeof pic);
                    assert_int_equal(jf_image_alloc_as(&pic.color, w, h, colour, sample), JF_OK);
                    if (ch == 2 || ch == 4)
                        assert_int_equal(jf_image_alloc_as(&pic.alpha, w, h, 1, sample), JF_OK);
                    for (y = 0; y < h; y++)
                        for (x = 0; x < w; x++) {
                            int c;
                            for (c = 0; c < colour; c++) /* smooth with noise: filters differ */
                                t_set_px(&pic.color, x, y, c, (unsigned)((x * 3 + y * 5 + c * 40 +
                                         (int)(t_rand(&seed) >> 61)) * (d == 16 ? 257 : 1)) &
                                         (d == 16 ? 0xFFFFu : 0xFFu));
                            if (pic.alpha.data)
                                t_set_px(&pic.alpha, x, y, 0, (unsigned)(t_rand(&seed) >> (d == 16 ? 48 : 56)));
                        }
                    e.png_filter = f;
                    level = e.png_level;
                    assert_int_equal(jf_picture_encode(&pic, &e, &bytes, &size), JF_OK);
                    /* libpng's own reader, no transformation: the rows as stored */
                    back = png_read_stored(bytes, size, row_bytes, h);
                    /* each row's filter byte: the one asked for, or libpng's adaptive choice */
                    raw_size = (uLongf)(h * (1 + row_bytes));
                    raw = malloc(raw_size);
                    {
                        size_t at = 8, idat = 0;
                        unsigned char *joined = malloc(size);
                        while (at + 12 <= size) {
                            const size_t len = (size_t)bytes[at] << 24 | (size_t)bytes[at + 1] << 16 |
                                               (size_t)bytes[at + 2] << 8 | bytes[at + 3];
                            if (!memcmp(bytes + at + 4, "IDAT", 4)) {
                                memcpy(joined + idat, bytes + at + 8, len);
                                idat += len;
                            }
                            at += 12 + len;
                        }
                        assert_int_equal(at, size);
                        assert_int_equal(uncompress(raw, &raw_size, joined, idat), Z_OK);
                        free(joined);
                    }
                    assert_int_equal(raw_size, h * (1 + row_bytes));
                    twin_rows = malloc(row_bytes * (size_t)h);
                    for (y = 0; y < h; y++) /* the rows as stored, for libpng to filter */
                        for (i = 0; i < row_bytes / (size_t)(d / 8); i++) {
                            const int x2 = (int)(i / (size_t)ch), c2 = (int)(i % (size_t)ch);
                            const unsigned v = c2 < colour ? t_px(&pic.color, x2, y, c2)
                                                           : t_px(&pic.alpha, x2, y, 0);
                            if (d == 16) {
                                twin_rows[(size_t)y * row_bytes + 2 * i] = (unsigned char)(v >> 8);
                                twin_rows[(size_t)y * row_bytes + 2 * i + 1] = (unsigned char)v;
                            } else {
                                twin_rows[(size_t)y * row_bytes + i] = (unsigned char)v;
                            }
                        }
                    if (memcmp(back, twin_rows, row_bytes * (size_t)h))
                        fail_msg("%d ch, %d bits, filter %d, level %d, %dx%d: read back differently",
                                 ch, d, f, level, w, h);
                    if (f == JF_PNG_FILTER_ADAPTIVE) {
                        static const int types[5] = {0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA,
                                                     PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGB_ALPHA};
                        membuf twin = png_written(w, h, types[ch], d, twin_rows, row_bytes,
                                                  PNG_ALL_FILTERS, 1 << 20, 0);
                        size_t at = 8;
                        unsigned char *twin_raw = malloc(raw_size);
                        uLongf twin_size = raw_size;
                        while (memcmp(twin.data + at + 4, "IDAT", 4))
                            at += 12 + ((size_t)twin.data[at] << 24 | (size_t)twin.data[at + 1] << 16 |
                                        (size_t)twin.data[at + 2] << 8 | twin.data[at + 3]);
                        assert_int_equal(uncompress(twin_raw, &twin_size, twin.data + at + 8,
                                                    (uLong)((size_t)twin.data[at] << 24 | (size_t)twin.data[at + 1] << 16 |
                                                    (size_t)twin.data[at + 2] << 8 | twin.data[at + 3])), Z_OK);
                        for (y = 0; y < h; y++)
                            assert_int_equal(raw[(size_t)y * (1 + row_bytes)],
                                             twin_raw[(size_t)y * (1 + row_bytes)]);
                        free(twin_raw);
                        free(twin.data);
                    } else {
                        /* libpng's rule: nothing looks left in one column or up in one row */
                        const int type = f - JF_PNG_FILTER_NONE;
                        const int kept = (w == 1 && (type == 1 || type == 3 || type == 4)) ||
                                                 (h == 1 && type >= 2) ? 0 : type;
                        for (y = 0; y < h; y++)
                            assert_int_equal(raw[(size_t)y * (1 + row_bytes)], kept);
                    }
                    free(twin_rows);
                    free(raw);
                    free(back);
                    free(bytes);
                    jf_picture_free(&pic);
                }
}

/* A profile libpng accepts: a valid header (length, 'acsp', monitor class,
 * RGB data, XYZ connection space, D50) and no tags, padded with noise. */
static unsigned char *make_icc(size_t size, uint64_t seed)
{
    unsigned char *p = malloc(size);
    size_t k;
    for (k = 0; k < size; k++)
        p[k] = (unsigned char)(t_rand(&seed) >> 56);
    memset(p, 0, 132);
    p[0] = (unsigned char)(size >> 24); p[1] = (unsigned char)(size >> 16);
    p[2] = (unsigned char)(size >> 8);  p[3] = (unsigned char)size;
    p[8] = 2; p[9] = 0x10;                 /* version 2.1 */
    memcpy(p + 12, "mntrRGB XYZ ", 12);
    memcpy(p + 36, "acsp", 4);
    p[70] = 0xF6; p[71] = 0xD6;            /* D50 X 0.9642 */
    p[73] = 0x01;                          /* Y 1.0 */
    p[78] = 0xD3; p[79] = 0x2D;            /* Z 0.8249 */
    return p;                              /* tag count at 128 stays 0 */
}

static void test_metadata_survives(void **state)
{
    static const jf_format chain[][2] = {{JF_FORMAT_JPEG, JF_FORMAT_JPEG},
                                         {JF_FORMAT_JPEG, JF_FORMAT_PNG},
                                         {JF_FORMAT_PNG, JF_FORMAT_JPEG},
                                         {JF_FORMAT_PNG, JF_FORMAT_PNG}};
    unsigned char exif[200];
    unsigned char *icc = make_icc(150000, 3); /* larger than one JPEG marker */
    int i;
    size_t k;
    (void)state;
    memcpy(exif, "MM\0*\0\0\0\x08", 8); /* a TIFF header, as EXIF holds */
    for (k = 8; k < sizeof exif; k++)
        exif[k] = (unsigned char)k;
    for (i = 0; i < 4; i++) {
        jf_picture pic, mid, back;
        jf_encode_options e1 = t_encode_opts(chain[i][0], 90, 6), e2 = t_encode_opts(chain[i][1], 90, 6);
        unsigned char *b1, *b2;
        size_t s1, s2;
        memset(&pic, 0, sizeof pic);
        pic.color = t_random_image(40, 30, 3, 0, 4);
        pic.icc = malloc(150000);
        memcpy(pic.icc, icc, 150000);
        pic.icc_size = 150000;
        pic.exif = malloc(sizeof exif);
        memcpy(pic.exif, exif, sizeof exif);
        pic.exif_size = sizeof exif;
        assert_int_equal(jf_picture_encode(&pic, &e1, &b1, &s1), JF_OK);
        assert_int_equal(jf_picture_decode(b1, s1, "first", &mid), JF_OK);
        assert_int_equal(jf_picture_encode(&mid, &e2, &b2, &s2), JF_OK);
        assert_int_equal(jf_picture_decode(b2, s2, "second", &back), JF_OK);
        assert_int_equal(back.icc_size, 150000);
        assert_memory_equal(back.icc, icc, 150000);
        assert_int_equal(back.exif_size, sizeof exif);
        assert_memory_equal(back.exif, exif, sizeof exif);
        free(b1);
        free(b2);
        jf_picture_free(&pic);
        jf_picture_free(&mid);
        jf_picture_free(&back);
    }
    free(icc);
}

static void test_jpeg_markers_kept(void **state)
{
    /* an XMP packet (APP1, not EXIF) and a comment travel JPEG to JPEG */
    static const char xmp[] = "http://ns.adobe.com/xap/1.0/\0<x:xmpmeta/>";
    jf_picture pic, back;
    unsigned char *bytes;
    size_t size;
    jf_encode_options eo = t_encode_opts(JF_FORMAT_JPEG, 90, 0);
    int i, found = 0;
    (void)state;
    memset(&pic, 0, sizeof pic);
    pic.color = t_random_image(16, 16, 3, 0, 1);
    pic.extra = calloc(2, sizeof *pic.extra);
    pic.extra[0].tag = 0xE1;
    pic.extra[0].size = sizeof xmp;
    pic.extra[0].data = malloc(sizeof xmp);
    memcpy(pic.extra[0].data, xmp, sizeof xmp);
    pic.extra[1].tag = 0xFE;
    pic.extra[1].size = 5;
    pic.extra[1].data = malloc(5);
    memcpy(pic.extra[1].data, "hello", 5);
    pic.extra_count = 2;
    assert_int_equal(jf_picture_encode(&pic, &eo, &bytes, &size), JF_OK);
    assert_int_equal(jf_picture_decode(bytes, size, "xmp.jpg", &back), JF_OK);
    for (i = 0; i < back.extra_count; i++)
        if ((back.extra[i].tag == 0xE1 && back.extra[i].size == sizeof xmp &&
             memcmp(back.extra[i].data, xmp, sizeof xmp) == 0) ||
            (back.extra[i].tag == 0xFE && back.extra[i].size == 5))
            found++;
    assert_int_equal(found, 2);
    free(bytes);
    jf_picture_free(&pic);
    jf_picture_free(&back);
}

/* SOS markers in a JPEG: entropy-coded data stuffs every 0xFF with 0x00, so
 * 0xFF 0xDA only occurs as the marker. */
static int count_sos(const membuf *m)
{
    size_t i;
    int n = 0;
    for (i = 0; i + 1 < m->size; i++)
        n += m->data[i] == 0xFF && m->data[i + 1] == 0xDA;
    return n;
}

/* Entropy-coded data ends at the first marker that is not a stuffed 0xFF00,
 * a restart marker or a fill byte; the pre-scan counts the scans and finds
 * the end past such bytes wherever they fall, also in the last bytes. */
static void test_prescan_skips_entropy_data(void **state)
{
    static const unsigned char sos[] = {0xFF, 0xDA, 0x00, 0x08, 1, 1, 0, 0, 63, 0};
    static const unsigned char data[] = {0x12, 0xFF, 0x00, 0x34, 0xFF, 0xD3, 0x56, 0xFF,
                                         0xD7, 0xFF, 0x00, 0xFF, 0x00, 0x9A};
    unsigned char b[256];
    jf_jpeg_scan js;
    size_t n, cut;
    int scans, fill;
    (void)state;
    for (scans = 1; scans <= 3; scans++)
        for (fill = 0; fill <= 2; fill++) {
            n = 0;
            b[n++] = 0xFF, b[n++] = 0xD8;
            for (int i = 0; i < scans; i++) {
                memcpy(b + n, sos, sizeof sos), n += sizeof sos;
                memcpy(b + n, data, sizeof data), n += sizeof data;
                for (int f = 0; f < fill; f++) /* fill bytes before the next marker */
                    b[n++] = 0xFF;
            }
            b[n++] = 0xFF, b[n++] = 0xD9;
            assert_int_equal(jf_jpeg_prescan(b, n, &js), JF_OK);
            assert_int_equal(js.scans, scans);
            assert_int_equal(js.complete, 1);
            /* cut anywhere in the last scan's data: no end, the same scans */
            for (cut = n - 2 - fill - sizeof data; cut < n; cut++) {
                assert_int_equal(jf_jpeg_prescan(b, cut, &js), JF_OK);
                assert_int_equal(js.scans, scans);
                assert_int_equal(js.complete, cut == n);
            }
        }
}

/* What the pre-scan reads from a file's structure is what the encoder put
 * there: a JPEG's size (both bytes of each), components, progression, scans,
 * APPn/COM markers and their bytes, its end; a PNG's header and tRNS.  Each
 * limit holds at its value and refuses one less. */
static void test_prescan_reads_the_structure(void **state)
{
    static const int sizes[][2] = {{300, 257}, {1, 1}, {513, 7}};
    static const char xmp[] = "http://ns.adobe.com/xap/1.0/\0<x:xmpmeta/>";
    const jf_limits defaults = jf_get_limits();
    jf_limits lim;
    jf_jpeg_scan js;
    jf_png_scan ps;
    int z, comps, prog;
    (void)state;
    for (z = 0; z < 3; z++)
        for (comps = 1; comps <= 3; comps += 2)
            for (prog = 0; prog <= 1; prog++) {
                membuf m = jpeg_special(sizes[z][0], sizes[z][1], comps, prog, 2, 2, (uint64_t)z + 1);
                assert_int_equal(jf_jpeg_prescan(m.data, m.size, &js), JF_OK);
                assert_int_equal(js.width, sizes[z][0]);
                assert_int_equal(js.height, sizes[z][1]);
                assert_int_equal(js.components, comps);
                assert_int_equal(js.progressive, prog);
                assert_int_equal(js.scans, count_sos(&m));
                assert_true(prog ? js.scans > 1 : js.scans == 1);
                assert_int_equal(js.markers, 1);         /* libjpeg's JFIF APP0 */
                assert_int_equal(js.metadata_bytes, 14); /* its payload */
                assert_int_equal(js.complete, 1);
                /* the limit on scans holds at the count and refuses one less */
                lim = defaults;
                lim.max_scans = js.scans;
                assert_int_equal(jf_set_limits(&lim), JF_OK);
                assert_int_equal(jf_jpeg_prescan(m.data, m.size, &js), JF_OK);
                if (js.scans > 1) { /* a limit of 0 is not a limit one can set */
                    lim.max_scans = js.scans - 1;
                    assert_int_equal(jf_set_limits(&lim), JF_OK);
                    assert_int_equal(jf_jpeg_prescan(m.data, m.size, &js), JF_ERR_LIMIT);
                }
                assert_int_equal(jf_set_limits(&defaults), JF_OK);
                /* without its end-of-image marker */
                assert_int_equal(jf_jpeg_prescan(m.data, m.size - 2, &js), JF_OK);
                assert_int_equal(js.complete, 0);
                free(m.data);
            }
    {
        /* markers written by jetfilter: the JFIF APP0, an XMP APP1 and a comment */
        jf_picture pic;
        unsigned char *bytes;
        size_t size;
        const uint64_t want = 14 + sizeof xmp + 5;
        jf_encode_options eo = t_encode_opts(JF_FORMAT_JPEG, 90, 0);
        memset(&pic, 0, sizeof pic);
        pic.color = t_random_image(16, 16, 3, 0, 1);
        assert_int_equal(jf_picture_add_blob(&pic, 0xE1, NULL, (const unsigned char *)xmp, sizeof xmp), JF_OK);
        assert_int_equal(jf_picture_add_blob(&pic, 0xFE, NULL, (const unsigned char *)"hello", 5), JF_OK);
        assert_int_equal(jf_picture_encode(&pic, &eo, &bytes, &size), JF_OK);
        assert_int_equal(jf_jpeg_prescan(bytes, size, &js), JF_OK);
        assert_int_equal(js.markers, 3);
        assert_int_equal(js.metadata_bytes, want);
        lim = defaults;
        lim.max_markers = 3;
        lim.max_metadata_bytes = want;
        assert_int_equal(jf_set_limits(&lim), JF_OK);
        assert_int_equal(jf_jpeg_prescan(bytes, size, &js), JF_OK);
        lim.max_markers = 2;
        assert_int_equal(jf_set_limits(&lim), JF_OK);
        assert_int_equal(jf_jpeg_prescan(bytes, size, &js), JF_ERR_LIMIT);
        lim.max_markers = 3;
        lim.max_metadata_bytes = want - 1;
        assert_int_equal(jf_set_limits(&lim), JF_OK);
        assert_int_equal(jf_jpeg_prescan(bytes, size, &js), JF_ERR_LIMIT);
        assert_int_equal(jf_set_limits(&defaults), JF_OK);
        free(bytes);
        jf_picture_free(&pic);
    }
    {
        /* a PNG's header, every colour type, with and without tRNS */
        static const int types[] = {PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_PALETTE,
                                    PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB_ALPHA};
        static const int channels[] = {1, 3, 1, 2, 4};
        unsigned char rows[300 * 4 * 9];
        int t, trns;
        size_t i;
        for (i = 0; i < sizeof rows; i++)
            rows[i] = (unsigned char)(i * 31 % 16);
        for (t = 0; t < 5; t++)
            for (trns = 0; trns <= (types[t] == PNG_COLOR_TYPE_PALETTE); trns++) {
                membuf m = png_special(300, 9, types[t], 8, t % 2 ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE,
                                       rows, (size_t)300 * channels[t], trns);
                assert_int_equal(jf_png_prescan(m.data, m.size, &ps), JF_OK);
                assert_int_equal(ps.width, 300);
                assert_int_equal(ps.height, 9);
                assert_int_equal(ps.depth, 8);
                assert_int_equal(ps.color_type, types[t]);
                assert_int_equal(ps.interlace, t % 2);
                assert_int_equal(ps.transparency, trns);
                assert_true(ps.idat_bytes > 0 && ps.idat_bytes < m.size);
                free(m.data);
            }
    }
}

/* A PNG claiming an absurd size, with a valid CRC. */
static membuf png_huge_header(unsigned w, unsigned h)
{
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    unsigned char *d = malloc(33);
    unsigned char ihdr[17] = {'I', 'H', 'D', 'R'};
    uLong crc;
    membuf m;
    ihdr[4] = (unsigned char)(w >> 24); ihdr[5] = (unsigned char)(w >> 16);
    ihdr[6] = (unsigned char)(w >> 8);  ihdr[7] = (unsigned char)w;
    ihdr[8] = (unsigned char)(h >> 24); ihdr[9] = (unsigned char)(h >> 16);
    ihdr[10] = (unsigned char)(h >> 8); ihdr[11] = (unsigned char)h;
    ihdr[12] = 8; ihdr[13] = 2; ihdr[14] = ihdr[15] = ihdr[16] = 0;
    crc = crc32(0, ihdr, 17);
    memcpy(d, sig, 8);
    d[8] = 0; d[9] = 0; d[10] = 0; d[11] = 13;
    memcpy(d + 12, ihdr, 17);
    d[29] = (unsigned char)(crc >> 24); d[30] = (unsigned char)(crc >> 16);
    d[31] = (unsigned char)(crc >> 8);  d[32] = (unsigned char)crc;
    m.data = d;
    m.size = 33;
    return m;
}

static void expect_refused(const unsigned char *d, size_t n, const char *name, jf_status want,
                           const char *reason)
{
    jf_picture pic;
    jf_status st = jf_picture_decode(d, n, name, &pic);
    if (st != want || !strstr(jf_last_error(), reason) || strncmp(jf_last_error(), name, strlen(name)))
        fail_msg("%s: status %d, message '%s' (wanted %d, '%s')", name, st, jf_last_error(), want,
                 reason);
    assert_null(pic.color.data);
    assert_null(pic.alpha.data);
}

static void test_damaged_files_refused(void **state)
{
    jf_picture ok;
    unsigned char *jpg, *png;
    size_t jpg_n, png_n, i, k;
    jf_encode_options ej = t_encode_opts(JF_FORMAT_JPEG, 90, 0), ep = t_encode_opts(JF_FORMAT_PNG, 0, 6);
    membuf huge;
    (void)state;
    assert_int_equal(jf_picture_read(t_source_path("samples/images/chelsea.png"), &ok), JF_OK);
    assert_int_equal(jf_picture_encode(&ok, &ej, &jpg, &jpg_n), JF_OK);
    assert_int_equal(jf_picture_encode(&ok, &ep, &png, &png_n), JF_OK);

    expect_refused(NULL, 0, "empty.jpg", JF_ERR_DECODE, "empty file");
    expect_refused((const unsigned char *)"just some text\n", 15, "notes.jpg", JF_ERR_DECODE,
                   "not a JPEG, PNG, TIFF, WebP or PFM");
    expect_refused(jpg, jpg_n * 6 / 10, "cut.jpg", JF_ERR_DECODE, "premature end");
    expect_refused(jpg, 300, "header-only.jpg", JF_ERR_DECODE, "");
    expect_refused(png, png_n * 6 / 10, "cut.png", JF_ERR_DECODE, "truncated or damaged");
    /* every chunk whole but the IEND gone: the pre-scan passes it, and
     * libpng's read past the end meets the reader's own bound */
    assert_memory_equal(png + png_n - 8, "IEND", 4);
    expect_refused(png, png_n - 12, "noend.png", JF_ERR_DECODE, "truncated file");
    /* damage the first IDAT: its CRC, then its compressed data */
    for (i = 8; i + 8 < png_n; i++)
        if (memcmp(png + i, "IDAT", 4) == 0)
            break;
    {
        size_t len = ((size_t)png[i - 4] << 24) | ((size_t)png[i - 3] << 16) |
                     ((size_t)png[i - 2] << 8) | png[i - 1];
        png[i + 4 + len] ^= 0x55;
        expect_refused(png, png_n, "badcrc.png", JF_ERR_DECODE, "CRC error");
        png[i + 4 + len] ^= 0x55;
        for (k = 0; k < 64; k++)
            png[i + 8 + k] ^= 0xA7;
        expect_refused(png, png_n, "baddata.png", JF_ERR_DECODE, "IDAT");
    }
    huge = png_huge_header(100000, 100000);
    expect_refused(huge.data, huge.size, "huge.png", JF_ERR_LIMIT, "exceeds the limit");
    free(huge.data);
    /* a JPEG whose SOF claims 60000 x 60000 (libjpeg itself stops at 65500) */
    for (i = 2; i + 9 < jpg_n; i++)
        if (jpg[i] == 0xFF && (jpg[i + 1] == 0xC0 || jpg[i + 1] == 0xC2)) {
            jpg[i + 5] = jpg[i + 7] = 0xEA;
            jpg[i + 6] = jpg[i + 8] = 0x60;
            break;
        }
    expect_refused(jpg, jpg_n, "huge.jpg", JF_ERR_LIMIT, "exceeds the limit");
    /* zero height */
    jpg[i + 5] = jpg[i + 6] = 0;
    expect_refused(jpg, jpg_n, "zero.jpg", JF_ERR_DECODE, "");
    free(jpg);
    free(png);
    jf_picture_free(&ok);
}

/* The scan's entropy-coded data: after the SOS header, up to EOI. */
static void scan_span(const unsigned char *b, size_t n, size_t *start, size_t *end)
{
    size_t i;
    for (i = 2; i + 4 < n; i++)
        if (b[i] == 0xFF && b[i + 1] == 0xDA) {
            *start = i + 2 + (((size_t)b[i + 2] << 8) | b[i + 3]);
            break;
        }
    *end = n - 2; /* FF D9 */
}

/* What the GPU's JPEG path is held to (jf_jpeg_check_entropy): every damaged
 * file the CPU decoder refuses, it refuses with the same message; clean
 * files pass.  Damage of four kinds: randomised bytes (no marker made),
 * two blocks of the scan swapped, a restart interval cut out, bytes after
 * the last one (read only when the decoder goes on to the end marker). */
static void test_entropy_check_as_strict_as_the_cpu(void **state)
{
    jf_picture photo;
    membuf clean, bad;
    size_t start = 0, end = 0, i;
    int kind, trial, refused[4] = {0, 0, 0, 0};
    uint64_t rng = 12345;
    (void)state;
    assert_int_equal(jf_picture_read(t_source_path("samples/images/rocket.jpg"), &photo), JF_OK);
    {
        const jpeg_layout l = {2, 2, 8, 0, 90}; /* libjpeg's defaults, a restart every 8 MCUs */
        clean = jpeg_laid_out(&photo.color, &l);
    }
    assert_int_equal(jf_jpeg_check_entropy(clean.data, clean.size), JF_OK);
    {
        unsigned char *raw;
        size_t n;
        FILE *f = fopen(t_source_path("samples/images/retina.jpg"), "rb");
        assert_non_null(f);
        fseek(f, 0, SEEK_END);
        n = (size_t)ftell(f);
        fseek(f, 0, SEEK_SET);
        raw = (unsigned char *)malloc(n);
        assert_int_equal(fread(raw, 1, n, f), n);
        fclose(f);
        assert_int_equal(jf_jpeg_check_entropy(raw, n), JF_OK); /* a real photo, untouched */
        free(raw);
    }
    scan_span(clean.data, clean.size, &start, &end);
    assert_true(start > 0 && end > start + 4096);
    bad.data = (unsigned char *)malloc(clean.size + 64);
    for (kind = 0; kind < 4; kind++)
        for (trial = 0; trial < 8; trial++) {
            jf_picture cpu;
            jf_status a, b;
            char msg_cpu[256];
            memcpy(bad.data, clean.data, clean.size);
            bad.size = clean.size;
            if (kind == 0) { /* 64 bytes randomised, none made 0xFF (no marker) */
                size_t at = start + (size_t)(t_rand(&rng) % (end - start - 64));
                for (i = 0; i < 64; i++)
                    bad.data[at + i] = (unsigned char)(t_rand(&rng) % 255);
            } else if (kind == 1) { /* two 512-byte blocks swapped */
                size_t a0 = start + 100 + (size_t)(t_rand(&rng) % ((end - start) / 2 - 700));
                size_t b0 = a0 + 600 + (size_t)(t_rand(&rng) % ((end - start) / 2 - 700));
                unsigned char tmp[512];
                memcpy(tmp, bad.data + a0, 512);
                memcpy(bad.data + a0, bad.data + b0, 512);
                memcpy(bad.data + b0, tmp, 512);
            } else if (kind == 3) { /* 5 + 3 x trial bytes before the end marker */
                const size_t extra = 5 + 3 * (size_t)trial;
                memmove(bad.data + end + extra, bad.data + end, clean.size - end);
                for (i = 0; i < extra; i++)
                    bad.data[end + i] = (unsigned char)(1 + t_rand(&rng) % 254);
                bad.size += extra;
            } else { /* restart interval number `trial` + 1 cut out */
                size_t r0 = 0, r1 = 0;
                int seen = 0;
                for (i = start; i + 1 < end && !r1; i++)
                    if (bad.data[i] == 0xFF && bad.data[i + 1] >= 0xD0 && bad.data[i + 1] <= 0xD7) {
                        if (seen == trial + 1)
                            r0 = i;
                        else if (seen == trial + 2)
                            r1 = i;
                        seen++;
                    }
                assert_true(r1 > r0 && r0 > 0);
                memmove(bad.data + r0, bad.data + r1, bad.size - r1);
                bad.size -= r1 - r0;
            }
            memset(&cpu, 0, sizeof cpu);
            a = jf_picture_decode(bad.data, bad.size, "damaged.jpg", &cpu);
            snprintf(msg_cpu, sizeof msg_cpu, "%s", jf_last_error());
            jf_picture_free(&cpu);
            b = jf_jpeg_check_entropy(bad.data, bad.size);
            if (a != JF_OK) {
                assert_int_equal(b, JF_ERR_DECODE);
                assert_non_null(strstr(msg_cpu, jf_last_error())); /* the same words */
                refused[kind]++;
            } else {
                assert_int_equal(b, JF_OK); /* what the CPU takes, the check takes */
            }
        }
    print_message("refused by both: %d of 8 randomised, %d of 8 swapped, %d of 8 cut, %d of 8 "
                  "with bytes after the scan\n", refused[0], refused[1], refused[2], refused[3]);
    /* random bytes inside a restart interval often decode without a warning
     * (libjpeg resynchronises at the next marker): as strict as the CPU, no more */
    assert_true(refused[0] >= 3 && refused[1] >= 6 && refused[2] == 8 && refused[3] == 8);
    free(bad.data);
    free(clean.data);
    jf_picture_free(&photo);
}

/* Noise smoothed along the rows, every few rows a flat band: long runs of
 * zero coefficients and blocks full of them, as photos have. */
static jf_image walk_image(int w, int h, int ch, uint64_t seed)
{
    jf_image img = t_random_image(w, h, ch, 0, seed);
    int x, y;
    for (y = 0; y < h; y++)
        for (x = 0; x < w * ch; x++) {
            unsigned char *p = img.data + (size_t)y * img.stride + x;
            if ((y / 8) % 3 == 2)
                *p = (unsigned char)(40 + 20 * (x % ch));
            else if (x >= ch)
                *p = (unsigned char)((*p + 3 * p[-ch]) / 4);
        }
    return img;
}

/* The walk (jpeg_scan_check.c) proves clean JPEGs clean whatever their
 * layout: grey and colour with each sampling, restart intervals, standard
 * and optimised tables, low and high quality, sizes from 1 x 1 (otherwise
 * it would only ever hand files to libjpeg-turbo); and the photos as their
 * own encoders wrote them. */
static void test_scan_walk_proves_clean_files_clean(void **state)
{
    static const int sizes[][2] = {{1, 1}, {7, 5}, {17, 3}, {33, 17}, {301, 173}};
    static const int sampling[][2] = {{1, 1}, {2, 1}, {2, 2}, {1, 2}};
    static const int intervals[] = {0, 1, 5};
    static const char *const photos[] = {"samples/images/rocket.jpg", "samples/images/retina.jpg",
                                         "samples/images/hubble_deep_field.jpg"};
    int si, ch, sm, ri, opt, q, cases = 0;
    size_t i;
    (void)state;
    for (si = 0; si < 5; si++)
        for (ch = 1; ch <= 3; ch += 2)
            for (sm = 0; sm < (ch == 3 ? 4 : 1); sm++)
                for (ri = 0; ri < 3; ri++)
                    for (opt = 0; opt < 2; opt++)
                        for (q = 0; q < 3; q++) {
                            const jpeg_layout l = {sampling[sm][0], sampling[sm][1], intervals[ri],
                                                   opt, q == 0 ? 30 : q == 1 ? 92 : 100};
                            jf_image img = walk_image(sizes[si][0], sizes[si][1], ch,
                                                      (uint64_t)(cases + 1));
                            membuf m = jpeg_laid_out(&img, &l);
                            if (jf_jpeg_check_entropy_how(m.data, m.size, JF_JPEG_CHECK_WALK) != JF_OK)
                                fail_msg("the walk cannot prove a clean %dx%dx%d JPEG clean (sampling "
                                         "%dx%d, restart %d, optimised %d, quality %d)",
                                         sizes[si][0], sizes[si][1], ch, l.hs, l.vs, l.interval,
                                         l.optimize, l.quality);
                            assert_int_equal(jf_jpeg_check_entropy(m.data, m.size), JF_OK);
                            free(m.data);
                            jf_image_free(&img);
                            cases++;
                        }
    assert_int_equal(cases, 5 * 5 * 3 * 2 * 3);
    for (i = 0; i < sizeof photos / sizeof photos[0]; i++) {
        unsigned char *raw;
        size_t n;
        assert_int_equal(jf_read_file(t_source_path(photos[i]), (size_t)1 << 26, &raw, &n), JF_OK);
        assert_int_equal(jf_jpeg_check_entropy_how(raw, n, JF_JPEG_CHECK_WALK), JF_OK);
        free(raw);
    }
}

/* The walk is never looser than libjpeg-turbo: a file it calls clean,
 * libjpeg-turbo reads without a warning it counts as damage; so the check
 * (walk, then libjpeg-turbo) refuses exactly what libjpeg-turbo alone
 * refuses, with its message.  Thousands of damaged files of ten kinds
 * from clean ones of several layouts. */
static void test_scan_walk_never_looser_than_libjpeg(void **state)
{
    static const jpeg_layout layouts[] = {
        {2, 2, 0, 0, 92}, {1, 1, 3, 1, 75}, {2, 1, 1, 0, 95}, {1, 1, 0, 1, 50}, {2, 2, 7, 1, 85}};
    uint64_t rng = 777;
    int base, kind, trial, refused = 0, stricter = 0, total = 0, by_kind[10] = {0};
    (void)state;
    for (base = 0; base < 6; base++) {
        const int grey = base == 5;
        const jpeg_layout *l = &layouts[grey ? 1 : base];
        jf_image img = walk_image(grey ? 67 : 120, grey ? 45 : 88, grey ? 1 : 3, (uint64_t)(base + 50));
        membuf clean = jpeg_laid_out(&img, l);
        size_t start = 0, end = 0;
        unsigned char *bad = (unsigned char *)malloc(clean.size + 64);
        scan_span(clean.data, clean.size, &start, &end);
        assert_true(start > 0 && end > start + 64);
        assert_int_equal(jf_jpeg_check_entropy_how(clean.data, clean.size, JF_JPEG_CHECK_WALK), JF_OK);
        for (kind = 0; kind < 10; kind++)
            for (trial = 0; trial < 60; trial++) {
                size_t n = clean.size, at = start + (size_t)(t_rand(&rng) % (end - start)), i;
                jf_status walk, lib, full;
                char msg_lib[256];
                memcpy(bad, clean.data, clean.size);
                switch (kind) {
                case 0: /* 1 to 8 bytes anywhere in the scan, any value */
                    for (i = t_rand(&rng) % 8; i < 8; i++)
                        bad[start + t_rand(&rng) % (end - start)] = (unsigned char)t_rand(&rng);
                    break;
                case 1: /* one bit */
                    bad[at] ^= (unsigned char)(1u << (t_rand(&rng) % 8));
                    break;
                case 2: /* cut short, the end marker after the cut */
                    bad[at] = 0xFF;
                    bad[at + 1] = 0xD9;
                    n = at + 2;
                    break;
                case 3: /* cut short, no end marker */
                    n = at;
                    break;
                case 4: /* 1 to 3 bytes put in */
                    n = clean.size + 1 + t_rand(&rng) % 3;
                    memmove(bad + at + (n - clean.size), bad + at, clean.size - at);
                    for (i = at; i < at + (n - clean.size); i++)
                        bad[i] = (unsigned char)t_rand(&rng);
                    break;
                case 5: /* 1 to 3 bytes taken out */
                    i = 1 + t_rand(&rng) % 3;
                    memmove(bad + at, bad + at + i, clean.size - at - i);
                    n = clean.size - i;
                    break;
                case 6: /* a byte of the headers */
                    bad[2 + t_rand(&rng) % (start - 2)] = (unsigned char)t_rand(&rng);
                    break;
                case 7: /* bytes between the scan and the end marker (0xFF fill among them) */
                    n = clean.size + 1 + t_rand(&rng) % 4;
                    memmove(bad + end + (n - clean.size), bad + end, clean.size - end);
                    for (i = end; i < end + (n - clean.size); i++)
                        bad[i] = (unsigned char)(t_rand(&rng) % 3 ? 0xFF : t_rand(&rng));
                    break;
                case 8: /* a restart marker renumbered, or a marker made */
                    for (i = at; i + 1 < end; i++)
                        if (bad[i] == 0xFF && bad[i + 1] >= 0xD0 && bad[i + 1] <= 0xD7)
                            break;
                    if (i + 1 < end)
                        bad[i + 1] = (unsigned char)(0xD0 + (bad[i + 1] - 0xD0 + 1 + t_rand(&rng) % 7) % 8);
                    else {
                        bad[at] = 0xFF;
                        bad[at + 1] = (unsigned char)(0xD0 + t_rand(&rng) % 8);
                    }
                    break;
                default: { /* two runs of the scan swapped */
                    const size_t len = 1 + t_rand(&rng) % 16;
                    const size_t b0 = start + (size_t)(t_rand(&rng) % (end - start - len));
                    unsigned char tmp[16];
                    at = start + (size_t)(t_rand(&rng) % (end - start - len));
                    memcpy(tmp, bad + at, len);
                    memmove(bad + at, bad + b0, len);
                    memcpy(bad + b0, tmp, len);
                }
                }
                walk = jf_jpeg_check_entropy_how(bad, n, JF_JPEG_CHECK_WALK);
                lib = jf_jpeg_check_entropy_how(bad, n, JF_JPEG_CHECK_LIBJPEG);
                snprintf(msg_lib, sizeof msg_lib, "%s", jf_last_error());
                full = jf_jpeg_check_entropy(bad, n);
                if (walk == JF_OK && lib != JF_OK)
                    fail_msg("kind %d, trial %d: the walk calls clean what libjpeg-turbo refuses (%s)",
                             kind, trial, msg_lib);
                assert_int_equal(full, lib);
                if (lib != JF_OK) {
                    assert_string_equal(jf_last_error(), msg_lib); /* libjpeg-turbo's words */
                    refused++;
                    by_kind[kind]++;
                } else if (walk != JF_OK) {
                    stricter++;
                }
                total++;
            }
        free(bad);
        free(clean.data);
        jf_image_free(&img);
    }
    print_message("%d damaged files: libjpeg-turbo refused %d (by kind: %d %d %d %d %d %d %d %d %d "
                  "%d); of the others the walk left %d to libjpeg-turbo\n",
                  total, refused, by_kind[0], by_kind[1], by_kind[2], by_kind[3], by_kind[4],
                  by_kind[5], by_kind[6], by_kind[7], by_kind[8], by_kind[9], stricter);
    /* the damage is real: most of each kind is refused (cut short always) */
    assert_int_equal(by_kind[2], 6 * 60);
    assert_int_equal(by_kind[3], 6 * 60);
    assert_true(refused > total / 2);
}

static void test_pixel_limit_configurable(void **state)
{
    jf_picture pic;
    uint64_t old = jf_max_pixels();
    (void)state;
    jf_set_max_pixels(1000);
    assert_int_equal(jf_picture_read(t_source_path("samples/images/rocket.jpg"), &pic), JF_ERR_LIMIT);
    assert_non_null(strstr(jf_last_error(), "rocket.jpg"));
    jf_set_max_pixels(old);
    assert_int_equal(jf_picture_read(t_source_path("samples/images/rocket.jpg"), &pic), JF_OK);
    jf_picture_free(&pic);
}

static void test_atomic_write_leaves_nothing(void **state)
{
    const char *dir = t_make_tmpdir();
    char path[512];
    jf_picture pic;
    jf_encode_options eo = t_encode_opts(JF_FORMAT_PNG, 0, 6);
    FILE *f;
    (void)state;
    memset(&pic, 0, sizeof pic);
    pic.color = t_random_image(8, 8, 3, 0, 1);
    snprintf(path, sizeof path, "%s/out.png", dir);
    assert_int_equal(jf_picture_write(path, &pic, &eo), JF_OK);
    f = fopen(path, "rb");
    assert_non_null(f);
    fclose(f);
    /* into a folder that does not exist: an error naming the path, no file */
    snprintf(path, sizeof path, "%s/missing/out.png", dir);
    assert_int_equal(jf_picture_write(path, &pic, &eo), JF_ERR_IO);
    assert_non_null(strstr(jf_last_error(), "missing/out.png"));
    jf_picture_free(&pic);
    t_rmtree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sniffing),
        cmocka_unit_test(test_samples_decode),
        cmocka_unit_test(test_decode_into_frame),
        cmocka_unit_test(test_png_round_trip_exact),
        cmocka_unit_test(test_jpeg_round_trip_photo),
        cmocka_unit_test(test_jpeg_layouts),
        cmocka_unit_test(test_jpeg_cmyk),
        cmocka_unit_test(test_png_16bit),
        cmocka_unit_test(test_png16_strategy),
        cmocka_unit_test(test_png_layouts),
        cmocka_unit_test(test_png_image_data_in_one_piece),
        cmocka_unit_test(test_png_filters_written),
        cmocka_unit_test(test_metadata_survives),
        cmocka_unit_test(test_jpeg_markers_kept),
        cmocka_unit_test(test_prescan_reads_the_structure),
        cmocka_unit_test(test_prescan_skips_entropy_data),
        cmocka_unit_test(test_damaged_files_refused),
        cmocka_unit_test(test_entropy_check_as_strict_as_the_cpu),
        cmocka_unit_test(test_scan_walk_proves_clean_files_clean),
        cmocka_unit_test(test_scan_walk_never_looser_than_libjpeg),
        cmocka_unit_test(test_pixel_limit_configurable),
        cmocka_unit_test(test_atomic_write_leaves_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
