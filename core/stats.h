/* Internal: adding stats records (decode/encode timings from the pipeline,
 * kernel timings from the GPU runtime) and the copy ceiling the bench uses. */
#ifndef JF_CORE_STATS_H
#define JF_CORE_STATS_H

#include "jetfilter.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Does this context keep stats? */
int jf_stats_on(const jf_context *ctx);

/* Append a record when the context keeps stats (else nothing). */
void jf_stats_add(jf_context *ctx, const jf_stat *stat);

/* Append a CPU timing record built from its parts. */
void jf_record(jf_context *ctx, const char *name, const char *variant, int ksize,
               const jf_image *img, double ms, uint64_t bytes_read, uint64_t bytes_written);

/* Release the ring. */
void jf_stats_release(jf_context *ctx);

/* Make room for `capacity` records (0: stats off). */
jf_status jf_stats_init(jf_context *ctx, int capacity);

/* The copy ceiling: the median of `reps` copies of `bytes` bytes, device to
 * device on a CUDA context (CUDA events), memcpy on a CPU context; counts
 * bytes read plus written, as the filters' effective bandwidth does. */
jf_status jf_measure_copy_gbps(jf_context *ctx, size_t bytes, int reps, double *gbps);

#ifdef __cplusplus
}
#endif
#endif
