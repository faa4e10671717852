/* Internal to filters/: convolution variants. */
#ifndef JF_FILTERS_CONV_H
#define JF_FILTERS_CONV_H

#include "jetfilter.h"

#ifdef __cplusplus
extern "C" {
#endif

/* If w (k x k) is rank 1 (to float precision), fill col[k] and row[k] with
 * w[j][i] = col[j] * row[i] and return 1; else 0. */
int jf_kernel_separate(const float *w, int ksize, float *col, float *row);

/* CPU reference over a padded image ((w+k-1) x (h+k-1)) into dst (w x h).
 * With col and row non-NULL the separable path runs. */
jf_status jf_conv_cpu(const jf_image *padded, int ksize, const float *weights,
                      const float *col, const float *row, jf_image *dst, int threads);

#ifdef __cplusplus
}
#endif
#endif
