/* Internal to filters/: padding variants. */
#ifndef JF_FILTERS_PAD_H
#define JF_FILTERS_PAD_H

#include "jetfilter.h"

#ifdef __cplusplus
extern "C" {
#endif

/* CPU reference: src (host) padded by radius on every side into dst (host,
 * already allocated (w+2r) x (h+2r)). */
jf_status jf_pad_cpu(const jf_image *src, int radius, jf_border border, jf_image *dst);

/* jf_pad on the CPU whatever the context's backend (the CPU filters use it). */
jf_status jf_pad_host(jf_context *ctx, const jf_image *src, int radius, jf_border border,
                      jf_image *dst);

#ifdef __cplusplus
}
#endif
#endif
