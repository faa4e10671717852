/* Internal to filters/: the impulse-noise filters (adaptive and switching
 * median) and the density estimate. */
#ifndef JF_FILTERS_IMPULSE_H
#define JF_FILTERS_IMPULSE_H

#include "jetfilter.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum jf_impulse_kind { JF_IMPULSE_ADAPTIVE, JF_IMPULSE_SWITCHING } jf_impulse_kind;

/* CPU references over an image padded by max_ksize/2 (host), into dst. */
jf_status jf_impulse_cpu(jf_context *ctx, jf_impulse_kind kind, const jf_image *padded,
                         int max_ksize, jf_image *dst);

/* The smoothing pass: impulses of src (0 or 255) become the rounded mean of
 * `first`'s 3 x 3 neighbourhood inside the image; other samples `first`'s. */
jf_status jf_impulse_refine_cpu(jf_context *ctx, const jf_image *src, const jf_image *first,
                                jf_image *dst);

/* Whether the smoothing pass (refine) would bring the switching median's
 * estimates closer to the truth on this host image: each of up to 20 000
 * clean samples away from the border is hidden and estimated from its
 * neighbours as the filter would an impulse there, with and without the
 * pass; 1 when the pass's squared error is clearly the smaller. */
int jf_impulse_refine_helps(const jf_image *img);

/* Samples at 0 (counts[0]) and at 255 (counts[1]) with a different value in
 * their 3 x 3 neighbourhood (replicated borders), on the CPU. */
jf_status jf_impulse_count_cpu(jf_context *ctx, const jf_image *img, uint64_t counts[2]);

#ifdef JF_HAVE_CUDA
jf_status jf_impulse_cuda(jf_context *ctx, jf_impulse_kind kind, const jf_image *src,
                          jf_image *dst, const jf_impulse_options *opt);
/* The counts of jf_impulse_count_cpu for a device image; waits for them. */
jf_status jf_impulse_count_cuda(jf_context *ctx, const jf_image *img, uint64_t counts[2]);
#endif

#ifdef __cplusplus
}
#endif

/* Rules shared by the CPU and CUDA code, so both give the same bytes. */
#if defined(__CUDACC__)
#define JF_IMP_HD __host__ __device__ __forceinline__
#else
#define JF_IMP_HD static inline
#endif

/* A salt-and-pepper impulse: the two extreme values. */
JF_IMP_HD int jf_is_extreme(unsigned v) { return v == 0u || v == 255u; }

/* Median of n values given their rank-(n-1)/2 and rank-n/2 elements: the
 * middle one for odd n, the rounded-up mean of the two for even n. */
JF_IMP_HD unsigned jf_even_median(unsigned lo, unsigned hi) { return (lo + hi + 1u) >> 1; }

/* sum / n rounded half up, in integers. */
JF_IMP_HD unsigned jf_round_mean(unsigned sum, unsigned n) { return (2u * sum + n) / (2u * n); }

#endif
