/* Internal: the NPP baseline that `jetfilter bench` runs in the same
 * process, on the same padded device buffers as jetfilter's kernels.  Built
 * where the CUDA toolkit has NPP (npp_baseline.cu); npp_none.c otherwise. */
#ifndef JF_BENCHMARKS_NPP_H
#define JF_BENCHMARKS_NPP_H

#include "jetfilter.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Non-zero when this build has the NPP baseline. */
int jf_npp_available(void);

/* "NPP 13.0.1" or why there is none. */
const char *jf_npp_version(void);

/*
 * Time NPP on `count` padded device images (each (w+2r) x (h+2r), rotated
 * in turn), writing a w x h device image; `warmup` untimed calls, then
 * `reps` calls timed with CUDA events on the context's stream; the median ms
 * goes to *ms.  The output of the last call is left in dst.
 *   median:  nppiFilterMedian_8u_C1R_Ctx / _C3R_Ctx (16u at 16 bits), mask
 *            k x k, anchor (r, r)
 *   filter:  nppiFilter32f_8u_C1R_Ctx / _C3R_Ctx (16u at 16 bits) with the
 *            weights reversed (NPP convolves; jetfilter correlates), anchor (r, r)
 */
jf_status jf_npp_median(jf_context *ctx, const jf_image *padded, int count, int k,
                        jf_image *dst, int warmup, int reps, double *ms);
jf_status jf_npp_filter(jf_context *ctx, const jf_image *padded, int count, int k,
                        const float *weights, jf_image *dst, int warmup, int reps, double *ms);

#ifdef __cplusplus
}
#endif
#endif
