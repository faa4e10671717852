/*
 * Convolution weights live in __constant__ memory: every thread of a warp
 * reads the same weight at the same time, which constant memory broadcasts.
 * The symbol is global to the device while launches are asynchronous, so a
 * process-wide lock is held from the upload until the launch is queued, and
 * different weights are only written after the device has drained (the
 * kernels already queued keep reading what they were launched with).  A batch
 * with one kernel for every file uploads once.
 */
#ifndef JF_FILTERS_CONV_WEIGHTS_CUH
#define JF_FILTERS_CONV_WEIGHTS_CUH

#include <pthread.h>
#include <string.h>

#include "pipeline/gpu.cuh"

#define JF_CONV_WEIGHTS (JF_CONV_MAX_KSIZE * JF_CONV_MAX_KSIZE)
#define JF_MAX_DEVICES 16

typedef struct jf_weight_cache {
    pthread_mutex_t lock;
    int ksize[JF_MAX_DEVICES];
    float w[JF_MAX_DEVICES][JF_CONV_WEIGHTS];
} jf_weight_cache;

/* Lock, and make `symbol` on the context's device hold w (k x k). */
static inline jf_status jf_weights_acquire(jf_weight_cache *cache, const void *symbol,
                                           jf_context *ctx, const float *w, int k)
{
    int dev = ctx->gpu->device % JF_MAX_DEVICES;
    size_t n = sizeof(float) * (size_t)k * (size_t)k;
    cudaError_t e = cudaSuccess;
    pthread_mutex_lock(&cache->lock);
    if (cache->ksize[dev] == k && memcmp(cache->w[dev], w, n) == 0)
        return JF_OK;
    cache->ksize[dev] = 0;
    if ((e = cudaDeviceSynchronize()) == cudaSuccess &&
        (e = cudaMemcpyToSymbol(symbol, w, n)) == cudaSuccess) {
        memcpy(cache->w[dev], w, n);
        cache->ksize[dev] = k;
        return JF_OK;
    }
    pthread_mutex_unlock(&cache->lock);
    return jf_cuda_fail("cudaMemcpyToSymbol(weights)", __FILE__, __LINE__, e);
}

static inline void jf_weights_release(jf_weight_cache *cache)
{
    pthread_mutex_unlock(&cache->lock);
}

#endif
