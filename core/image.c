/* Host image buffers with overflow-checked sizes and a pixel limit. */
#define _DEFAULT_SOURCE /* posix_memalign, madvise */
#include "core/image.h"
#include "core/context.h"
#include "core/errors.h"
#include "core/gpu.h"
#include "core/options.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

/* 2^28 pixels: 16384 x 16384, 768 MiB as RGB.  Generous for photos, yet a
 * hostile header claiming 100000 x 100000 is refused before any allocation.
 * The other limits: see jf_limits in jetfilter.h. */
static jf_limits g_limits = JF_LIMITS_INIT;

jf_limits jf_limits_defaults(void)
{
    jf_limits l = JF_LIMITS_INIT;
    return l;
}

jf_limits jf_get_limits(void) { return g_limits; }

jf_status jf_set_limits(const jf_limits *user)
{
    jf_limits l = jf_limits_defaults();
    jf_status st;
    if (!user)
        return jf_fail(JF_ERR_ARG, "jf_set_limits: limits are NULL");
    if ((st = jf_options_read("jf_set_limits", "jf_limits_defaults", &l, sizeof l, user)) != JF_OK)
        return st;
    if (!l.max_pixels || !l.max_file_bytes || !l.max_chunk_bytes || l.max_scans < 1 ||
        l.max_text_chunks < 0 || l.max_markers < 1 || l.max_pages < 0)
        return jf_fail(JF_ERR_ARG, "jf_set_limits: every limit must be positive");
    if (l.max_pages == 0) /* 1.0-1.10's reserved zero */
        l.max_pages = jf_limits_defaults().max_pages;
    g_limits = l;
    return JF_OK;
}

uint64_t jf_max_pixels(void) { return g_limits.max_pixels; }

void jf_set_max_pixels(uint64_t max_pixels) { g_limits.max_pixels = max_pixels ? max_pixels : 1; }

jf_status jf_check_dims(const char *what, uint64_t width, uint64_t height, int channels)
{
    if (width < 1 || height < 1)
        return jf_fail(JF_ERR_LIMIT, "%s: invalid dimensions %llux%llu", what,
                       (unsigned long long)width, (unsigned long long)height);
    if (channels < 1 || channels > 4)
        return jf_fail(JF_ERR_ARG, "%s: %d channels (1 to 4 supported)", what, channels);
    if (width > INT32_MAX || height > INT32_MAX || width > g_limits.max_pixels / height)
        return jf_fail(JF_ERR_LIMIT, "%s: %llux%llu exceeds the limit of %llu pixels", what,
                       (unsigned long long)width, (unsigned long long)height,
                       (unsigned long long)g_limits.max_pixels);
    if (width * height > SIZE_MAX / 4)
        return jf_fail(JF_ERR_LIMIT, "%s: image too large for this machine", what);
    return JF_OK;
}

jf_status jf_check_size(const char *what, uint64_t width, uint64_t height, int channels)
{
    if (width < 1 || height < 1 || width > INT32_MAX || height > INT32_MAX ||
        width * height > SIZE_MAX / 4 / (uint64_t)(channels > 0 ? channels : 1))
        return jf_fail(JF_ERR_LIMIT, "%s: %llux%llu is too large for this machine", what,
                       (unsigned long long)width, (unsigned long long)height);
    return JF_OK;
}

size_t jf_sample_size(jf_sample sample)
{
    return sample == JF_SAMPLE_U8 ? 1 : sample == JF_SAMPLE_U16 ? 2 : sample == JF_SAMPLE_F32 ? 4 : 0;
}

unsigned jf_sample_max(jf_sample sample)
{
    return sample == JF_SAMPLE_U8    ? 255u
           : sample == JF_SAMPLE_U16 ? 65535u
           : sample == JF_SAMPLE_F32 ? 1u
                                     : 0u;
}

const char *jf_sample_name(jf_sample sample)
{
    return sample == JF_SAMPLE_U8    ? "u8"
           : sample == JF_SAMPLE_U16 ? "u16"
           : sample == JF_SAMPLE_F32 ? "f32"
                                     : "?";
}

/* An image's bytes.  From 32 MiB, where glibc's malloc maps every block
 * anew (its largest threshold for that on 64-bit systems) and the block's
 * first writes then fault a 4 KiB page at a time, they start on a 2 MiB
 * boundary and ask Linux for transparent huge pages over their whole 2 MiB
 * stretches: 512 pages a fault (in its "madvise" mode, Debian's and
 * Ubuntu's default; nothing changes where it has none).  Smaller blocks
 * stay with malloc, which reuses their pages. */
#define JF_HUGE_PAGE ((size_t)2 << 20)
#define JF_HUGE_MIN ((size_t)32 << 20)
static unsigned char *image_bytes(size_t n)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    void *p;
    if (n >= JF_HUGE_MIN) {
        if (posix_memalign(&p, JF_HUGE_PAGE, n) != 0)
            return NULL;
        (void)madvise(p, n & ~(JF_HUGE_PAGE - 1), MADV_HUGEPAGE); /* a hint */
        return (unsigned char *)p;
    }
#endif
    return (unsigned char *)malloc(n);
}

jf_status jf_image_alloc(jf_image *img, int width, int height, int channels)
{
    return jf_image_alloc_as(img, width, height, channels, JF_SAMPLE_U8);
}

jf_status jf_image_alloc_as(jf_image *img, int width, int height, int channels,
                            jf_sample sample)
{
    jf_status st;
    size_t stride;
    if (!img)
        return jf_fail(JF_ERR_ARG, "jf_image_alloc: img is NULL");
    if (!jf_sample_size(sample))
        return jf_fail(JF_ERR_ARG, "jf_image_alloc: unknown sample type %d", (int)sample);
    if (width < 1 || height < 1)
        return jf_fail(JF_ERR_ARG, "jf_image_alloc: invalid size %dx%d", width, height);
    st = jf_check_dims("jf_image_alloc", (uint64_t)width, (uint64_t)height, channels);
    if (st != JF_OK)
        return st;
    stride = (size_t)width * (size_t)channels * jf_sample_size(sample);
    memset(img, 0, sizeof *img);
    img->data = image_bytes(stride * (size_t)height);
    if (!img->data)
        return jf_fail(JF_ERR_NOMEM, "jf_image_alloc: cannot allocate %dx%dx%d", width,
                       height, channels);
    img->width = width;
    img->height = height;
    img->channels = channels;
    img->stride = stride;
    img->location = JF_LOC_HOST;
    img->owned = 1;
    img->sample = sample;
    return JF_OK;
}

jf_image jf_image_wrap_as(void *data, int width, int height, int channels, size_t stride,
                          jf_sample sample)
{
    jf_image img = jf_image_wrap((unsigned char *)data, width, height, channels,
                                 stride ? stride : (size_t)width * (size_t)channels *
                                                       (jf_sample_size(sample) ? jf_sample_size(sample) : 1));
    img.sample = sample;
    return img;
}

jf_image jf_image_wrap(unsigned char *data, int width, int height, int channels,
                       size_t stride)
{
    jf_image img;
    memset(&img, 0, sizeof img);
    img.data = data;
    img.width = width;
    img.height = height;
    img.channels = channels;
    img.stride = stride ? stride : (size_t)width * (size_t)channels;
    img.location = JF_LOC_HOST;
    return img;
}

jf_image jf_image_wrap_device(void *data, int width, int height, int channels, size_t pitch,
                              jf_location location)
{
    jf_image img = jf_image_wrap((unsigned char *)data, width, height, channels, pitch);
    img.location = location;
    return img;
}

void jf_image_free(jf_image *img)
{
    if (!img)
        return;
    if (img->owned && img->data) {
        if (img->location == JF_LOC_HOST)
            free(img->data);
#ifdef JF_HAVE_CUDA
        else
            jf_gpu_image_free(img);
#endif
    }
    memset(img, 0, sizeof *img);
}

jf_status jf_image_alloc_on(jf_context *ctx, jf_image *img, int width, int height, int channels,
                            jf_location location)
{
    return jf_image_alloc_on_as(ctx, img, width, height, channels, location, JF_SAMPLE_U8);
}

jf_status jf_image_alloc_on_as(jf_context *ctx, jf_image *img, int width, int height,
                               int channels, jf_location location, jf_sample sample)
{
    jf_status st;
    if (!img)
        return jf_fail(JF_ERR_ARG, "jf_image_alloc_on: img is NULL");
    if (!jf_sample_size(sample))
        return jf_fail(JF_ERR_ARG, "jf_image_alloc_on: unknown sample type %d", (int)sample);
    if (location == JF_LOC_HOST)
        return jf_image_alloc_as(img, width, height, channels, sample);
    if ((unsigned)location >= JF_LOC_COUNT)
        return jf_fail(JF_ERR_ARG, "jf_image_alloc_on: unknown location %d", (int)location);
    if (width < 1 || height < 1)
        return jf_fail(JF_ERR_ARG, "jf_image_alloc_on: invalid size %dx%d", width, height);
    if ((st = jf_check_dims("jf_image_alloc_on", (uint64_t)width, (uint64_t)height, channels)) != JF_OK)
        return st;
    if (jf_context_backend(ctx) != JF_BACKEND_CUDA)
        return jf_fail(JF_ERR_NO_DEVICE, "jf_image_alloc_on: device memory needs a CUDA context");
#ifdef JF_HAVE_CUDA
    return jf_gpu_image_alloc(ctx, img, width, height, channels, sample, location);
#else
    return jf_fail(JF_ERR_NO_DEVICE, "jf_image_alloc_on: built without CUDA");
#endif
}

/* Copies need two images of one shape and one known sample type. */
static jf_status same_layout(const char *fn, const jf_image *src, const jf_image *dst)
{
    if (!src || !dst || !src->data || !dst->data)
        return jf_fail(JF_ERR_ARG, "%s: NULL image", fn);
    if (src->width != dst->width || src->height != dst->height ||
        src->channels != dst->channels || src->sample != dst->sample)
        return jf_fail(JF_ERR_ARG, "%s: shapes or sample types differ", fn);
    if (!jf_sample_size(src->sample))
        return jf_fail(JF_ERR_ARG, "%s: unknown sample type %d", fn, (int)src->sample);
    return JF_OK;
}

jf_status jf_image_transfer(jf_context *ctx, const jf_image *src, jf_image *dst)
{
    jf_status st;
    if ((st = same_layout("jf_image_transfer", src, dst)) != JF_OK)
        return st;
    if (src->location == JF_LOC_HOST && dst->location == JF_LOC_HOST)
        return jf_image_copy(src, dst);
    if (jf_context_backend(ctx) != JF_BACKEND_CUDA)
        return jf_fail(JF_ERR_NO_DEVICE, "jf_image_transfer: device memory needs a CUDA context");
#ifdef JF_HAVE_CUDA
    return jf_gpu_transfer(ctx, src, dst);
#else
    return jf_fail(JF_ERR_NO_DEVICE, "jf_image_transfer: built without CUDA");
#endif
}

jf_status jf_image_prepare(jf_image *img, int width, int height, int channels, jf_sample sample)
{
    if (!img)
        return jf_fail(JF_ERR_ARG, "output image is NULL");
    if (!img->data)
        return jf_image_alloc_as(img, width, height, channels, sample);
    if (img->width != width || img->height != height || img->channels != channels)
        return jf_fail(JF_ERR_ARG, "output image is %dx%dx%d, expected %dx%dx%d",
                       img->width, img->height, img->channels, width, height, channels);
    if (img->sample != sample)
        return jf_fail(JF_ERR_ARG, "output image has %s samples, the input %s",
                       jf_sample_name(img->sample), jf_sample_name(sample));
    if (img->stride < (size_t)width * (size_t)channels * jf_sample_size(sample))
        return jf_fail(JF_ERR_ARG, "output stride %zu is shorter than a row", img->stride);
    return JF_OK;
}

jf_status jf_image_copy(const jf_image *src, jf_image *dst)
{
    size_t row;
    int y;
    jf_status st;
    if ((st = same_layout("jf_image_copy", src, dst)) != JF_OK)
        return st;
    if (src->location == JF_LOC_DEVICE || dst->location == JF_LOC_DEVICE)
        return jf_fail(JF_ERR_ARG, "jf_image_copy: device memory; use jf_image_transfer");
    row = jf_row_bytes(src);
    for (y = 0; y < src->height; y++)
        memcpy(dst->data + (size_t)y * dst->stride, src->data + (size_t)y * src->stride, row);
    return JF_OK;
}

/* One sample as a double on the type's own scale (floats as they are). */
static double sample_at(const unsigned char *row, jf_sample t, size_t i)
{
    if (t == JF_SAMPLE_U8)
        return row[i];
    if (t == JF_SAMPLE_U16)
        return ((const uint16_t *)(const void *)row)[i];
    return ((const float *)(const void *)row)[i];
}

static void convert_row(const unsigned char *s, jf_sample from, unsigned char *d, jf_sample to,
                        size_t n)
{
    size_t x;
    if (from == JF_SAMPLE_U8 && to == JF_SAMPLE_U16) {
        uint16_t *d16 = (uint16_t *)(void *)d;
        for (x = 0; x < n; x++)
            d16[x] = (uint16_t)(s[x] * 257u);
    } else if (from == JF_SAMPLE_U16 && to == JF_SAMPLE_U8) {
        const uint16_t *s16 = (const uint16_t *)(const void *)s;
        for (x = 0; x < n; x++)
            d[x] = (unsigned char)((s16[x] + 128u) / 257u);
    } else if (to == JF_SAMPLE_F32) { /* from an integer type: 0..1 */
        const double scale = 1.0 / jf_sample_max(from);
        float *f = (float *)(void *)d;
        for (x = 0; x < n; x++)
            f[x] = (float)(sample_at(s, from, x) * scale);
    } else { /* float to an integer type: rounded, clamped, NaN to 0 */
        const double top = jf_sample_max(to);
        for (x = 0; x < n; x++) {
            const double v = sample_at(s, from, x) * top;
            const double q = v > 0 ? (v < top ? floor(v + 0.5) : top) : 0; /* NaN: 0 */
            if (to == JF_SAMPLE_U8)
                d[x] = (unsigned char)q;
            else
                ((uint16_t *)(void *)d)[x] = (uint16_t)q;
        }
    }
}

jf_status jf_image_convert(const jf_image *src, jf_image *dst)
{
    jf_status st;
    int y;
    if (!src || !dst || !src->data)
        return jf_fail(JF_ERR_ARG, "jf_image_convert: NULL image");
    if (!jf_sample_size(src->sample) || !jf_sample_size(dst->sample))
        return jf_fail(JF_ERR_ARG, "jf_image_convert: unknown sample type");
    if (src->location == JF_LOC_DEVICE || (dst->data && dst->location == JF_LOC_DEVICE))
        return jf_fail(JF_ERR_ARG, "jf_image_convert: device memory; host images only");
    if ((st = jf_image_prepare(dst, src->width, src->height, src->channels, dst->sample)) != JF_OK)
        return st;
    if (!jf_image_aligned(src) || !jf_image_aligned(dst))
        return jf_fail(JF_ERR_ARG, "jf_image_convert: data and stride must be multiples of the "
                       "sample's size");
    if (src->sample == dst->sample)
        return jf_image_copy(src, dst);
    for (y = 0; y < src->height; y++)
        convert_row(src->data + (size_t)y * src->stride, src->sample,
                    dst->data + (size_t)y * dst->stride, dst->sample,
                    (size_t)src->width * (size_t)src->channels);
    return JF_OK;
}
