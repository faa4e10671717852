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
/* The same at 16 bits, k >= 11 (median_cpu16.c). */
jf_status jf_median_cpu16(jf_context *ctx, const jf_image *padded, int ksize, jf_image *dst);
/* k = 3 to 9 at either depth from the image itself: each band pads the
 * rows it reads (median_cpu_net.c). */
jf_status jf_median_cpu_small(jf_context *ctx, const jf_image *src, int ksize, jf_border border,
                              jf_image *dst);

/* float32 at k = 3, 5 and 7: the networks on the samples' keys
 * (median_cpu_keys.c). */
jf_status jf_median_float_networks(jf_context *ctx, const jf_image *src, int k, jf_border border,
                                   jf_image *dst);
/* The median of each window's samples other than those `ignore`
 * (jf_ignore) names, any sample type (median_cpu_keys.c). */
jf_status jf_median_valid_cpu(jf_context *ctx, const jf_image *src, int k, jf_border border,
                              int ignore, double value, jf_image *dst);

/* The CPU rows' implementations and their scratch (median.c,
 * median_cpu_keys.c; jf_variant_row.cpu, .cpu_work). */
struct jf_cpu_call;
struct jf_shape;
jf_status jf_median_networks_cpu(struct jf_cpu_call *c);
jf_status jf_median_histogram_cpu(struct jf_cpu_call *c);
jf_status jf_median_histogram16_cpu(struct jf_cpu_call *c);
jf_status jf_median_select_cpu(struct jf_cpu_call *c);
size_t jf_median_padded_bytes(const struct jf_shape *s, int k, int threads);
size_t jf_median_select_bytes(const struct jf_shape *s, int k, int threads);
size_t jf_median_keys_bytes(const struct jf_shape *s, int k, int threads);

/* The GPU rows' launches (median_cuda.cu; jf_variant_row.run). */
struct jf_gpu_call;
jf_status jf_median_global_run(const struct jf_gpu_call *call);
jf_status jf_median_float_run(const struct jf_gpu_call *call);
jf_status jf_median_shared_run(const struct jf_gpu_call *call);
jf_status jf_median_fast_run(const struct jf_gpu_call *call);
jf_status jf_median_strip_run(const struct jf_gpu_call *call);
jf_status jf_median_video_run(const struct jf_gpu_call *call);
jf_status jf_median_video_networks_run(const struct jf_gpu_call *call);

#ifdef JF_HAVE_CUDA
struct jf_choice;
/* The variant the resolver chose, on the GPU (median_cuda.cu). */
jf_status jf_median_cuda(jf_context *ctx, const jf_image *src, jf_image *dst,
                         const jf_median_options *opt, const struct jf_choice *choice);
#endif

#ifdef __cplusplus
}
#endif

#ifdef __CUDACC__
#include "core/gpu.cuh"
#include "filters/resolve.h"
struct jf_filter_in;
/* CUDA variants: the input as jf_gpu_filter_setup leaves it in, interleaved
 * output out (one file each), the kernel and block the resolver chose. */
jf_status jf_median_global_launch(jf_context *ctx, const struct jf_filter_in *in, int k,
                                  const jf_choice *c, const jf_dview *out);
jf_status jf_median_fast_launch(jf_context *ctx, const struct jf_filter_in *in, int k,
                                const jf_choice *c, const jf_dview *out);
jf_status jf_median_video_launch(jf_context *ctx, const struct jf_filter_in *in,
                                 const jf_choice *c, const jf_dview *out);
jf_status jf_median_fast_video_launch(jf_context *ctx, const struct jf_filter_in *in, int k,
                                      const jf_choice *c, const jf_dview *out);
/* k = 3, 8 bits, compute capability 9.0: strips through registers
 * (median_fast_strip.cu); what the strips do not take (large images,
 * blocks of part warps: jf_median_strips_run; inputs or outputs not
 * 16-byte aligned) goes to the two-lane networks in their default block
 * (jf_median_fast_networks3_launch). */
jf_status jf_median_strip_launch(jf_context *ctx, const struct jf_filter_in *in, const jf_choice *c,
                                 const jf_dview *out);
jf_status jf_median_fast_networks3_launch(jf_context *ctx, const struct jf_filter_in *in,
                                          const jf_dview *out);
jf_status jf_median_shared_launch(jf_context *ctx, const struct jf_filter_in *in, int k,
                                  const jf_choice *c, const jf_dview *out);
#endif
#endif
