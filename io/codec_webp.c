/*
 * WebP through libwebp (libwebpmux for the metadata chunks).
 *
 * Read: lossy and lossless still images, with or without alpha, as 8-bit
 * RGB (WebP has no grey: a grey image comes back as RGB) and an alpha
 * plane; an animation is refused by name.  Whether the file was lossless
 * is kept (jf_picture.compression) so that it is written back lossless.
 *
 * Write: 8-bit grey (as RGB), RGB, with alpha; lossy at the quality asked
 * for, or lossless (the exact values, under transparent pixels too); at
 * most 16383 pixels a side, as the format allows.
 *
 * Metadata kept: the ICC profile, EXIF and XMP chunks.
 *
 * Before libwebp sees a file, jf_webp_prescan walks its RIFF chunks: each
 * inside the file, the metadata against jf_limits, the canvas against the
 * pixel limit.
 */
#include "io/io.h"
#include "core/errors.h"
#include "core/image.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef JF_HAVE_WEBP
#include <webp/decode.h>
#include <webp/encode.h>
#include <webp/mux.h>
#endif

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static uint32_t le24(const unsigned char *p) { return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16); }

jf_status jf_webp_prescan(const unsigned char *b, size_t size, jf_webp_scan *s)
{
    const jf_limits lim = jf_get_limits();
    size_t at = 12, end;
    memset(s, 0, sizeof *s);
    if (size < 12 || memcmp(b, "RIFF", 4) != 0 || memcmp(b + 8, "WEBP", 4) != 0)
        return jf_fail(JF_ERR_DECODE, "not a WebP file");
    end = (size_t)le32(b + 4) + 8;
    if (end > size)
        return jf_fail(JF_ERR_DECODE, "WebP file cut short (%zu of %zu bytes)", size, end);
    while (at + 8 <= end) {
        const unsigned char *c = b + at;
        const size_t n = le32(c + 4), padded = n + (n & 1);
        if (padded > end - at - 8)
            return jf_fail(JF_ERR_DECODE, "WebP chunk %.4s runs past the end of the file", (const char *)c);
        if (memcmp(c, "ICCP", 4) == 0 || memcmp(c, "EXIF", 4) == 0 || memcmp(c, "XMP ", 4) == 0) {
            if (n > lim.max_chunk_bytes)
                return jf_fail(JF_ERR_LIMIT, "WebP %.4s chunk of %zu bytes, over the limit of %llu",
                               (const char *)c, n, (unsigned long long)lim.max_chunk_bytes);
            s->metadata_bytes += n;
        } else if (memcmp(c, "VP8X", 4) == 0 && n >= 10) {
            s->width = le24(c + 12) + 1;
            s->height = le24(c + 15) + 1;
            s->animated = (c[8] & 0x02) != 0;
        } else if (memcmp(c, "ANIM", 4) == 0 || memcmp(c, "ANMF", 4) == 0) {
            s->animated = 1;
        } else if (memcmp(c, "VP8L", 4) == 0) {
            s->lossless = 1;
            if (!s->width && n >= 5) {
                const uint32_t bits = le32(c + 9);
                s->width = (bits & 0x3FFF) + 1;
                s->height = ((bits >> 14) & 0x3FFF) + 1;
            }
        } else if (memcmp(c, "VP8 ", 4) == 0 && !s->width && n >= 10) {
            s->width = (uint32_t)(c[14] | (c[15] << 8)) & 0x3FFF;
            s->height = (uint32_t)(c[16] | (c[17] << 8)) & 0x3FFF;
        }
        at += 8 + padded;
    }
    if (s->metadata_bytes > lim.max_metadata_bytes)
        return jf_fail(JF_ERR_LIMIT, "WebP: %llu bytes of metadata, over the limit of %llu",
                       (unsigned long long)s->metadata_bytes, (unsigned long long)lim.max_metadata_bytes);
    if (s->width < 1 || s->height < 1)
        return jf_fail(JF_ERR_DECODE, "no image size in the WebP file");
    if ((uint64_t)s->width * s->height > lim.max_pixels)
        return jf_fail(JF_ERR_LIMIT, "WebP image is %ux%u, over the limit of %llu pixels", s->width,
                       s->height, (unsigned long long)lim.max_pixels);
    return JF_OK;
}

#ifndef JF_HAVE_WEBP

static jf_status no_webp(void)
{
    return jf_fail(JF_ERR_UNSUPPORTED, "this jetfilter was built without WebP (libwebp): "
                   "rebuild with libwebp-dev installed");
}

jf_status jf_webp_decode(jf_context *frame_ctx, const unsigned char *bytes, size_t size, jf_picture *pic)
{
    (void)frame_ctx; (void)bytes; (void)size; (void)pic;
    return no_webp();
}

jf_status jf_webp_encode(const jf_picture *pic, int quality, int lossless, unsigned char **out,
                         size_t *out_size)
{
    (void)pic; (void)quality; (void)lossless; (void)out; (void)out_size;
    return no_webp();
}

#else

static jf_status copy_chunk(const WebPMux *mux, const char *fourcc, unsigned char **dst, size_t *n)
{
    WebPData d;
    if (WebPMuxGetChunk(mux, fourcc, &d) != WEBP_MUX_OK || d.size == 0)
        return JF_OK;
    if (!(*dst = (unsigned char *)malloc(d.size)))
        return jf_fail(JF_ERR_NOMEM, "out of memory for WebP metadata");
    memcpy(*dst, d.bytes, d.size);
    *n = d.size;
    return JF_OK;
}

static jf_status read_metadata(const unsigned char *bytes, size_t size, jf_picture *pic)
{
    WebPData data;
    WebPMux *mux;
    unsigned char *xmp = NULL;
    size_t xmp_size = 0;
    jf_status st;
    data.bytes = bytes;
    data.size = size;
    if (!(mux = WebPMuxCreate(&data, 0))) {
        jf_warn("WebP metadata not read (the container is damaged)");
        return JF_OK;
    }
    if ((st = copy_chunk(mux, "ICCP", &pic->icc, &pic->icc_size)) == JF_OK &&
        (st = copy_chunk(mux, "EXIF", &pic->exif, &pic->exif_size)) == JF_OK &&
        (st = copy_chunk(mux, "XMP ", &xmp, &xmp_size)) == JF_OK && xmp)
        st = jf_picture_add_blob(pic, 1, "XML:com.adobe.xmp", xmp, xmp_size);
    WebPMuxDelete(mux);
    free(xmp);
    /* some writers keep JPEG's "Exif\0\0" before the TIFF bytes */
    if (st == JF_OK && pic->exif && pic->exif_size > 6 && memcmp(pic->exif, "Exif\0\0", 6) == 0) {
        memmove(pic->exif, pic->exif + 6, pic->exif_size - 6);
        pic->exif_size -= 6;
    }
    return st;
}

jf_status jf_webp_decode(jf_context *frame_ctx, const unsigned char *bytes, size_t size, jf_picture *pic)
{
    WebPBitstreamFeatures f;
    jf_webp_scan scan;
    unsigned char *rgba = NULL;
    jf_status st;
    int x, y;
    if ((st = jf_webp_prescan(bytes, size, &scan)) != JF_OK)
        return st;
    if (WebPGetFeatures(bytes, size, &f) != VP8_STATUS_OK)
        return jf_fail(JF_ERR_DECODE, "WebP header damaged");
    if (f.has_animation)
        return jf_fail(JF_ERR_UNSUPPORTED, "an animated WebP: jetfilter filters still images");
    if (f.width < 1 || f.height < 1 || (uint64_t)f.width * (uint64_t)f.height > jf_get_limits().max_pixels)
        return jf_fail(JF_ERR_LIMIT, "WebP image is %dx%d, over the pixel limit", f.width, f.height);
    if ((st = jf_picture_alloc_color(frame_ctx, pic, f.width, f.height, 3, JF_SAMPLE_U8)) != JF_OK ||
        (f.has_alpha && (st = jf_image_alloc(&pic->alpha, f.width, f.height, 1)) != JF_OK))
        goto fail;
    if (!f.has_alpha) {
        if (!WebPDecodeRGBInto(bytes, size, pic->color.data, pic->color.stride * (size_t)f.height,
                               (int)pic->color.stride)) {
            st = jf_fail(JF_ERR_DECODE, "WebP image data damaged");
            goto fail;
        }
    } else {
        if (!(rgba = (unsigned char *)malloc((size_t)f.width * (size_t)f.height * 4))) {
            st = jf_fail(JF_ERR_NOMEM, "out of memory for a %dx%d WebP", f.width, f.height);
            goto fail;
        }
        if (!WebPDecodeRGBAInto(bytes, size, rgba, (size_t)f.width * (size_t)f.height * 4, f.width * 4)) {
            st = jf_fail(JF_ERR_DECODE, "WebP image data damaged");
            goto fail;
        }
        for (y = 0; y < f.height; y++) {
            const unsigned char *s = rgba + (size_t)y * (size_t)f.width * 4;
            unsigned char *d = pic->color.data + (size_t)y * pic->color.stride;
            unsigned char *a = pic->alpha.data + (size_t)y * pic->alpha.stride;
            for (x = 0; x < f.width; x++, s += 4) {
                memcpy(d + 3 * x, s, 3);
                a[x] = s[3];
            }
        }
        free(rgba);
        rgba = NULL;
    }
    if ((st = read_metadata(bytes, size, pic)) != JF_OK)
        goto fail;
    pic->format = JF_FORMAT_WEBP;
    pic->compression = scan.lossless && f.format == 2; /* WebPBitstreamFeatures::format: 2 lossless */
    pic->pages = 1;
    return JF_OK;
fail:
    free(rgba);
    jf_image_free(&pic->color);
    jf_image_free(&pic->alpha);
    return st;
}

/* The picture as interleaved 8-bit RGB or RGBA rows (grey repeated). */
static unsigned char *interleave(const jf_picture *pic, int *stride)
{
    const jf_image *c = &pic->color;
    const int n = pic->alpha.data ? 4 : 3;
    unsigned char *buf = (unsigned char *)malloc((size_t)c->width * (size_t)c->height * (size_t)n);
    int x, y, k;
    if (!buf)
        return NULL;
    for (y = 0; y < c->height; y++) {
        const unsigned char *s = c->data + (size_t)y * c->stride;
        const unsigned char *a = pic->alpha.data ? pic->alpha.data + (size_t)y * pic->alpha.stride : NULL;
        unsigned char *d = buf + (size_t)y * (size_t)c->width * (size_t)n;
        for (x = 0; x < c->width; x++, d += n) {
            for (k = 0; k < 3; k++)
                d[k] = c->channels == 1 ? s[x] : s[3 * x + k];
            if (a)
                d[3] = a[x];
        }
    }
    *stride = c->width * n;
    return buf;
}

/* The bitstream wrapped with the metadata chunks; `*out` replaced. */
static jf_status add_metadata(const jf_picture *pic, unsigned char **out, size_t *out_size)
{
    WebPMux *mux;
    WebPData image, chunk, whole;
    const jf_blob *xmp = NULL;
    int i, other = 0, ok;
    for (i = 0; i < pic->extra_count; i++) {
        if (!xmp && strcmp(pic->extra[i].key, "XML:com.adobe.xmp") == 0)
            xmp = &pic->extra[i];
        else
            other++;
    }
    if (other)
        jf_warn("%d metadata item%s (JPEG markers, text) not written: WebP keeps ICC, EXIF and XMP",
                other, other == 1 ? "" : "s");
    if (!pic->icc && !pic->exif && !xmp)
        return JF_OK;
    if (!(mux = WebPMuxNew()))
        return jf_fail(JF_ERR_NOMEM, "out of memory");
    image.bytes = *out;
    image.size = *out_size;
    ok = WebPMuxSetImage(mux, &image, 0) == WEBP_MUX_OK;
    if (ok && pic->icc) {
        chunk.bytes = pic->icc;
        chunk.size = pic->icc_size;
        ok = WebPMuxSetChunk(mux, "ICCP", &chunk, 0) == WEBP_MUX_OK;
    }
    if (ok && pic->exif) {
        chunk.bytes = pic->exif;
        chunk.size = pic->exif_size;
        ok = WebPMuxSetChunk(mux, "EXIF", &chunk, 0) == WEBP_MUX_OK;
    }
    if (ok && xmp) {
        chunk.bytes = xmp->data;
        chunk.size = xmp->size;
        ok = WebPMuxSetChunk(mux, "XMP ", &chunk, 0) == WEBP_MUX_OK;
    }
    memset(&whole, 0, sizeof whole);
    ok = ok && WebPMuxAssemble(mux, &whole) == WEBP_MUX_OK;
    WebPMuxDelete(mux);
    if (!ok)
        return jf_fail(JF_ERR_ENCODE, "WebP: the metadata chunks could not be added");
    free(*out);
    if (!(*out = (unsigned char *)malloc(whole.size))) {
        WebPDataClear(&whole);
        return jf_fail(JF_ERR_NOMEM, "out of memory");
    }
    memcpy(*out, whole.bytes, whole.size);
    *out_size = whole.size;
    WebPDataClear(&whole);
    return JF_OK;
}

jf_status jf_webp_encode(const jf_picture *pic, int quality, int lossless, unsigned char **out,
                         size_t *out_size)
{
    const jf_image *c = &pic->color;
    WebPConfig config;
    WebPPicture wp;
    WebPMemoryWriter writer;
    unsigned char *rgb;
    jf_status st = JF_OK;
    int stride, ok;
    if (c->sample != JF_SAMPLE_U8)
        return jf_fail(JF_ERR_UNSUPPORTED, "a 16-bit image cannot be written as WebP (8 bits per "
                       "sample): write PNG or TIFF, or convert it to 8 bits first (jetfilter: --depth 8)");
    if (pic->color_model == JF_COLOR_CMYK)
        return jf_fail(JF_ERR_UNSUPPORTED, "a CMYK image cannot be written as WebP: write JPEG or "
                       "TIFF, or convert it to RGB first (jetfilter: --cmyk-to-rgb)");
    if (c->width > WEBP_MAX_DIMENSION || c->height > WEBP_MAX_DIMENSION)
        return jf_fail(JF_ERR_UNSUPPORTED, "a %dx%d image is too large for WebP (at most %d pixels "
                       "a side): write PNG or TIFF", c->width, c->height, WEBP_MAX_DIMENSION);
    if (!WebPConfigInit(&config) || !WebPPictureInit(&wp))
        return jf_fail(JF_ERR_ENCODE, "WebP encoder: library version mismatch");
    config.lossless = lossless;
    config.quality = lossless ? 75.0f : (float)quality;
    config.method = 4;
    config.exact = lossless; /* WebPConfig::exact: lossless keeps the colour under transparent pixels */
    wp.use_argb = lossless;
    wp.width = c->width;
    wp.height = c->height;
    if (!(rgb = interleave(pic, &stride)))
        return jf_fail(JF_ERR_NOMEM, "out of memory");
    ok = pic->alpha.data ? WebPPictureImportRGBA(&wp, rgb, stride) : WebPPictureImportRGB(&wp, rgb, stride);
    free(rgb);
    if (!ok) {
        WebPPictureFree(&wp);
        return jf_fail(JF_ERR_NOMEM, "out of memory for the WebP encoder");
    }
    WebPMemoryWriterInit(&writer);
    wp.writer = WebPMemoryWrite;
    wp.custom_ptr = &writer;
    if (!WebPEncode(&config, &wp)) {
        st = jf_fail(JF_ERR_ENCODE, "WebP encoder failed (error %d)", (int)wp.error_code);
        WebPPictureFree(&wp);
        WebPMemoryWriterClear(&writer);
        return st;
    }
    WebPPictureFree(&wp);
    /* into memory of our own, which the caller frees with free() */
    if (!(*out = (unsigned char *)malloc(writer.size ? writer.size : 1))) {
        WebPMemoryWriterClear(&writer);
        return jf_fail(JF_ERR_NOMEM, "out of memory");
    }
    memcpy(*out, writer.mem, writer.size);
    *out_size = writer.size;
    WebPMemoryWriterClear(&writer);
    if ((st = add_metadata(pic, out, out_size)) != JF_OK) {
        free(*out);
        *out = NULL;
        *out_size = 0;
    }
    return st;
}

#endif
