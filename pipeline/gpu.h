/* Internal: the CUDA backend as the C side sees it.  Everything here exists
 * only in builds with CUDA (JF_HAVE_CUDA). */
#ifndef JF_PIPELINE_GPU_H
#define JF_PIPELINE_GPU_H

#include "jetfilter.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef JF_HAVE_CUDA
jf_status jf_gpu_create(jf_context *ctx, const jf_context_options *opt);
void jf_gpu_destroy(jf_context *ctx);
jf_status jf_gpu_image_alloc(jf_context *ctx, jf_image *img, int w, int h, int ch,
                             jf_location loc);
void jf_gpu_image_free(jf_image *img);
jf_status jf_gpu_transfer(jf_context *ctx, const jf_image *src, jf_image *dst);
jf_status jf_gpu_copy_ceiling(jf_context *ctx, size_t bytes, int reps, double *gbps);

jf_status jf_pad_cuda(jf_context *ctx, const jf_image *src, int radius, jf_border border,
                      jf_image *dst);
jf_status jf_median_cuda(jf_context *ctx, const jf_image *src, jf_image *dst,
                         const jf_median_options *opt);
jf_status jf_convolve_cuda(jf_context *ctx, const jf_image *src, jf_image *dst,
                           const jf_conv_options *opt);
jf_status jf_sse_cuda(jf_context *ctx, const jf_image *a, const jf_image *b, double *sse);
jf_status jf_ssim_cuda(jf_context *ctx, const jf_image *a, const jf_image *b, double *ssim);
#endif

#ifdef __cplusplus
}
#endif
#endif
