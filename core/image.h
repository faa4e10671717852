/* Internal: image checks and allocation every layer shares. */
#ifndef JF_CORE_IMAGE_H
#define JF_CORE_IMAGE_H

#include "jetfilter.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Check width x height x channels against the pixel limit and size_t;
 * `what` names the image in the error. */
jf_status jf_check_dims(const char *what, uint64_t width, uint64_t height, int channels);

/* Only that w x h x channels fits size_t and int: for buffers made from an
 * image already accepted (padded copies), which may pass the pixel limit by
 * their margin, so that an image at the limit is also processable. */
jf_status jf_check_size(const char *what, uint64_t width, uint64_t height, int channels);

/* Allocate the image on the host only if it has no data yet, else check
 * its shape and sample type. */
jf_status jf_image_prepare(jf_image *img, int width, int height, int channels, jf_sample sample);

/* Bytes of one sample of the image: 1, 2 or 4 (0 for an unknown type, which
 * the checks refuse before any row is sized). */
static inline size_t jf_bps(const jf_image *img)
{
    return jf_sample_size(img->sample);
}

/* Whether data and stride are multiples of the sample's size (16-bit and
 * float samples are read as such). */
static inline int jf_image_aligned(const jf_image *img)
{
    const size_t b = jf_sample_size(img->sample);
    return b && (uintptr_t)img->data % b == 0 && img->stride % b == 0;
}

/* Bytes of one row of pixels (without the stride's slack). */
static inline size_t jf_row_bytes(const jf_image *img)
{
    return (size_t)img->width * (size_t)img->channels * jf_bps(img);
}

#ifdef __cplusplus
}
#endif
#endif
