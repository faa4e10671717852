/* Internal to filters/: metric variants. */
#ifndef JF_FILTERS_METRICS_H
#define JF_FILTERS_METRICS_H

#include "jetfilter.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Sum of squared differences over every sample of two same-shaped host
 * images (integers exactly; float32 in double, NaN giving NaN). */
jf_status jf_sse_cpu(jf_context *ctx, const jf_image *a, const jf_image *b, double *sse);

/* Mean SSIM of one channel for data range L (see jetfilter.h for the
 * definition). */
jf_status jf_ssim_cpu(jf_context *ctx, const jf_image *a, const jf_image *b, int channel,
                      double L, double *ssim);

/* The SSIM window: 11 taps of a Gaussian with sigma 1.5, normalised. */
#define JF_SSIM_RADIUS 5
void jf_ssim_window(double g[2 * JF_SSIM_RADIUS + 1]);

#ifdef JF_HAVE_CUDA
jf_status jf_sse_cuda(jf_context *ctx, const jf_image *a, const jf_image *b, double *sse);
jf_status jf_ssim_cuda(jf_context *ctx, const jf_image *a, const jf_image *b, double *ssim);
#endif

#ifdef __cplusplus
}
#endif
#endif
