/* Internal to filters/: median variants. */
#ifndef JF_FILTERS_MEDIAN_H
#define JF_FILTERS_MEDIAN_H

#include "jetfilter.h"

#ifdef __cplusplus
extern "C" {
#endif

/* CPU reference over an image already padded by k/2: `padded` is
 * (w+k-1) x (h+k-1), `dst` is w x h, both host.  Uses `threads` threads. */
jf_status jf_median_cpu(const jf_image *padded, int ksize, jf_image *dst, int threads);

#ifdef __cplusplus
}
#endif
#endif
