/* Internal: the context's insides and the CPU worker pool. */
#ifndef JF_PIPELINE_CONTEXT_H
#define JF_PIPELINE_CONTEXT_H

#include "jetfilter.h"

#ifdef __cplusplus
extern "C" {
#endif

struct jf_gpu; /* CUDA state, pipeline/gpu.cuh */

struct jf_context {
    jf_backend backend;
    int device;
    int threads;
    void *stream;
    jf_memory memory;
    char note[256];
    struct jf_gpu *gpu;
    jf_stat *stats;
    size_t stats_count, stats_cap;
};

/* Run fn(arg, begin, end) over [0, n) split into contiguous chunks, one per
 * worker, on up to `threads` threads (the calling thread takes a share).
 * Falls back to a single call when n is small or threads == 1. */
typedef void (*jf_range_fn)(void *arg, int begin, int end);
void jf_parallel_for(int threads, int n, jf_range_fn fn, void *arg);

/* Worker count of a possibly NULL context. */
int jf_threads_of(const jf_context *ctx);

/* Number of online CPUs (>= 1). */
int jf_cpu_count(void);

/* Sort v[0..n) ascending in place and return the median v[n/2]; after the
 * call v[0] is the minimum and v[n-1] the maximum. */
double jf_sort_median(double *v, int n);

/* Monotonic clock in milliseconds. */
double jf_now_ms(void);

/* Append a CPU timing record when the context collects stats. */
void jf_record(jf_context *ctx, const char *name, const char *variant, int ksize,
               const jf_image *img, double ms, uint64_t bytes_read,
               uint64_t bytes_written);

#ifdef __cplusplus
}
#endif
#endif
