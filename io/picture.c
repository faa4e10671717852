/* Pictures: format sniffing, decode/encode dispatch, metadata blobs. */
#include "io/io.h"
#include "core/errors.h"
#include "core/image.h"
#include "core/options.h"

#include <stdlib.h>
#include <string.h>


jf_format jf_sniff_format(const unsigned char *b, size_t n)
{
    static const unsigned char png_magic[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    if (!b)
        return JF_FORMAT_UNKNOWN;
    if (n >= 3 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF)
        return JF_FORMAT_JPEG;
    if (n >= 8 && memcmp(b, png_magic, 8) == 0)
        return JF_FORMAT_PNG;
    if (n >= 4 && ((b[0] == 'I' && b[1] == 'I' && (b[2] == 42 || b[2] == 43) && b[3] == 0) ||
                   (b[0] == 'M' && b[1] == 'M' && b[2] == 0 && (b[3] == 42 || b[3] == 43))))
        return JF_FORMAT_TIFF;
    if (n >= 12 && memcmp(b, "RIFF", 4) == 0 && memcmp(b + 8, "WEBP", 4) == 0)
        return JF_FORMAT_WEBP;
    if (n >= 3 && b[0] == 'P' && (b[1] == 'F' || b[1] == 'f') &&
        (b[2] == '\n' || b[2] == ' ' || b[2] == '\r' || b[2] == '\t'))
        return JF_FORMAT_PFM;
    return JF_FORMAT_UNKNOWN;
}

const char *jf_format_name(jf_format f)
{
    switch (f) {
    case JF_FORMAT_JPEG: return "jpeg";
    case JF_FORMAT_PNG: return "png";
    case JF_FORMAT_TIFF: return "tiff";
    case JF_FORMAT_WEBP: return "webp";
    case JF_FORMAT_PFM: return "pfm";
    default: return "unknown";
    }
}

int jf_format_supported(jf_format f)
{
    switch (f) {
    case JF_FORMAT_JPEG: case JF_FORMAT_PNG: case JF_FORMAT_PFM: return 1;
#ifdef JF_HAVE_TIFF
    case JF_FORMAT_TIFF: return 1;
#endif
#ifdef JF_HAVE_WEBP
    case JF_FORMAT_WEBP: return 1;
#endif
    default: return 0;
    }
}

jf_status jf_picture_add_blob(jf_picture *pic, int tag, const char *key,
                              const unsigned char *data, size_t size)
{
    jf_blob *grown, *b;
    grown = (jf_blob *)realloc(pic->extra, (size_t)(pic->extra_count + 1) * sizeof *grown);
    if (!grown)
        return jf_fail(JF_ERR_NOMEM, "out of memory for metadata");
    pic->extra = grown;
    b = &pic->extra[pic->extra_count];
    memset(b, 0, sizeof *b);
    /* one spare byte: PNG text must be NUL-terminated for libpng */
    b->data = (unsigned char *)malloc(size + 1);
    if (!b->data)
        return jf_fail(JF_ERR_NOMEM, "out of memory for metadata");
    if (size)
        memcpy(b->data, data, size);
    b->data[size] = '\0';
    b->size = size;
    b->tag = tag;
    if (key) {
        strncpy(b->key, key, sizeof b->key - 1);
        b->key[sizeof b->key - 1] = '\0';
    }
    pic->extra_count++;
    return JF_OK;
}

void jf_picture_free(jf_picture *pic)
{
    int i;
    if (!pic)
        return;
    jf_image_free(&pic->color);
    jf_image_free(&pic->alpha);
    free(pic->icc);
    free(pic->exif);
    for (i = 0; i < pic->extra_count; i++)
        free(pic->extra[i].data);
    free(pic->extra);
    memset(pic, 0, sizeof *pic);
}

jf_status jf_picture_probe(const unsigned char *bytes, size_t size, jf_probe *p)
{
    jf_png_scan ps;
    jf_jpeg_scan js;
    jf_tiff_scan ts;
    jf_webp_scan ws;
    jf_pfm_scan fs;
    jf_status st;
    memset(p, 0, sizeof *p);
    memset(&ps, 0, sizeof ps);
    p->pages = 1;
    p->format = jf_sniff_format(bytes, size);
    if (p->format == JF_FORMAT_PNG) {
        static const int channels[7] = {1, 0, 3, 3, 2, 0, 4};
        if ((st = jf_png_prescan(bytes, size, &ps)) != JF_OK)
            return st;
        p->width = (int)ps.width;
        p->height = (int)ps.height;
        p->channels = ps.color_type <= 6 ? channels[ps.color_type] : 4;
        p->channels += p->channels < 4 && ps.transparency ? 1 : 0; /* tRNS: alpha */
    } else if (p->format == JF_FORMAT_JPEG) {
        if ((st = jf_jpeg_prescan(bytes, size, &js)) != JF_OK)
            return st;
        p->width = js.width;
        p->height = js.height;
        p->channels = js.components;
        p->progressive = js.progressive;
    } else if (p->format == JF_FORMAT_TIFF) {
        if ((st = jf_tiff_prescan(bytes, size, &ts)) != JF_OK)
            return st;
        p->width = (int)ts.width;
        p->height = (int)ts.height;
        p->channels = ts.samples > 4 ? 4 : ts.samples;
        p->pages = ts.pages;
        p->sample_bytes = ts.bits == 32 && ts.sample_format == 3 ? 4 : ts.bits == 16 ? 2 : 1;
    } else if (p->format == JF_FORMAT_WEBP) {
        if ((st = jf_webp_prescan(bytes, size, &ws)) != JF_OK)
            return st;
        p->width = (int)ws.width;
        p->height = (int)ws.height;
        p->channels = 4; /* RGB, and alpha the container may declare */
    } else if (p->format == JF_FORMAT_PFM) {
        if ((st = jf_pfm_prescan(bytes, size, &fs)) != JF_OK)
            return st;
        p->width = (int)fs.width;
        p->height = (int)fs.height;
        p->channels = fs.channels;
        p->sample_bytes = 4;
    } else {
        return jf_fail(JF_ERR_DECODE, "not a JPEG, PNG, TIFF, WebP or PFM file");
    }
    if (p->width < 1 || p->height < 1 || p->channels < 1)
        return jf_fail(JF_ERR_DECODE, "no image size in the file");
    /* pixels as decoded; a progressive JPEG also keeps every coefficient (2
     * bytes each, up to 3 components at full resolution) until the last scan */
    if (p->format == JF_FORMAT_PNG)
        p->sample_bytes = ps.depth == 16 ? 2 : 1;
    else if (!p->sample_bytes)
        p->sample_bytes = 1;
    p->decode_bytes = (uint64_t)p->width * p->height * (uint64_t)p->channels * (uint64_t)p->sample_bytes;
    if (p->progressive)
        p->decode_bytes += (uint64_t)p->width * p->height * 2u * (uint64_t)p->channels;
    if (p->format == JF_FORMAT_PNG && jf_png_has_libdeflate()) /* inflated whole, chunks joined */
        p->decode_bytes += (uint64_t)p->height * (1 + (uint64_t)p->width * (uint64_t)p->channels *
                                                      (uint64_t)p->sample_bytes) + ps.idat_bytes;
    if (p->format == JF_FORMAT_TIFF) /* the samples as stored, read whole before they are split */
        p->decode_bytes += ts.largest_page_bytes > (uint64_t)p->width * p->height * 4u
                               ? ts.largest_page_bytes : (uint64_t)p->width * p->height * 4u;
    return JF_OK;
}

jf_status jf_picture_alloc_color(jf_context *frame_ctx, jf_picture *pic, int width, int height,
                                 int channels, jf_sample sample)
{
    return frame_ctx ? jf_context_frame_as(frame_ctx, 0, width, height, channels, sample, &pic->color)
                     : jf_image_alloc_as(&pic->color, width, height, channels, sample);
}

static jf_status decode(jf_context *frame_ctx, const unsigned char *bytes, size_t size,
                        const char *name, int page, jf_picture *pic)
{
    jf_format format;
    jf_status st;
    if (!pic)
        return jf_fail(JF_ERR_ARG, "jf_picture_decode: pic is NULL");
    memset(pic, 0, sizeof *pic);
    jf_warning_clear();
    if (!name)
        name = "<memory>";
    if (!bytes || size == 0) {
        st = jf_fail(JF_ERR_DECODE, "%s: empty file", name);
        return st;
    }
    format = jf_sniff_format(bytes, size);
    if (page < 0 || (page > 0 && format != JF_FORMAT_TIFF))
        return jf_fail(JF_ERR_ARG, "%s: page %d asked of a file with one page", name, page + 1);
    switch (format) {
    case JF_FORMAT_JPEG: st = jf_jpeg_decode(frame_ctx, bytes, size, pic); break;
    case JF_FORMAT_PNG: st = jf_png_decode(frame_ctx, bytes, size, pic); break;
    case JF_FORMAT_TIFF: st = jf_tiff_decode(frame_ctx, bytes, size, page, pic); break;
    case JF_FORMAT_WEBP: st = jf_webp_decode(frame_ctx, bytes, size, pic); break;
    case JF_FORMAT_PFM: st = jf_pfm_decode(frame_ctx, bytes, size, pic); break;
    default:
        return jf_fail(JF_ERR_DECODE, "%s: not a JPEG, PNG, TIFF, WebP or PFM file", name);
    }
    if (st == JF_OK && !pic->pages)
        pic->pages = 1;
    if (st != JF_OK) {
        jf_picture_free(pic);
        jf_error_prefix(name);
    }
    return st;
}

jf_status jf_picture_decode(const unsigned char *bytes, size_t size, const char *name,
                            jf_picture *pic)
{
    return decode(NULL, bytes, size, name, 0, pic);
}

jf_status jf_picture_decode_page(const unsigned char *bytes, size_t size, const char *name, int page,
                                 jf_picture *pic)
{
    return decode(NULL, bytes, size, name, page, pic);
}

jf_status jf_picture_decode_page_frame(jf_context *ctx, const unsigned char *bytes, size_t size,
                                       const char *name, int page, jf_picture *pic)
{
    if (!ctx)
        return jf_fail(JF_ERR_ARG, "jf_picture_decode_page_frame: ctx is NULL");
    return decode(ctx, bytes, size, name, page, pic);
}

jf_status jf_picture_decode_frame(jf_context *ctx, const unsigned char *bytes, size_t size,
                                  const char *name, jf_picture *pic)
{
    if (!ctx)
        return jf_fail(JF_ERR_ARG, "jf_picture_decode_frame: ctx is NULL");
    return decode(ctx, bytes, size, name, 0, pic);
}

jf_status jf_picture_read(const char *path, jf_picture *pic)
{
    unsigned char *bytes = NULL;
    size_t size = 0;
    jf_status st;
    if (pic)
        memset(pic, 0, sizeof *pic);
    st = jf_read_file(path, (size_t)jf_get_limits().max_file_bytes, &bytes, &size);
    if (st == JF_OK)
        st = jf_picture_decode(bytes, size, path, pic);
    free(bytes);
    return st;
}

jf_encode_options jf_encode_defaults(void)
{
    jf_encode_options o = JF_ENCODE_OPTIONS_INIT;
    return o;
}

/* The caller's encode options over the defaults; none given: the defaults
 * in the picture's own format. */
static jf_status encode_options(const char *fn, const jf_picture *pic,
                                const jf_encode_options *user, jf_encode_options *o)
{
    *o = jf_encode_defaults();
    if (!user) {
        o->format = pic->format != JF_FORMAT_UNKNOWN && pic->format < JF_FORMAT_COUNT ? pic->format
                                                                                      : JF_FORMAT_PNG;
        return JF_OK;
    }
    return jf_options_read(fn, "jf_encode_defaults", o, sizeof *o, user);
}

/* What the encoders can be handed: grey or RGB at 8 or 16 bits or float32,
 * CMYK at 8, alpha of the colour's depth; float32 in TIFF and PFM only,
 * PFM float32 only (in grey or RGB: check_layout). */
static jf_status check_sample(const jf_picture *pic, jf_format format)
{
    const jf_sample sample = pic->color.sample;
    if (sample == JF_SAMPLE_F32 &&
        (format == JF_FORMAT_PNG || format == JF_FORMAT_JPEG || format == JF_FORMAT_WEBP))
        return jf_fail(JF_ERR_UNSUPPORTED, "%s holds %s, not float32: write TIFF or PFM (.tif, "
                       ".pfm), or convert it first (jetfilter: --depth 8 or 16, values 0..1 "
                       "scaled to the full range)", format == JF_FORMAT_PNG ? "PNG" : format ==
                       JF_FORMAT_JPEG ? "JPEG" : "WebP", format == JF_FORMAT_PNG
                       ? "8- and 16-bit samples" : "8-bit samples");
    if (sample != JF_SAMPLE_F32 && format == JF_FORMAT_PFM)
        return jf_fail(JF_ERR_UNSUPPORTED, "PFM holds float32 samples, not %d-bit ones: write PNG "
                       "or TIFF, or convert it first (jetfilter: --depth float)",
                       sample == JF_SAMPLE_U16 ? 16 : 8);
    return JF_OK;
}

static jf_status check_layout(const jf_picture *pic)
{
    const jf_image *c = &pic->color;
    if (!jf_sample_size(c->sample) || c->stride < jf_row_bytes(c))
        return jf_fail(JF_ERR_ARG, "jf_picture_encode: unknown sample type or short stride");
    if (pic->color_model == JF_COLOR_CMYK) {
        if (c->channels != 4 || c->sample != JF_SAMPLE_U8)
            return jf_fail(JF_ERR_ARG, "jf_picture_encode: CMYK needs 4 channels of 8 bits");
    } else if (pic->color_model != JF_COLOR_DEFAULT) {
        return jf_fail(JF_ERR_ARG, "jf_picture_encode: unknown colour model %d",
                       (int)pic->color_model);
    } else if (c->channels != 1 && c->channels != 3) {
        return jf_fail(JF_ERR_ARG, "jf_picture_encode: %d colour channels (1 or 3 expected)",
                       c->channels);
    }
    if (pic->alpha.data && (pic->alpha.sample != c->sample || pic->alpha.channels != 1))
        return jf_fail(JF_ERR_ARG, "jf_picture_encode: the alpha plane must be one channel of "
                       "the colour's depth");
    return JF_OK;
}

jf_status jf_picture_encode(const jf_picture *pic, const jf_encode_options *user,
                            unsigned char **bytes, size_t *size)
{
    jf_encode_options o;
    const jf_encode_options *opt = &o;
    jf_status st;
    if (!pic || !bytes || !size || !pic->color.data)
        return jf_fail(JF_ERR_ARG, "jf_picture_encode: NULL argument");
    jf_warning_clear();
    *bytes = NULL;
    *size = 0;
    if ((st = encode_options("jf_picture_encode", pic, user, &o)) != JF_OK)
        return st;
    if (pic->color.location == JF_LOC_DEVICE) /* managed: the CPU reads it once the GPU is done */
        return jf_fail(JF_ERR_ARG, "jf_picture_encode: image is in device memory (copy it to the host first)");
    if ((st = check_layout(pic)) != JF_OK || (st = check_sample(pic, opt->format)) != JF_OK)
        return st;
    switch (opt->format) {
    case JF_FORMAT_JPEG:
        if (opt->quality < 1 || opt->quality > 100)
            return jf_fail(JF_ERR_ARG, "JPEG quality %d outside 1..100", opt->quality);
        if (pic->color.sample != JF_SAMPLE_U8)
            return jf_fail(JF_ERR_UNSUPPORTED, "a 16-bit image cannot be written as JPEG (8 bits "
                           "per sample): write PNG, or convert it to 8 bits first "
                           "(jetfilter: --depth 8)");
        return jf_jpeg_encode(pic, opt->quality, bytes, size);
    case JF_FORMAT_PNG:
        if (pic->color_model == JF_COLOR_CMYK)
            return jf_fail(JF_ERR_UNSUPPORTED, "a CMYK image cannot be written as PNG (PNG has no "
                           "CMYK): write JPEG, or convert it to RGB first (jetfilter: --cmyk-to-rgb)");
        if (opt->png_level < -1 || opt->png_level > 9)
            return jf_fail(JF_ERR_ARG, "PNG compression level %d outside 0..9 (-1: the default)",
                           opt->png_level);
        if (opt->png_filter < 0 || opt->png_filter >= JF_PNG_FILTER_COUNT)
            return jf_fail(JF_ERR_ARG, "PNG filter %d is not a jf_png_filter", opt->png_filter);
        return jf_png_encode(pic, opt->png_level < 0 ? JF_PNG_DEFAULT_LEVEL : opt->png_level,
                             opt->png_filter == JF_PNG_FILTER_DEFAULT ? JF_PNG_DEFAULT_FILTER
                                                                      : (jf_png_filter)opt->png_filter,
                             bytes, size);
    case JF_FORMAT_TIFF:
    case JF_FORMAT_WEBP: {
        jf_page_writer *w;
        if ((st = jf_pages_begin(opt, 1, &w)) != JF_OK)
            return st;
        if ((st = jf_pages_add(w, pic)) != JF_OK) {
            jf_pages_end(w, NULL, NULL);
            return st;
        }
        return jf_pages_end(w, bytes, size);
    }
    case JF_FORMAT_PFM:
        return jf_pfm_encode(pic, bytes, size);
    default:
        return jf_fail(JF_ERR_ARG, "jf_picture_encode: unknown output format %d", (int)opt->format);
    }
}

/* ---- Pages: TIFF's several, the others' one ------------------------------ */

struct jf_page_writer {
    jf_encode_options opt;
    jf_tiff_writer *tiff;
    unsigned char *one; /* another format's single page, encoded */
    size_t one_size;
    int pages, added;
};

static jf_status check_options(const jf_encode_options *o)
{
    if (o->format <= JF_FORMAT_UNKNOWN || o->format >= JF_FORMAT_COUNT)
        return jf_fail(JF_ERR_ARG, "unknown output format %d", (int)o->format);
    if (!jf_format_supported(o->format))
        return jf_fail(JF_ERR_UNSUPPORTED, "this jetfilter was built without %s: rebuild with %s "
                       "installed", o->format == JF_FORMAT_TIFF ? "TIFF" : "WebP",
                       o->format == JF_FORMAT_TIFF ? "libtiff-dev" : "libwebp-dev");
    if ((o->format == JF_FORMAT_JPEG || o->format == JF_FORMAT_WEBP) && (o->quality < 1 || o->quality > 100))
        return jf_fail(JF_ERR_ARG, "%s quality %d outside 1..100",
                       o->format == JF_FORMAT_JPEG ? "JPEG" : "WebP", o->quality);
    if (o->png_level < -1 || o->png_level > 9)
        return jf_fail(JF_ERR_ARG, "compression level %d outside 0..9 (-1: the default)", o->png_level);
    if (o->tiff_compression < 0 || o->tiff_compression >= JF_TIFF_COMPRESSION_COUNT)
        return jf_fail(JF_ERR_ARG, "TIFF compression %d is not a jf_tiff_compression", o->tiff_compression);
    if (o->webp_mode < 0 || o->webp_mode >= JF_WEBP_MODE_COUNT)
        return jf_fail(JF_ERR_ARG, "WebP mode %d is not a jf_webp_mode", o->webp_mode);
    return JF_OK;
}

jf_status jf_pages_begin(const jf_encode_options *user, int pages, jf_page_writer **out)
{
    jf_page_writer *w;
    jf_status st;
    if (!out)
        return jf_fail(JF_ERR_ARG, "jf_pages_begin: writer is NULL");
    *out = NULL;
    if (!(w = (jf_page_writer *)calloc(1, sizeof *w)))
        return jf_fail(JF_ERR_NOMEM, "out of memory");
    w->opt = jf_encode_defaults();
    if ((st = jf_options_read("jf_pages_begin", "jf_encode_defaults", &w->opt, sizeof w->opt, user)) != JF_OK ||
        (st = check_options(&w->opt)) != JF_OK ||
        (w->opt.format == JF_FORMAT_TIFF && (st = jf_tiff_writer_open(pages, &w->tiff)) != JF_OK)) {
        free(w);
        return st;
    }
    w->pages = pages < 1 ? 1 : pages;
    *out = w;
    return JF_OK;
}

jf_status jf_pages_add(jf_page_writer *w, const jf_picture *pic)
{
    const jf_encode_options *o;
    jf_status st;
    if (!w || !pic || !pic->color.data)
        return jf_fail(JF_ERR_ARG, "jf_pages_add: NULL argument");
    o = &w->opt;
    if (pic->color.location == JF_LOC_DEVICE)
        return jf_fail(JF_ERR_ARG, "jf_pages_add: image is in device memory (copy it to the host first)");
    if ((st = check_layout(pic)) != JF_OK || (st = check_sample(pic, o->format)) != JF_OK)
        return st;
    if (o->format == JF_FORMAT_TIFF) {
        st = jf_tiff_writer_add(w->tiff, pic, o->tiff_compression,
                                o->png_level < 0 ? JF_PNG_DEFAULT_LEVEL : o->png_level);
    } else if (w->added > 0) {
        return jf_fail(JF_ERR_UNSUPPORTED, "%s holds one page: write TIFF to keep several",
                       jf_format_name(o->format));
    } else if (o->format == JF_FORMAT_WEBP) {
        const int lossless = o->webp_mode == JF_WEBP_LOSSLESS ||
                             (o->webp_mode == JF_WEBP_SAME && pic->format == JF_FORMAT_WEBP && pic->compression == 1);
        st = jf_webp_encode(pic, o->quality, lossless, &w->one, &w->one_size);
    } else {
        st = jf_picture_encode(pic, o, &w->one, &w->one_size);
    }
    if (st == JF_OK)
        w->added++;
    return st;
}

jf_status jf_pages_end(jf_page_writer *w, unsigned char **bytes, size_t *size)
{
    jf_status st = JF_OK;
    if (!w)
        return bytes ? jf_fail(JF_ERR_ARG, "jf_pages_end: writer is NULL") : JF_OK;
    if (bytes && (!size || w->added == 0)) {
        st = jf_fail(JF_ERR_ARG, !size ? "jf_pages_end: size is NULL" : "jf_pages_end: no page was added");
        bytes = NULL;
    }
    if (w->tiff) {
        jf_status closed = jf_tiff_writer_close(w->tiff, bytes, size);
        if (st == JF_OK)
            st = closed;
    } else if (bytes) {
        *bytes = w->one;
        *size = w->one_size;
        w->one = NULL;
    }
    free(w->one);
    free(w);
    return st;
}

/* A picture in device memory as one the CPU encoders read: its pixels
 * brought down into the context's frame 1, its metadata shared. */
static jf_status on_host(jf_context *ctx, const jf_picture *pic, jf_picture *host)
{
    jf_status st;
    *host = *pic;
    if ((st = jf_context_frame_as(ctx, 1, pic->color.width, pic->color.height, pic->color.channels,
                                  pic->color.sample, &host->color)) != JF_OK)
        return st;
    return jf_image_transfer(ctx, &pic->color, &host->color);
}

jf_status jf_picture_encode_frame(jf_context *ctx, const jf_picture *pic,
                                  const jf_encode_options *user, unsigned char **bytes,
                                  size_t *size, int *on_gpu)
{
    jf_encode_options o;
    jf_picture host;
    jf_status st;
    if (on_gpu)
        *on_gpu = 0;
    if (!ctx || !pic || !bytes || !size || !pic->color.data)
        return jf_fail(JF_ERR_ARG, "jf_picture_encode_frame: NULL argument");
    if (pic->color.location != JF_LOC_DEVICE)
        return jf_picture_encode(pic, user, bytes, size);
    if ((st = encode_options("jf_picture_encode_frame", pic, user, &o)) != JF_OK)
        return st;
    if (o.format == JF_FORMAT_JPEG && o.quality >= 1 && o.quality <= 100 &&
        (pic->color.channels == 1 || pic->color.channels == 3)) {
        jf_warning_clear();
        if (jf_nvjpeg_encode(ctx, pic, o.quality, bytes, size) == JF_OK) {
            if (on_gpu)
                *on_gpu = 1;
            return JF_OK;
        }
        jf_error_clear();
    }
    if ((st = on_host(ctx, pic, &host)) != JF_OK)
        return st;
    return jf_picture_encode(&host, &o, bytes, size);
}

jf_status jf_pages_add_frame(jf_context *ctx, jf_page_writer *w, const jf_picture *pic)
{
    jf_picture host;
    jf_status st;
    if (!ctx || !pic || !pic->color.data)
        return jf_fail(JF_ERR_ARG, "jf_pages_add_frame: NULL argument");
    if (pic->color.location != JF_LOC_DEVICE)
        return jf_pages_add(w, pic);
    if ((st = on_host(ctx, pic, &host)) != JF_OK)
        return st;
    return jf_pages_add(w, &host);
}

jf_status jf_picture_write(const char *path, const jf_picture *pic,
                           const jf_encode_options *opt)
{
    unsigned char *bytes = NULL;
    size_t size = 0;
    jf_status st = jf_picture_encode(pic, opt, &bytes, &size);
    if (st == JF_OK)
        st = jf_write_file_atomic(path, bytes, size);
    else
        jf_error_prefix(path);
    free(bytes);
    return st;
}

jf_status jf_picture_cmyk_to_rgb(jf_picture *pic)
{
    jf_image rgb = {0};
    jf_status st;
    int x, y;
    if (!pic || !pic->color.data)
        return jf_fail(JF_ERR_ARG, "jf_picture_cmyk_to_rgb: NULL picture");
    if (pic->color_model != JF_COLOR_CMYK)
        return JF_OK;
    if (pic->color.location == JF_LOC_DEVICE || pic->color.channels != 4)
        return jf_fail(JF_ERR_ARG, "jf_picture_cmyk_to_rgb: needs 4 channels in host memory");
    if ((st = jf_image_alloc(&rgb, pic->color.width, pic->color.height, 3)) != JF_OK)
        return st;
    for (y = 0; y < rgb.height; y++) {
        const unsigned char *s = pic->color.data + (size_t)y * pic->color.stride;
        unsigned char *d = rgb.data + (size_t)y * rgb.stride;
        for (x = 0; x < rgb.width; x++, s += 4, d += 3) {
            /* the white each ink leaves, 0..255: stored inverted under the Adobe marker */
            const unsigned wk = pic->jpeg_adobe ? s[3] : 255u - s[3];
            int c;
            for (c = 0; c < 3; c++) {
                const unsigned wc = pic->jpeg_adobe ? s[c] : 255u - s[c];
                d[c] = (unsigned char)((wc * wk + 127u) / 255u); /* nearest: never a tie */
            }
        }
    }
    jf_image_free(&pic->color);
    pic->color = rgb;
    pic->color_model = JF_COLOR_DEFAULT;
    pic->jpeg_ycck = pic->jpeg_adobe = 0;
    if (pic->icc) {
        free(pic->icc);
        pic->icc = NULL;
        pic->icc_size = 0;
        jf_warn("CMYK converted to RGB without its print profile; the CMYK ICC profile is not "
                "written");
    }
    return JF_OK;
}
