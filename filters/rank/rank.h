/* Internal to filters/: the rank filters (the k x k minimum and maximum). */
#ifndef JF_FILTERS_RANK_H
#define JF_FILTERS_RANK_H

#include "jetfilter.h"

#ifdef __cplusplus
extern "C" {
#endif

#define JF_RANK_MAX_KSIZE 63

/* Which rank (jf_cpu_call.args, jf_gpu_call.args). */
typedef struct jf_rank_which {
    int max; /* 1: the maximum (dilation), 0: the minimum (erosion) */
} jf_rank_which;

/* The k x k minimum or maximum of every channel of src into dst, on the
 * variant the resolver chooses (rank.c). */
jf_status jf_rank(jf_context *ctx, const jf_image *src, jf_image *dst, int k, jf_border border,
                  jf_variant variant, int max);

/* The CPU row: van Herk and Gil-Werman's running extremes along the rows,
 * then down the columns, about three comparisons a sample whatever k
 * (rank_cpu.c), and the scratch it takes. */
struct jf_cpu_call;
struct jf_shape;
jf_status jf_rank_cpu_run(struct jf_cpu_call *c);
size_t jf_rank_cpu_bytes(const struct jf_shape *s, int k, int threads);

/* The GPU rows' launches (rank_cuda.cu). */
struct jf_gpu_call;
jf_status jf_rank_global_run(const struct jf_gpu_call *call);
jf_status jf_rank_separable_run(const struct jf_gpu_call *call);

#ifdef JF_HAVE_CUDA
struct jf_choice;
jf_status jf_rank_cuda(jf_context *ctx, const jf_image *src, jf_image *dst, int k, jf_border border,
                       int max, const struct jf_choice *choice);
#endif

#ifdef __cplusplus
}
#endif
#endif
