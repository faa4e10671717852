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

#ifdef __CUDACC__
#include "pipeline/gpu.cuh"
/* CUDA variants: padded planes in, interleaved output out (one file each). */
jf_status jf_median_global_launch(jf_context *ctx, const jf_dview *planes, int plane_rows,
                                  const jf_image *shape, int k, int bx, int by,
                                  const jf_dview *out);
jf_status jf_median_shared_launch(jf_context *ctx, const jf_dview *planes, int plane_rows,
                                  const jf_image *shape, int k, int bx, int by,
                                  const jf_dview *out);
void jf_median_shared_default_block(int k, int *bx, int *by);
#endif
#endif
