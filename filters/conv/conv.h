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

/* CPU reference: src (w x h, bordered by `border` as it is read) into dst,
 * bands on ctx's pool, k rows a band of scratch from ctx.  With col and row
 * non-NULL the separable path runs. */
jf_status jf_conv_cpu(jf_context *ctx, const jf_image *src, int ksize, jf_border border,
                      const float *weights, const float *col, const float *row, jf_image *dst);

/* The weighted mean of each window's valid samples (conv_valid.c): `ignore`
 * a jf_ignore other than NONE, `value` the one it leaves out; col and row
 * non-NULL for rank-1 weights.  Checked by the caller. */
jf_status jf_conv_valid_cpu(jf_context *ctx, const jf_image *src, int ksize, jf_border border,
                            const float *weights, const float *col, const float *row, int ignore,
                            double value, jf_image *dst);

/* The scratch each CPU path takes for src's shape (its size, channels and
 * sample type) with `bands` bands, or `threads` workers: jf_conv_cpu's,
 * jf_conv_cpu_fixed's, jf_conv_cpu_fft's (0: no tile size fits). */
size_t jf_conv_cpu_bytes(const jf_image *src, int ksize, int separable, int bands);
size_t jf_conv_fixed_bytes(const jf_image *src, int ksize, int bands);
size_t jf_conv_fft_bytes(const jf_image *src, int ksize, int threads);

/* The CPU rows (conv.c; jf_variant_row.cpu, .takes, .cpu_work): 16-bit
 * fixed point, the FFT and the float reference. */
struct jf_cpu_call;
struct jf_shape;
int jf_conv_fixed_takes(const struct jf_shape *s, int k);
jf_status jf_conv_fixed_cpu(struct jf_cpu_call *c);
size_t jf_conv_fixed_work(const struct jf_shape *s, int k, int threads);
int jf_conv_fft_takes(const struct jf_shape *s, int k);
jf_status jf_conv_fft_cpu(struct jf_cpu_call *c);
size_t jf_conv_fft_work(const struct jf_shape *s, int k, int threads);
jf_status jf_conv_float_cpu(struct jf_cpu_call *c);
size_t jf_conv_float_work(const struct jf_shape *s, int k, int threads);

/* The CPU's 16-bit fixed-point path (conv_cpu_fixed.c), which `auto` runs
 * on the CPU: if src is 8-bit and the rank-1 factors col and row are
 * non-negative with a kernel sum of at most 1, fill qcol[k] and qrow[k]
 * (0.16 fixed point) and return 1; else 0. */
int jf_conv_fixed_weights(const jf_image *src, int ksize, const float *col, const float *row,
                          uint16_t *qcol, uint16_t *qrow);
/* The separable sum with those weights, within one level of jf_conv_cpu's. */
jf_status jf_conv_cpu_fixed(jf_context *ctx, const jf_image *src, int ksize, jf_border border,
                            const uint16_t *qcol, const uint16_t *qrow, jf_image *dst);

/* The CPU's FFT path (conv_cpu_fft.c), which `auto` runs on the CPU for
 * weights that are not rank 1: 1 if it is the cheaper for src and these
 * weights (large k, large image) and keeps within one level of the
 * reference (sum |w| x the sample range small enough); else 0. */
int jf_conv_fft_plan(const jf_image *src, int ksize, const float *weights);
/* The correlation through overlap-save FFT tiles, within one level of
 * jf_conv_cpu's where jf_conv_fft_plan said yes. */
jf_status jf_conv_cpu_fft(jf_context *ctx, const jf_image *src, int ksize, jf_border border,
                          const float *weights, jf_image *dst);

/* The fast variant's kernels (conv_variants.c): rank-1 weights through the
 * separable kernel from this k (below it the direct register-blocked one is
 * as fast: docs/kernels/studies.md), unrolled kernels up to JF_CONV_FAST_UNROLLED_MAX_K,
 * k at run time beyond. */
#define JF_CONV_SEPARABLE_MIN_K 7
#define JF_CONV_FAST_UNROLLED_MAX_K 13

/* The GPU rows' launches (conv_cuda.cu; jf_variant_row.run). */
struct jf_gpu_call;
jf_status jf_conv_global_run(const struct jf_gpu_call *call);
jf_status jf_conv_shared_run(const struct jf_gpu_call *call);
jf_status jf_conv_separable_run(const struct jf_gpu_call *call);
jf_status jf_conv_unrolled_run(const struct jf_gpu_call *call);
jf_status jf_conv_wide_run(const struct jf_gpu_call *call);
jf_status jf_conv_float_run(const struct jf_gpu_call *call);
jf_status jf_conv_float_regs_run(const struct jf_gpu_call *call);
jf_status jf_conv_float_tile_run(const struct jf_gpu_call *call);

#ifdef JF_HAVE_CUDA
struct jf_choice;
/* The variant the resolver chose, on the GPU; col and row: the separable
 * factors of rank-1 weights (else NULL). */
jf_status jf_convolve_cuda(jf_context *ctx, const jf_image *src, jf_image *dst,
                           const jf_conv_options *opt, const struct jf_choice *choice,
                           const float *col, const float *row);
#endif

#ifdef __cplusplus
}
#endif

#ifdef __CUDACC__
#include "core/gpu.cuh"
#include "filters/resolve.h"
struct jf_filter_in;
/* CUDA variants: the input as jf_gpu_filter_setup leaves it in, interleaved
 * output out (one file each), the block bx x by the resolver chose;
 * `d_weights` is the context's device copy of the k x k weights, `weights`
 * the caller's (the unrolled fast kernels take them as kernel parameters). */
jf_status jf_conv_global_launch(jf_context *ctx, const struct jf_filter_in *in, int k, const float *d_weights, int bx,
                                int by, const jf_dview *out);
jf_status jf_conv_shared_launch(jf_context *ctx, const struct jf_filter_in *in, int k, const float *d_weights, int bx,
                                int by, const jf_dview *out);
jf_status jf_conv_fast_launch(jf_context *ctx, const struct jf_filter_in *in, int k, const float *weights, int bx, int by,
                              const jf_dview *out);
/* The fast variant beyond JF_CONV_FAST_UNROLLED_MAX_K (k known at run time,
 * weights from the device buffer). */
jf_status jf_conv_wide_launch(jf_context *ctx, const struct jf_filter_in *in, int k, const float *d_weights, int bx,
                              int by, const jf_dview *out);
/* The fast variant for weights col[j] * row[i] (any k up to JF_CONV_MAX_KSIZE). */
jf_status jf_conv_separable_launch(jf_context *ctx, const struct jf_filter_in *in, int k, const float *col,
                                   const float *row, int bx, int by, const jf_dview *out);
/* The same for float32 images (conv_float.cu): in one pass through the
 * block's shared memory, or row sums, then column sums. */
jf_status jf_conv_float_tile_launch(jf_context *ctx, const struct jf_filter_in *in, int k, const float *col,
                                    const float *row, int bx, int by, const jf_dview *out);
jf_status jf_conv_float_launch(jf_context *ctx, const struct jf_filter_in *in, int k, const float *col,
                               const float *row, int bx, int by, const jf_dview *out);
#endif
#endif
