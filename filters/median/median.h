/* Internal to filters/: median variants. */
#ifndef JF_FILTERS_MEDIAN_H
#define JF_FILTERS_MEDIAN_H

#include "jetfilter.h"

#ifdef __cplusplus
extern "C" {
#endif

/* CPU reference over an image already padded by k/2: `padded` is
 * (w+k-1) x (h+k-1), `dst` is w x h, both host; bands on ctx's pool. */
jf_status jf_median_cpu(jf_context *ctx, const jf_image *padded, int ksize, jf_image *dst);
/* The same at 16 bits, k >= 7 (median_cpu16.c). */
jf_status jf_median_cpu16(jf_context *ctx, const jf_image *padded, int ksize, jf_image *dst);
/* k = 3 and 5 at either depth from the image itself: each band pads the
 * rows it reads (median_cpu_net.c). */
jf_status jf_median_cpu_small(jf_context *ctx, const jf_image *src, int ksize, jf_border border,
                              jf_image *dst);

/* What `auto` picks on the GPU for this k and image (median.c); the
 * shared variant itself never needs more shared memory than the device has. */
jf_variant jf_median_auto(const jf_device_info *dev, int k, const jf_image *src);
/* The fast variant's networks exist for k = 3 to 11 (median_fast.cu); it
 * runs k = 9 and 11 only with two samples a register (compute capability
 * 9.0, not in Nano limits mode).  Other k asked of it run the shared
 * variant. */
int jf_median_fast_supports(int k);
int jf_median_fast_runs(const jf_device_info *dev, int k);
/* Samples per register: 2 where 16-bit SIMD min/max is one instruction. */
int jf_median_fast_lanes(const jf_device_info *dev);

#ifdef JF_HAVE_CUDA
jf_status jf_median_cuda(jf_context *ctx, const jf_image *src, jf_image *dst,
                         const jf_median_options *opt);
#endif

#ifdef __cplusplus
}
#endif

#ifdef __CUDACC__
#include "core/gpu.cuh"
struct jf_filter_in;
/* CUDA variants: the input as jf_gpu_filter_setup leaves it in, interleaved output out (one file each).
 * bx, by 0 x 0: the variant's default block. */
jf_status jf_median_global_launch(jf_context *ctx, const struct jf_filter_in *in, int k, int bx, int by,
                                  const jf_dview *out);
jf_status jf_median_fast_launch(jf_context *ctx, const struct jf_filter_in *in, int k, int bx, int by,
                                const jf_dview *out);
jf_status jf_median_shared_launch(jf_context *ctx, const struct jf_filter_in *in, int k, int bx, int by,
                                  const jf_dview *out);
#endif
#endif
