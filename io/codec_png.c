/*
 * PNG through libpng.
 *
 * Every 8-bit layout is read: grey, grey+alpha, RGB, RGBA, palette (expanded
 * to RGB, or RGBA when it has transparency), 1/2/4-bit grey (expanded), and
 * interlaced files.  Alpha is split off so filters never touch it and is
 * written back as it was.  16-bit files are refused, not truncated.
 *
 * Metadata kept: the ICC profile (iCCP), EXIF (eXIf) and text chunks.
 * libpng's errors come back through longjmp with their message; its
 * warnings (ancillary-chunk trouble it already recovers from) are dropped.
 */
#include "io/io.h"
#include "core/errors.h"
#include "core/image.h"

#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>

typedef struct png_io {
    const unsigned char *bytes;
    size_t size, at;
    unsigned char *out;
    size_t out_size, out_cap;
    char message[256];
} png_io;

static void on_error(png_structp png, png_const_charp msg)
{
    png_io *io = (png_io *)png_get_error_ptr(png);
    strncpy(io->message, msg, sizeof io->message - 1);
    io->message[sizeof io->message - 1] = '\0';
    png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg;
}

static void read_mem(png_structp png, png_bytep dst, png_size_t n)
{
    png_io *io = (png_io *)png_get_io_ptr(png);
    if (n > io->size - io->at)
        png_error(png, "truncated file");
    memcpy(dst, io->bytes + io->at, n);
    io->at += n;
}

static void write_mem(png_structp png, png_bytep src, png_size_t n)
{
    png_io *io = (png_io *)png_get_io_ptr(png);
    if (n > io->out_cap - io->out_size) {
        size_t cap = io->out_cap ? io->out_cap : 65536;
        unsigned char *grown;
        while (cap - io->out_size < n)
            cap *= 2;
        grown = (unsigned char *)realloc(io->out, cap);
        if (!grown)
            png_error(png, "out of memory");
        io->out = grown;
        io->out_cap = cap;
    }
    memcpy(io->out + io->out_size, src, n);
    io->out_size += n;
}

static void flush_mem(png_structp png) { (void)png; }

static jf_status keep_text(png_structp png, png_infop info, jf_picture *pic)
{
    png_textp text = NULL;
    int count = 0, i;
    jf_status st;
    if (!info || png_get_text(png, info, &text, &count) <= 0)
        return JF_OK;
    for (i = 0; i < count; i++) {
        size_t len = text[i].compression >= PNG_ITXT_COMPRESSION_NONE ? text[i].itxt_length
                                                                      : text[i].text_length;
        st = jf_picture_add_blob(pic, text[i].compression, text[i].key,
                                 (const unsigned char *)text[i].text, len);
        if (st != JF_OK)
            return st;
    }
    return JF_OK;
}

static jf_status keep_metadata(png_structp png, png_infop info, jf_picture *pic)
{
#if defined(PNG_iCCP_SUPPORTED)
    png_charp name;
    png_bytep profile;
    png_uint_32 len;
    int compression;
    if (png_get_iCCP(png, info, &name, &compression, &profile, &len) && len > 0) {
        pic->icc = (unsigned char *)malloc(len);
        if (!pic->icc)
            return jf_fail(JF_ERR_NOMEM, "out of memory for the ICC profile");
        memcpy(pic->icc, profile, len);
        pic->icc_size = len;
    }
#endif
#if defined(PNG_eXIf_SUPPORTED)
    {
        png_bytep exif = NULL;
        png_uint_32 exif_len = 0;
        if (png_get_eXIf_1(png, info, &exif_len, &exif) && exif_len > 0 && !pic->exif) {
            pic->exif = (unsigned char *)malloc(exif_len);
            if (!pic->exif)
                return jf_fail(JF_ERR_NOMEM, "out of memory for EXIF");
            memcpy(pic->exif, exif, exif_len);
            pic->exif_size = exif_len;
        }
    }
#endif
    return keep_text(png, info, pic);
}

jf_status jf_png_decode(const unsigned char *bytes, size_t size, jf_picture *pic)
{
    png_structp png = NULL;
    png_infop info = NULL, end = NULL;
    png_io io;
    png_uint_32 width, height;
    int depth, color_type, interlace, channels, color_ch, y, x;
    png_bytep *volatile rows = NULL;
    unsigned char *volatile full = NULL;
    jf_status st = JF_OK;

    /* IHDR is always the first chunk: refuse absurd sizes before libpng
     * reads (or allocates) anything more */
    if (size >= 24 && memcmp(bytes + 12, "IHDR", 4) == 0) {
        uint64_t w = ((uint64_t)bytes[16] << 24) | ((uint64_t)bytes[17] << 16) |
                     ((uint64_t)bytes[18] << 8) | bytes[19];
        uint64_t h = ((uint64_t)bytes[20] << 24) | ((uint64_t)bytes[21] << 16) |
                     ((uint64_t)bytes[22] << 8) | bytes[23];
        if ((st = jf_check_dims("PNG header", w, h, 1)) != JF_OK)
            return st;
    }
    memset(&io, 0, sizeof io);
    io.bytes = bytes;
    io.size = size;
    png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &io, on_error, on_warning);
    if (png)
        info = png_create_info_struct(png);
    if (info)
        end = png_create_info_struct(png);
    if (!end) {
        png_destroy_read_struct(&png, &info, NULL);
        return jf_fail(JF_ERR_NOMEM, "cannot create the PNG decoder");
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, &end);
        free(rows);
        free(full);
        jf_image_free(&pic->color);
        jf_image_free(&pic->alpha);
        return jf_fail(JF_ERR_DECODE, "%s", io.message);
    }
    png_set_read_fn(png, &io, read_mem);
    /* profile checks (e.g. "known incorrect sRGB profile") are advice, not damage */
    png_set_benign_errors(png, 1);
    png_read_info(png, info);
    png_get_IHDR(png, info, &width, &height, &depth, &color_type, &interlace, NULL, NULL);

    st = jf_check_dims("PNG header", width, height, 1);
    if (st != JF_OK)
        goto done;
    if (depth == 16) {
        st = jf_fail(JF_ERR_UNSUPPORTED,
                     "16-bit PNG is not supported (jetfilter filters 8-bit images and will "
                     "not drop the low byte silently; convert it to 8 bits first)");
        goto done;
    }
    if (color_type == PNG_COLOR_TYPE_PALETTE)
        png_set_palette_to_rgb(png);
    if (color_type == PNG_COLOR_TYPE_GRAY && depth < 8)
        png_set_expand_gray_1_2_4_to_8(png);
    if (png_get_valid(png, info, PNG_INFO_tRNS))
        png_set_tRNS_to_alpha(png);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    channels = png_get_channels(png, info);
    if (channels < 1 || channels > 4 || png_get_bit_depth(png, info) != 8) {
        st = jf_fail(JF_ERR_UNSUPPORTED, "PNG layout not supported");
        goto done;
    }
    color_ch = channels >= 3 ? 3 : 1;
    st = jf_image_alloc(&pic->color, (int)width, (int)height, color_ch);
    if (st == JF_OK && channels != color_ch)
        st = jf_image_alloc(&pic->alpha, (int)width, (int)height, 1);
    if (st != JF_OK)
        goto done;
    rows = (png_bytep *)malloc(sizeof(png_bytep) * height);
    if (!rows) {
        st = jf_fail(JF_ERR_NOMEM, "out of memory");
        goto done;
    }
    if (channels == color_ch) {
        for (y = 0; y < (int)height; y++)
            rows[y] = pic->color.data + (size_t)y * pic->color.stride;
    } else {
        /* decode interleaved, then split colour from alpha */
        full = (unsigned char *)malloc((size_t)width * (size_t)channels * height);
        if (!full) {
            st = jf_fail(JF_ERR_NOMEM, "out of memory");
            goto done;
        }
        for (y = 0; y < (int)height; y++)
            rows[y] = full + (size_t)y * width * (size_t)channels;
    }
    png_read_image(png, rows);
    png_read_end(png, end);
    if (full) {
        for (y = 0; y < (int)height; y++) {
            const unsigned char *s = rows[y];
            unsigned char *c = pic->color.data + (size_t)y * pic->color.stride;
            unsigned char *a = pic->alpha.data + (size_t)y * pic->alpha.stride;
            for (x = 0; x < (int)width; x++) {
                memcpy(c + (size_t)x * color_ch, s + (size_t)x * channels, (size_t)color_ch);
                a[x] = s[(size_t)x * channels + color_ch];
            }
        }
    }
    st = keep_metadata(png, info, pic);
    if (st == JF_OK)
        st = keep_text(png, end, pic);
    pic->format = JF_FORMAT_PNG;
done:
    png_destroy_read_struct(&png, &info, &end);
    free(rows);
    free(full);
    return st;
}

jf_status jf_png_encode(const jf_picture *pic, int level, unsigned char **out,
                        size_t *out_size)
{
    png_structp png = NULL;
    png_infop info = NULL;
    png_io io;
    const jf_image *img = &pic->color;
    int has_alpha = pic->alpha.data != NULL;
    int channels = img->channels + has_alpha;
    int color_type, y, x, i;
    volatile int ntext = 0;
    unsigned char *volatile row = NULL;
    png_textp volatile text = NULL;

    if (has_alpha && (pic->alpha.width != img->width || pic->alpha.height != img->height))
        return jf_fail(JF_ERR_ARG, "alpha plane size differs from the image");
    memset(&io, 0, sizeof io);
    png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &io, on_error, on_warning);
    if (png)
        info = png_create_info_struct(png);
    if (!info) {
        png_destroy_write_struct(&png, NULL);
        return jf_fail(JF_ERR_NOMEM, "cannot create the PNG encoder");
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        free(row);
        free(text);
        free(io.out);
        return jf_fail(JF_ERR_ENCODE, "PNG encoder: %s", io.message);
    }
    png_set_write_fn(png, &io, write_mem, flush_mem);
    png_set_benign_errors(png, 1); /* carry a profile libpng dislikes rather than fail */
    png_set_compression_level(png, level);
    if (img->channels == 1)
        color_type = has_alpha ? PNG_COLOR_TYPE_GRAY_ALPHA : PNG_COLOR_TYPE_GRAY;
    else
        color_type = has_alpha ? PNG_COLOR_TYPE_RGB_ALPHA : PNG_COLOR_TYPE_RGB;
    png_set_IHDR(png, info, (png_uint_32)img->width, (png_uint_32)img->height, 8, color_type,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
#if defined(PNG_iCCP_SUPPORTED)
    if (pic->icc && pic->icc_size)
        png_set_iCCP(png, info, "ICC Profile", PNG_COMPRESSION_TYPE_BASE, pic->icc,
                     (png_uint_32)pic->icc_size);
#endif
#if defined(PNG_eXIf_SUPPORTED)
    if (pic->exif && pic->exif_size)
        png_set_eXIf_1(png, info, (png_uint_32)pic->exif_size, pic->exif);
#endif
    for (i = 0; i < pic->extra_count; i++)
        ntext += pic->extra[i].key[0] != '\0';
    if (ntext) {
        text = (png_textp)calloc((size_t)ntext, sizeof *text);
        if (!text)
            png_error(png, "out of memory");
        for (i = 0, ntext = 0; i < pic->extra_count; i++) {
            const jf_blob *b = &pic->extra[i];
            if (b->key[0] == '\0')
                continue;
            text[ntext].compression = b->tag;
            text[ntext].key = (png_charp)b->key;
            text[ntext].text = (png_charp)b->data;
            if (b->tag >= PNG_ITXT_COMPRESSION_NONE)
                text[ntext].itxt_length = b->size;
            else
                text[ntext].text_length = b->size;
            ntext++;
        }
        png_set_text(png, info, text, ntext);
    }
    png_write_info(png, info);
    if (has_alpha) {
        row = (unsigned char *)malloc((size_t)img->width * (size_t)channels);
        if (!row)
            png_error(png, "out of memory");
    }
    for (y = 0; y < img->height; y++) {
        const unsigned char *c = img->data + (size_t)y * img->stride;
        if (has_alpha) {
            const unsigned char *a = pic->alpha.data + (size_t)y * pic->alpha.stride;
            for (x = 0; x < img->width; x++) {
                memcpy(row + (size_t)x * channels, c + (size_t)x * img->channels,
                       (size_t)img->channels);
                row[(size_t)x * channels + img->channels] = a[x];
            }
            png_write_row(png, row);
        } else {
            png_write_row(png, (png_const_bytep)c);
        }
    }
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    free(row);
    free(text);
    *out = io.out;
    *out_size = io.out_size;
    return JF_OK;
}
