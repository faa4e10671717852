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

/* CPU reference over a padded image ((w+k-1) x (h+k-1)) into dst (w x h),
 * bands on ctx's pool, scratch from ctx.  With col and row non-NULL the
 * separable path runs. */
jf_status jf_conv_cpu(jf_context *ctx, const jf_image *padded, int ksize, const float *weights,
                      const float *col, const float *row, jf_image *dst);

/* Does the CUDA `fast` variant exist for this k?  Every odd k from 3:
 * unrolled for k = 3..13 (conv_fast.cu), k at run time beyond (conv_wide.cu,
 * where its tile and weights fit the device's shared memory; else the
 * fallback runs), separable for rank-1 weights from
 * JF_CONV_SEPARABLE_MIN_K. */
int jf_conv_fast_supports(int k);

/* From this k, `fast` runs rank-1 weights through the separable kernel
 * (below it, the direct register-blocked one is as fast: RESULTS.md). */
#define JF_CONV_SEPARABLE_MIN_K 7
/* The largest k with an unrolled fast kernel (conv_fast.cu). */
#define JF_CONV_FAST_UNROLLED_MAX_K 13
int jf_conv_separable_path(int k, int rank1);

/* What `auto` picks on the GPU for this k (any weights, any image). */
jf_variant jf_conv_auto(int k);

#ifdef JF_HAVE_CUDA
jf_status jf_convolve_cuda(jf_context *ctx, const jf_image *src, jf_image *dst,
                           const jf_conv_options *opt);
#endif

#ifdef __cplusplus
}
#endif

#ifdef __CUDACC__
#include "core/gpu.cuh"
struct jf_filter_in;
/* CUDA variants: the input as jf_gpu_filter_setup leaves it in, interleaved output out (one file each);
 * `d_weights` is the context's device copy of the k x k weights, `weights`
 * the caller's (the fast variant passes them as kernel parameters; given
 * bx = by = 0 it picks its own block). */
jf_status jf_conv_global_launch(jf_context *ctx, const struct jf_filter_in *in, int k, const float *d_weights, int bx,
                                int by, const jf_dview *out);
jf_status jf_conv_shared_launch(jf_context *ctx, const struct jf_filter_in *in, int k, const float *d_weights, int bx,
                                int by, const jf_dview *out);
jf_status jf_conv_fast_launch(jf_context *ctx, const struct jf_filter_in *in, int k, const float *weights, int bx, int by,
                              const jf_dview *out);
/* The fast variant beyond JF_CONV_FAST_UNROLLED_MAX_K (k known at run time,
 * weights from the device buffer); jf_conv_wide_fits says whether any block
 * of it fits this device for this image and k (else the fallback runs). */
jf_status jf_conv_wide_launch(jf_context *ctx, const struct jf_filter_in *in, int k, const float *d_weights, int bx,
                              int by, const jf_dview *out);
int jf_conv_wide_fits(jf_context *ctx, const jf_image *shape, int k);
/* The fast variant for weights col[j] * row[i] (any k up to JF_CONV_MAX_KSIZE). */
jf_status jf_conv_separable_launch(jf_context *ctx, const struct jf_filter_in *in, int k, const float *col,
                                   const float *row, int bx, int by, const jf_dview *out);
#endif
#endif
