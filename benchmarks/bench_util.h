/* Internal: what the benchmark programs share (jetfilter bench,
 * bench_gpu, bench_median_cpu). */
#ifndef JF_BENCHMARKS_BENCH_UTIL_H
#define JF_BENCHMARKS_BENCH_UTIL_H

#include "jetfilter.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An RGB photo tiled to w x h with `ch` channels (grey = (R+G+B)/3) into a
 * newly allocated host image; `shift` offsets the tiling (13 columns and 7
 * rows per step) so rotated copies hold different pixels; 0 is plain tiling. */
jf_status jf_bench_tile(const jf_image *photo, int w, int h, int ch, int shift, jf_image *out);

/* Largest absolute byte difference of two host images of one shape. */
int jf_bench_max_diff(const jf_image *a, const jf_image *b);

/* The last stats record with this name, or NULL. */
const jf_stat *jf_bench_last_stat(const jf_context *ctx, const char *name);

/* n seeded pseudo-random bytes (xorshift64) from `state`; returns the state
 * after them, for whatever draws next. */
uint64_t jf_bench_random_bytes(unsigned char *p, size_t n, uint64_t state);

/* Arbitrary k x k weights (seeded, not rank 1, summing to 1): what `conv`
 * is measured with when no file is given. */
void jf_bench_arbitrary_weights(float *w, int k);

#ifdef __cplusplus
}
#endif
#endif
