/*
 * PNG through libpng.
 *
 * Every layout is read: grey, grey+alpha, RGB, RGBA at 8 or 16 bits,
 * palette (expanded to RGB, or RGBA when it has transparency), 1/2/4-bit
 * grey (expanded to 8), and interlaced files.  16-bit files stay 16-bit
 * (big-endian in the file, host order in memory) and are written back so.
 * Alpha is split off so filters never touch it and is written back as it
 * was.
 *
 * Metadata kept: the ICC profile (iCCP), EXIF (eXIf) and text chunks.
 * libpng's errors come back through longjmp with their message; its
 * warnings about metadata it could not keep (a damaged profile, a chunk over
 * a limit) become the picture's warning (jf_last_warning()).
 *
 * The image data of most files is inflated in one piece by libdeflate where
 * the build has it (png_deflate.c); libpng reads the rest.
 *
 * Before libpng sees a file, jf_png_prescan (scan.c) checks every chunk's
 * length, the metadata inflated and the image data against jf_limits; libpng
 * gets the same limits (chunk allocations, ancillary chunks kept, width and
 * height), so no allocation follows a number the file merely claims.
 */
#include "io/io.h"
#include "core/errors.h"
#include "core/image.h"

#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>
#include <zlib.h>

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

/* Warnings that mean metadata was left out are kept for the caller; the
 * rest are not: libpng's advice about a profile it still keeps and writes
 * (an old, slightly wrong sRGB profile that many files carry; a profile
 * that matches sRGB) loses nothing. */
static void on_warning(png_structp png, png_const_charp msg)
{
    (void)png;
    if (strstr(msg, "known incorrect sRGB profile") || strstr(msg, "profile matches sRGB"))
        return;
    if (strstr(msg, "iCCP") || strstr(msg, "profile") || strstr(msg, "eXIf") ||
        strstr(msg, "Text") || strstr(msg, "text") || strstr(msg, "chunk"))
        jf_warn("PNG metadata left out (%s)", msg);
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

/* Where libpng's allocations stop: the same limits as the pre-scan. */
static void set_limits(png_structp png)
{
    const jf_limits lim = jf_get_limits();
    const uint64_t side = lim.max_pixels < 0x7FFFFFFF ? lim.max_pixels : 0x7FFFFFFF;
    png_set_user_limits(png, (png_uint_32)side, (png_uint_32)side);
    png_set_chunk_cache_max(png, (png_uint_32)lim.max_text_chunks);
    png_set_chunk_malloc_max(png, (png_alloc_size_t)(lim.max_chunk_bytes + 4096));
}

/* Transformations to grey, grey+alpha, RGB or RGBA of 8 or 16 bits. */
static jf_status set_layout(png_structp png, png_infop info, int *channels, int *depth16)
{
    int depth = png_get_bit_depth(png, info), color_type = png_get_color_type(png, info);
    *depth16 = depth == 16;
    if (depth == 16 && jf_host_is_little_endian())
        png_set_swap(png);
    if (color_type == PNG_COLOR_TYPE_PALETTE)
        png_set_palette_to_rgb(png);
    if (color_type == PNG_COLOR_TYPE_GRAY && depth < 8)
        png_set_expand_gray_1_2_4_to_8(png);
    if (png_get_valid(png, info, PNG_INFO_tRNS))
        png_set_tRNS_to_alpha(png);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    *channels = png_get_channels(png, info);
    if (*channels < 1 || *channels > 4 || png_get_bit_depth(png, info) != (*depth16 ? 16 : 8))
        return jf_fail(JF_ERR_UNSUPPORTED, "PNG layout not supported");
    return JF_OK;
}

/* Interleaved rows (colour and alpha) into the picture's two planes; `b`
 * bytes a sample. */
static void split_alpha(const unsigned char *full, int channels, size_t b, jf_picture *pic)
{
    const int w = pic->color.width, cc = pic->color.channels;
    int x, y;
    for (y = 0; y < pic->color.height; y++) {
        const unsigned char *s = full + (size_t)y * w * (size_t)channels * b;
        unsigned char *c = pic->color.data + (size_t)y * pic->color.stride;
        unsigned char *a = pic->alpha.data + (size_t)y * pic->alpha.stride;
        for (x = 0; x < w; x++) {
            memcpy(c + (size_t)x * cc * b, s + (size_t)x * channels * b, (size_t)cc * b);
            memcpy(a + (size_t)x * b, s + ((size_t)x * channels + cc) * b, b);
        }
    }
}

typedef struct png_read {
    jf_png_scan scan;
    png_structp png;
    png_infop info, end;
    png_io io;
    png_bytep *rows;
    unsigned char *full;
} png_read;

/* The pixels: into the colour plane, or interleaved and then split. */
static jf_status read_pixels(png_read *r, jf_context *frame_ctx, jf_picture *pic)
{
    png_uint_32 w = png_get_image_width(r->png, r->info), h = png_get_image_height(r->png, r->info);
    int channels, depth16, y;
    jf_sample sample;
    size_t b;
    jf_status st;
    if ((st = set_layout(r->png, r->info, &channels, &depth16)) != JF_OK)
        return st;
    sample = depth16 ? JF_SAMPLE_U16 : JF_SAMPLE_U8;
    b = jf_sample_size(sample);
    if ((st = jf_picture_alloc_color(frame_ctx, pic, (int)w, (int)h, channels >= 3 ? 3 : 1,
                                     sample)) != JF_OK ||
        (channels != pic->color.channels &&
         (st = jf_image_alloc_as(&pic->alpha, (int)w, (int)h, 1, sample)) != JF_OK))
        return st;
    if (!(r->rows = (png_bytep *)malloc(sizeof(png_bytep) * h)) ||
        (channels != pic->color.channels &&
         !(r->full = (unsigned char *)malloc((size_t)w * (size_t)channels * b * h))))
        return jf_fail(JF_ERR_NOMEM, "out of memory");
    for (y = 0; y < (int)h; y++)
        r->rows[y] = r->full ? r->full + (size_t)y * w * (size_t)channels * b
                             : pic->color.data + (size_t)y * pic->color.stride;
    if (!jf_png_inflate_rows(r->io.bytes, r->io.size, &r->scan, r->rows)) {
        png_read_image(r->png, r->rows);
        png_read_end(r->png, r->end);
    }
    if (r->full)
        split_alpha(r->full, channels, b, pic);
    return JF_OK;
}

jf_status jf_png_decode(jf_context *frame_ctx, const unsigned char *bytes, size_t size,
                        jf_picture *pic)
{
    png_read r;
    jf_status st;

    memset(&r, 0, sizeof r);
    if ((st = jf_png_prescan(bytes, size, &r.scan)) != JF_OK)
        return st;
    if (r.scan.ancillary_chunks > jf_get_limits().max_text_chunks)
        jf_warn("%d text and other ancillary chunks past the first %d left out",
                r.scan.ancillary_chunks - jf_get_limits().max_text_chunks,
                jf_get_limits().max_text_chunks);
    r.io.bytes = bytes;
    r.io.size = size;
    r.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &r.io, on_error, on_warning);
    if (r.png)
        r.info = png_create_info_struct(r.png);
    if (r.info)
        r.end = png_create_info_struct(r.png);
    if (!r.end) {
        png_destroy_read_struct(&r.png, &r.info, NULL);
        return jf_fail(JF_ERR_NOMEM, "cannot create the PNG decoder");
    }
    if (setjmp(png_jmpbuf(r.png))) {
        st = jf_fail(JF_ERR_DECODE, "%s", r.io.message);
        goto done;
    }
    png_set_read_fn(r.png, &r.io, read_mem);
    /* profile checks (e.g. "known incorrect sRGB profile") are advice, not damage */
    png_set_benign_errors(r.png, 1);
    set_limits(r.png);
    png_read_info(r.png, r.info);
    if ((st = read_pixels(&r, frame_ctx, pic)) != JF_OK || (st = keep_metadata(r.png, r.info, pic)) != JF_OK ||
        (st = keep_text(r.png, r.end, pic)) != JF_OK)
        goto done;
    pic->format = JF_FORMAT_PNG;
done:
    png_destroy_read_struct(&r.png, &r.info, &r.end);
    free(r.rows);
    free(r.full);
    if (st != JF_OK) {
        jf_image_free(&pic->color);
        jf_image_free(&pic->alpha);
    }
    return st;
}

/* The picture's text chunks (its other blobs are JPEG markers: PNG has no
 * place for them, which the warning says).  `text` is freed by the caller. */
static void set_text(png_structp png, png_infop info, const jf_picture *pic, png_textp *text)
{
    int i, n = 0;
    for (i = 0; i < pic->extra_count; i++)
        n += pic->extra[i].key[0] != '\0';
    if (pic->extra_count > n)
        jf_warn("%d JPEG marker%s (XMP, comments, ...) not written: PNG has no place for them",
                pic->extra_count - n, pic->extra_count - n == 1 ? "" : "s");
    if (!n)
        return;
    if (!(*text = (png_textp)calloc((size_t)n, sizeof **text)))
        png_error(png, "out of memory");
    for (i = 0, n = 0; i < pic->extra_count; i++) {
        const jf_blob *b = &pic->extra[i];
        if (b->key[0] == '\0')
            continue;
        (*text)[n].compression = b->tag;
        (*text)[n].key = (png_charp)b->key;
        (*text)[n].text = (png_charp)b->data;
        if (b->tag >= PNG_ITXT_COMPRESSION_NONE)
            (*text)[n].itxt_length = b->size;
        else
            (*text)[n].text_length = b->size;
        n++;
    }
    png_set_text(png, info, *text, n);
}

/* The rows, alpha put back beside the colour when there is one. */
static void write_rows(png_structp png, const jf_picture *pic, unsigned char **row)
{
    const jf_image *img = &pic->color;
    const int has_alpha = pic->alpha.data != NULL, channels = img->channels + has_alpha;
    const size_t b = jf_bps(img);
    int x, y;
    if (has_alpha && !(*row = (unsigned char *)malloc((size_t)img->width * (size_t)channels * b)))
        png_error(png, "out of memory");
    for (y = 0; y < img->height; y++) {
        const unsigned char *c = img->data + (size_t)y * img->stride;
        if (has_alpha) {
            const unsigned char *a = pic->alpha.data + (size_t)y * pic->alpha.stride;
            for (x = 0; x < img->width; x++) {
                memcpy(*row + (size_t)x * channels * b, c + (size_t)x * img->channels * b,
                       (size_t)img->channels * b);
                memcpy(*row + ((size_t)x * channels + img->channels) * b, a + (size_t)x * b, b);
            }
            png_write_row(png, *row);
        } else {
            png_write_row(png, (png_const_bytep)c);
        }
    }
}

const char *const jf_png_filter_names[JF_PNG_FILTER_COUNT + 1] = {
    "default", "none", "sub", "up", "avg", "paeth", "adaptive", NULL};

/* libpng's filter mask for a jf_png_filter (DEFAULT resolved by the caller). */
static int libpng_filter_mask(jf_png_filter filter)
{
    switch (filter) {
    case JF_PNG_FILTER_NONE: return PNG_FILTER_NONE;
    case JF_PNG_FILTER_SUB: return PNG_FILTER_SUB;
    case JF_PNG_FILTER_UP: return PNG_FILTER_UP;
    case JF_PNG_FILTER_AVG: return PNG_FILTER_AVG;
    case JF_PNG_FILTER_PAETH: return PNG_FILTER_PAETH;
    default: return PNG_ALL_FILTERS;
    }
}

/* Bytes a deflate stream of in[0..n) takes at level and strategy. */
static size_t deflated_size(const unsigned char *in, size_t n, int level, int strategy)
{
    unsigned char out[16384];
    size_t total = 0;
    z_stream z;
    int rc;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, level, Z_DEFLATED, 15, 8, strategy) != Z_OK)
        return (size_t)-1;
    z.next_in = (Bytef *)(uintptr_t)in;
    z.avail_in = (uInt)n;
    do {
        z.next_out = out;
        z.avail_out = sizeof out;
        rc = deflate(&z, Z_FINISH);
        total += sizeof out - z.avail_out;
    } while (rc == Z_OK);
    deflateEnd(&z);
    return total;
}

/* Whether run-length matching (zlib's Z_RLE) suits a 16-bit image at a fast
 * level: up to 16 rows spread down the image (at most 1 MB), up-filtered as
 * PNG stores them, are deflated both ways; Z_RLE unless the hash chains
 * make them more than 5% smaller.  Measured on whole images: where the low
 * bytes are noise (a camera's, or a median of it) Z_RLE was both faster and
 * smaller; on smooth 16-bit photos and gradients much larger (docs/kernels/studies.md,
 * "Z_RLE at the fast levels"). */
int jf_png_rle_suits(const jf_image *img, int level)
{
    const size_t samples = (size_t)img->width * (size_t)img->channels;
    const size_t row_bytes = samples * 2, cap = (size_t)1 << 20;
    size_t x, n = 0, hashed, rle;
    int rows = img->height - 1 < 16 ? img->height - 1 : 16, r;
    unsigned char *buf;
    if (level < 1 || rows < 1)
        return 1; /* stored, or no row above another: nothing to choose */
    if ((size_t)rows * row_bytes > cap)
        rows = row_bytes >= cap ? 1 : (int)(cap / row_bytes);
    if (!(buf = (unsigned char *)malloc((size_t)rows * row_bytes)))
        return 1;
    for (r = 0; r < rows; r++) {
        const int y = 1 + (int)((long long)r * (img->height - 1) / rows);
        const uint16_t *cur = (const uint16_t *)(const void *)(img->data + (size_t)y * img->stride);
        const uint16_t *up = (const uint16_t *)(const void *)(img->data + (size_t)(y - 1) * img->stride);
        for (x = 0; x < samples; x++) { /* big-endian, each byte less the one above */
            buf[n++] = (unsigned char)((cur[x] >> 8) - (up[x] >> 8));
            buf[n++] = (unsigned char)((cur[x] & 255) - (up[x] & 255));
        }
    }
    hashed = deflated_size(buf, n, level, Z_DEFAULT_STRATEGY);
    rle = deflated_size(buf, n, level, Z_RLE);
    free(buf);
    return (double)rle <= 1.05 * (double)hashed;
}

jf_status jf_png_encode(const jf_picture *pic, int level, jf_png_filter filter, unsigned char **out,
                        size_t *out_size)
{
    png_structp png = NULL;
    png_infop info = NULL;
    png_io io;
    const jf_image *img = &pic->color;
    const int has_alpha = pic->alpha.data != NULL;
    int color_type;
    /* volatile: set after setjmp, freed after a longjmp */
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
    /* Photos at the fast levels: run-length matches only (zlib's Z_RLE, as
     * OpenCV writes) are both faster and smaller than level 1's hash chains
     * after a row filter has made the rows mostly small differences (docs/kernels/studies.md,
     * "PNG writing").  At 16 bits it depends on the low bytes, so a sample
     * of rows decides. */
    if (level <= 3 && (img->sample == JF_SAMPLE_U8 || jf_png_rle_suits(img, level)))
        png_set_compression_strategy(png, Z_RLE);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, libpng_filter_mask(filter));
    if (img->channels == 1)
        color_type = has_alpha ? PNG_COLOR_TYPE_GRAY_ALPHA : PNG_COLOR_TYPE_GRAY;
    else
        color_type = has_alpha ? PNG_COLOR_TYPE_RGB_ALPHA : PNG_COLOR_TYPE_RGB;
    png_set_IHDR(png, info, (png_uint_32)img->width, (png_uint_32)img->height,
                 img->sample == JF_SAMPLE_U16 ? 16 : 8, color_type, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
#if defined(PNG_iCCP_SUPPORTED)
    if (pic->icc && pic->icc_size)
        png_set_iCCP(png, info, "ICC Profile", PNG_COMPRESSION_TYPE_BASE, pic->icc,
                     (png_uint_32)pic->icc_size);
#endif
#if defined(PNG_eXIf_SUPPORTED)
    if (pic->exif && pic->exif_size)
        png_set_eXIf_1(png, info, (png_uint_32)pic->exif_size, pic->exif);
#endif
    set_text(png, info, pic, (png_textp *)&text);
    png_write_info(png, info);
    if (img->sample == JF_SAMPLE_U16 && jf_host_is_little_endian())
        png_set_swap(png); /* PNG stores 16-bit samples big-endian */
    write_rows(png, pic, (unsigned char **)&row);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    free(row);
    free(text);
    *out = io.out;
    *out_size = io.out_size;
    return JF_OK;
}
