/* Internal: the context's insides, its CPU thread pool and scratch buffers. */
#ifndef JF_CORE_CONTEXT_H
#define JF_CORE_CONTEXT_H

#include "jetfilter.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct jf_gpu;  /* CUDA state, core/gpu.cuh */
struct jf_pool; /* worker threads, core/pool.c */

/* Host buffers a context keeps and grows between calls, so that calls at a
 * size already seen allocate nothing. */
enum jf_scratch_slot {
    JF_SCRATCH_PAD,   /* the padded copy the CPU filters read */
    JF_SCRATCH_BANDS, /* per-worker rows (accumulators, rings) */
    JF_SCRATCH_ROWS,  /* per-row results (sums), or a whole float image */
    JF_SCRATCH_AUX,
    JF_SCRATCH_FRAME0, /* jf_context_frame() on a CPU context */
    JF_SCRATCH_FRAME1,
    JF_SCRATCH_COUNT
};

typedef struct jf_scratch {
    void *ptr;
    size_t size;
} jf_scratch;

/* Stats: a ring of the last records and running totals per stage. */
#define JF_STAT_TOTALS 64
typedef struct jf_stats {
    jf_stat *ring;
    size_t cap, start, count;
    uint64_t dropped;
    jf_stat_total totals[JF_STAT_TOTALS];
    size_t ntotals;
    unsigned epoch; /* one more at each jf_stats_clear: GPU timers started
                       before it (still pending) are dropped, not recorded */
} jf_stats;

struct jf_context {
    jf_backend backend;
    int device;
    int threads;
    jf_memory memory;
    jf_codec codec;     /* JPEG decoder of jf_picture_decode_frame */
    char note[256];
    struct jf_pool *pool;
    struct jf_gpu *gpu;
    struct jf_profile *profile; /* CUDA: measured `auto` choices (core/profile.h), or NULL */
    jf_scratch scratch[JF_SCRATCH_COUNT];
    jf_stats stats;
    /* a codec's per-context state (io/codec_nvjpeg.c), freed with the
     * context, before its CUDA state */
    void *codec_state;
    void (*codec_state_free)(jf_context *ctx);
    /* what the last operation ran and why (filters/resolve.c; read back by
     * jf_plan_run's result) */
    struct {
        jf_variant variant;
        char kernel[48];
        int block_x, block_y;
        char reason[160];
    } last;
};

/* A CPU context with every core, for calls given a NULL context; destroy it
 * after the call. */
jf_status jf_context_temporary(jf_context **out);

/* Run `expr` with `ctx` made non-NULL (a temporary CPU context when the
 * caller passed NULL), then release the temporary and return the status. */
#define JF_WITH_CONTEXT(ctx, expr)                                             \
    do {                                                                       \
        jf_context *jf_tmp_ctx_ = NULL;                                        \
        jf_status jf_with_st_;                                                 \
        if (!(ctx)) {                                                          \
            if ((jf_with_st_ = jf_context_temporary(&jf_tmp_ctx_)) != JF_OK)   \
                return jf_with_st_;                                            \
            (ctx) = jf_tmp_ctx_;                                               \
        }                                                                      \
        jf_with_st_ = (expr);                                                  \
        jf_context_destroy(jf_tmp_ctx_);                                       \
        return jf_with_st_;                                                    \
    } while (0)

/* Scratch buffer `slot` of at least `bytes` (contents not kept when it
 * grows).  NULL, with the error recorded, when memory runs out. */
void *jf_scratch_get(jf_context *ctx, int slot, size_t bytes);

/* Run fn(arg, begin, end, worker) over [0, n) split into contiguous bands,
 * one per worker of the context's pool (the calling thread is worker 0).
 * The pool starts on first use and is reused; if its threads cannot start,
 * the bands run one after another here. */
typedef void (*jf_range_fn)(void *arg, int begin, int end, int worker);
void jf_parallel_for(jf_context *ctx, int n, jf_range_fn fn, void *arg);

/* Number of bands jf_parallel_for will use for n items (<= threads). */
int jf_parallel_bands(const jf_context *ctx, int n);

void jf_pool_destroy(struct jf_pool *pool);

#ifdef __cplusplus
}
#endif
#endif
