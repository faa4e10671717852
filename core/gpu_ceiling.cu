/* The copy ceiling: what a large device-to-device copy moves per second on
 * the context's device, the bench's and info's measure of reachable
 * bandwidth. */
#include "core/gpu.cuh"
#include "core/util.h"

/* Device-to-device copy of `bytes`, timed with events; median of reps. */
extern "C" jf_status jf_gpu_copy_ceiling(jf_context *ctx, size_t bytes, int reps, double *gbps)
{
    struct jf_gpu *g = ctx->gpu;
    void *a = NULL, *b = NULL;
    cudaEvent_t e0 = NULL, e1 = NULL;
    double ms[64];
    float one;
    cudaError_t e;
    int i;
    jf_device_scope scope(ctx);
    if (scope.status != JF_OK)
        return scope.status;
    if (reps < 1) reps = 1;
    if (reps > 64) reps = 64;
    if ((e = cudaMalloc(&a, bytes)) != cudaSuccess || (e = cudaMalloc(&b, bytes)) != cudaSuccess ||
        (e = cudaEventCreate(&e0)) != cudaSuccess || (e = cudaEventCreate(&e1)) != cudaSuccess)
        goto done;
    /* never zeros: fill with a pattern first */
    e = cudaMemsetAsync(a, 0x5A, bytes, g->stream);
    for (i = -2; i < reps && e == cudaSuccess; i++) {
        if ((e = cudaEventRecord(e0, g->stream)) != cudaSuccess ||
            (e = cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, g->stream)) != cudaSuccess ||
            (e = cudaEventRecord(e1, g->stream)) != cudaSuccess ||
            (e = cudaEventSynchronize(e1)) != cudaSuccess)
            break;
        if (i >= 0 && (e = cudaEventElapsedTime(&one, e0, e1)) == cudaSuccess)
            ms[i] = one;
    }
done:
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    cudaFree(a);
    cudaFree(b);
    if (e != cudaSuccess)
        return jf_cuda_fail("copy ceiling (cudaMalloc/cudaMemcpyAsync)", __FILE__, __LINE__, e);
    *gbps = 2.0 * (double)bytes / (jf_sort_median(ms, reps) * 1e6);
    return JF_OK;
}
