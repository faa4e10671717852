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
    return JF_FORMAT_UNKNOWN;
}

const char *jf_format_name(jf_format f)
{
    switch (f) {
    case JF_FORMAT_JPEG: return "jpeg";
    case JF_FORMAT_PNG: return "png";
    default: return "unknown";
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
    jf_status st;
    memset(p, 0, sizeof *p);
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
    } else {
        return jf_fail(JF_ERR_DECODE, "not a JPEG or PNG file");
    }
    if (p->width < 1 || p->height < 1 || p->channels < 1)
        return jf_fail(JF_ERR_DECODE, "no image size in the file");
    /* pixels as decoded; a progressive JPEG also keeps every coefficient (2
     * bytes each, up to 3 components at full resolution) until the last scan */
    p->sample_bytes = p->format == JF_FORMAT_PNG && ps.depth == 16 ? 2 : 1;
    p->decode_bytes = (uint64_t)p->width * p->height * (uint64_t)p->channels * (uint64_t)p->sample_bytes;
    if (p->progressive)
        p->decode_bytes += (uint64_t)p->width * p->height * 2u * (uint64_t)p->channels;
    return JF_OK;
}

jf_status jf_picture_alloc_color(jf_context *frame_ctx, jf_picture *pic, int width, int height,
                                 int channels, jf_sample sample)
{
    return frame_ctx ? jf_context_frame_as(frame_ctx, 0, width, height, channels, sample, &pic->color)
                     : jf_image_alloc_as(&pic->color, width, height, channels, sample);
}

static jf_status decode(jf_context *frame_ctx, const unsigned char *bytes, size_t size,
                        const char *name, jf_picture *pic)
{
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
    switch (jf_sniff_format(bytes, size)) {
    case JF_FORMAT_JPEG: st = jf_jpeg_decode(frame_ctx, bytes, size, pic); break;
    case JF_FORMAT_PNG: st = jf_png_decode(frame_ctx, bytes, size, pic); break;
    default:
        return jf_fail(JF_ERR_DECODE, "%s: not a JPEG or PNG file", name);
    }
    if (st != JF_OK) {
        jf_picture_free(pic);
        jf_error_prefix(name);
    }
    return st;
}

jf_status jf_picture_decode(const unsigned char *bytes, size_t size, const char *name,
                            jf_picture *pic)
{
    return decode(NULL, bytes, size, name, pic);
}

jf_status jf_picture_decode_frame(jf_context *ctx, const unsigned char *bytes, size_t size,
                                  const char *name, jf_picture *pic)
{
    if (!ctx)
        return jf_fail(JF_ERR_ARG, "jf_picture_decode_frame: ctx is NULL");
    return decode(ctx, bytes, size, name, pic);
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
        o->format = pic->format == JF_FORMAT_JPEG ? JF_FORMAT_JPEG : JF_FORMAT_PNG;
        return JF_OK;
    }
    return jf_options_read(fn, "jf_encode_defaults", o, sizeof *o, user);
}

/* What the encoders can be handed: grey or RGB at 8 or 16 bits, CMYK at 8,
 * alpha of the colour's depth. */
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
    if ((st = check_layout(pic)) != JF_OK)
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
    default:
        return jf_fail(JF_ERR_ARG, "jf_picture_encode: unknown output format");
    }
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
    /* on the CPU: the pixels come down into frame 1 first */
    host = *pic;
    if ((st = jf_context_frame_as(ctx, 1, pic->color.width, pic->color.height,
                                  pic->color.channels, pic->color.sample, &host.color)) != JF_OK ||
        (st = jf_image_transfer(ctx, &pic->color, &host.color)) != JF_OK)
        return st;
    return jf_picture_encode(&host, &o, bytes, size);
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
