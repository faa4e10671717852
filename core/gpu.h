/* Internal: the CUDA runtime as the C side sees it.  Everything here exists
 * only in builds with CUDA (JF_HAVE_CUDA). */
#ifndef JF_CORE_GPU_H
#define JF_CORE_GPU_H

#include "jetfilter.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef JF_HAVE_CUDA
jf_status jf_gpu_create(jf_context *ctx, const jf_context_options *opt);
void jf_gpu_destroy(jf_context *ctx);
jf_status jf_gpu_sync(jf_context *ctx);
jf_status jf_gpu_set_stream(jf_context *ctx, void *stream);
jf_status jf_gpu_order(jf_context *ctx, void *stream);
jf_status jf_gpu_image_alloc(jf_context *ctx, jf_image *img, int w, int h, int ch,
                             jf_sample sample, jf_location loc);
void jf_gpu_image_free(jf_image *img);
jf_status jf_gpu_transfer(jf_context *ctx, const jf_image *src, jf_image *dst);
jf_status jf_gpu_frame(jf_context *ctx, int which, int w, int h, int ch, jf_sample sample,
                       jf_image *img);
jf_status jf_gpu_copy_ceiling(jf_context *ctx, size_t bytes, int reps, double *gbps);
/* Make the context's device current for C code that calls a CUDA library
 * (nvJPEG); returns the device to restore with jf_gpu_leave(), or -1. */
int jf_gpu_enter(const jf_context *ctx, jf_status *st);
void jf_gpu_leave(int prev);
#endif

/* The device facts of a CUDA context (limits included), or NULL on the CPU. */
const jf_device_info *jf_gpu_info(const jf_context *ctx);

#ifdef __cplusplus
}
#endif
#endif
