/*
 * Sum of squared differences on the GPU, for PSNR.  Each thread sums whole
 * integers (exact), the warp reduces with shuffles, the block through shared
 * memory, and one 64-bit partial per block goes back to the host, which adds
 * them in block order.  The result equals the CPU's exactly.
 */
#include "filters/metrics/metrics.h"
#include "core/gpu.cuh"

#define SSE_THREADS 256

/* Pitches in samples of T; a 16-bit difference squared needs 64 bits. */
template <typename T>
__global__ void sse_kernel(const T *__restrict__ a, size_t a_pitch, const T *__restrict__ b,
                           size_t b_pitch, int row_samples, int rows,
                           unsigned long long *__restrict__ partials)
{
    __shared__ unsigned long long s_warp[SSE_THREADS / 32];
    unsigned long long sum = 0;
    for (int y = blockIdx.x; y < rows; y += gridDim.x) {
        const T *pa = a + (size_t)y * a_pitch, *pb = b + (size_t)y * b_pitch;
        for (int x = threadIdx.x; x < row_samples; x += blockDim.x) {
            const long long d = (long long)pa[x] - (long long)pb[x];
            sum += (unsigned long long)(d * d);
        }
    }
    for (int off = 16; off > 0; off >>= 1)
        sum += __shfl_down_sync(0xffffffffu, sum, off);
    if ((threadIdx.x & 31) == 0)
        s_warp[threadIdx.x >> 5] = sum;
    __syncthreads();
    if (threadIdx.x < 32) {
        sum = threadIdx.x < SSE_THREADS / 32 ? s_warp[threadIdx.x] : 0ull;
        for (int off = 16; off > 0; off >>= 1)
            sum += __shfl_down_sync(0xffffffffu, sum, off);
        if (threadIdx.x == 0)
            partials[blockIdx.x] = sum;
    }
}

extern "C" jf_status jf_sse_cuda(jf_context *ctx, const jf_image *a, const jf_image *b,
                                 double *sse)
{
    const int blocks = a->height < 2048 ? a->height : 2048;
    const int row = a->width * a->channels;
    unsigned long long host[2048], total = 0;
    jf_dview va, vb, parts;
    jf_status st;
    int id, i;
    jf_device_scope scope(ctx);
    if (scope.status != JF_OK)
        return scope.status;
    jf_gpu_begin(ctx);
    ctx->gpu->must_sync = 1; /* a number comes back: always wait */
    if ((st = jf_gpu_input(ctx, a, JF_SLOT_IN, &va)) != JF_OK ||
        (st = jf_gpu_input(ctx, b, JF_SLOT_IN2, &vb)) != JF_OK ||
        (st = jf_gpu_buffer(ctx, JF_SLOT_WORK1, sizeof host, 1, JF_BUF_DEVICE, &parts)) != JF_OK ||
        (st = jf_gpu_timer_start(ctx, &id)) != JF_OK)
        return st;
    if (a->sample == JF_SAMPLE_U16)
        sse_kernel<unsigned short><<<blocks, SSE_THREADS, 0, ctx->gpu->stream>>>(
            (const unsigned short *)va.ptr, va.pitch / 2, (const unsigned short *)vb.ptr,
            vb.pitch / 2, row, a->height, (unsigned long long *)parts.ptr);
    else
        sse_kernel<unsigned char><<<blocks, SSE_THREADS, 0, ctx->gpu->stream>>>(
            va.ptr, va.pitch, vb.ptr, vb.pitch, row, a->height, (unsigned long long *)parts.ptr);
    JF_LAUNCH_CHECK("sse_kernel");
    if ((st = jf_gpu_timer_stop(ctx, id, "psnr", "cuda", 0, a, 2ull * row * a->height * jf_bps(a),
                                0)) != JF_OK)
        return st;
    JF_CUDA_TRY(cudaMemcpyAsync(host, parts.ptr, sizeof(unsigned long long) * blocks,
                                cudaMemcpyDeviceToHost, ctx->gpu->stream));
    if ((st = jf_gpu_finish(ctx, NULL, NULL)) != JF_OK)
        return st;
    for (i = 0; i < blocks; i++)
        total += host[i];
    *sse = (double)total;
    return JF_OK;
}
